/** Step: sign in to the platform. Warms the worker's token cache; the token itself never leaves the worker. */
import { Context } from '@temporalio/activity';
import { atBoundary } from './boundary';
import { DEFAULT_PLATFORM_BEHAVIOUR, type ActivityDependencies } from './dependencies';
import type { AuthenticateResult } from './types';

/** Creates the `authenticate` activity. */
export function authenticateActivity(deps: ActivityDependencies): () => Promise<AuthenticateResult> {
  const behaviour = deps.behaviour ?? DEFAULT_PLATFORM_BEHAVIOUR;
  return async function authenticate() {
    return atBoundary(async () => {
      const session = await deps.platform.authenticate({ signal: Context.current().cancellationSignal });
      return {
        userId: session.userId,
        expiresAt: session.expiresAt?.toISOString() ?? null,
        idempotencyKeys: behaviour.idempotencyKeys,
      };
    });
  };
}
