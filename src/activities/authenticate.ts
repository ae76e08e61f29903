/** Step: sign in to the platform. Warms the worker's token cache; the token itself never leaves the worker. */
import { Context } from '@temporalio/activity';
import { atBoundary } from './boundary';
import { DEFAULT_PLATFORM_BEHAVIOUR, type ActivityDependencies } from './dependencies';
import type { AuthenticateResult } from './types';

/** Creates the `authenticate` activity. */
export function authenticateActivity(deps: ActivityDependencies): () => Promise<AuthenticateResult> {
  return atBoundary(() => signIn(deps, Context.current().cancellationSignal));
}

/** Signs in, answered from the token cache while its token lasts; `signal` ends the wait. */
export async function signIn(deps: ActivityDependencies, signal: AbortSignal): Promise<AuthenticateResult> {
  const behaviour = deps.behaviour ?? DEFAULT_PLATFORM_BEHAVIOUR;
  const session = await deps.platform.authenticate({ signal });
  return {
    userId: session.userId,
    documentOwner: session.documentOwner?.id ?? null,
    documentOwnerSource:
      session.documentOwner?.source ??
      (session.credentials === 'client'
        ? 'client credentials name no user: set BADGE_DOCUMENT_OWNER'
        : session.claims.names.length === 0
          ? 'the token is not a JWT'
          : `no single user id among the token's claims ${session.claims.names.join(', ')}`),
    expiresAt: session.expiresAt?.toISOString() ?? null,
    idempotencyKeys: behaviour.idempotencyKeys,
  };
}
