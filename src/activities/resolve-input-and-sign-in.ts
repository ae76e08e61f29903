/**
 * Step: when a new order starts, validate its input and resolve its options (as `resolveOrderInput`), then
 * sign in (as `authenticate`) — one local activity instead of two, so one workflow activation and one marker
 * fewer per order. Sign-in here is a first try only, bounded by {@link FIRST_SIGN_IN_TIMEOUT_MS}: when it
 * fails, the order signs in through the `authenticate` step, with its retries, its phase and its
 * cancellation, as before.
 */
import { Context, log } from '@temporalio/activity';
import type { ResolvedBadgeOrderInput } from '../workflows/order-input';
import { signIn } from './authenticate';
import type { ActivityDependencies } from './dependencies';
import { resolveOrderInputActivity, type ResolveOrderInputInput } from './resolve-order-input';
import type { AuthenticateResult } from './types';

/**
 * How long the first sign-in may take. The order cannot be cancelled and shows its starting view meanwhile,
 * so this stays short, well below the activity's timeout.
 */
export const FIRST_SIGN_IN_TIMEOUT_MS = 10_000;

/** The resolved input, and the session when the first sign-in succeeded. */
interface ResolveInputAndSignInResult {
  readonly input: ResolvedBadgeOrderInput;
  /** `null` when the first sign-in failed: the workflow then runs the `authenticate` step. */
  readonly session: AuthenticateResult | null;
}

/** Creates the `resolveInputAndSignIn` activity; an invalid input fails it for good, naming every field. */
export function resolveInputAndSignInActivity(
  deps: ActivityDependencies,
): (input: ResolveOrderInputInput) => Promise<ResolveInputAndSignInResult> {
  const resolveOrderInput = resolveOrderInputActivity();
  return async function resolveInputAndSignIn({ input }) {
    const resolved = await resolveOrderInput({ input });
    const signal = AbortSignal.any([
      Context.current().cancellationSignal,
      AbortSignal.timeout(FIRST_SIGN_IN_TIMEOUT_MS),
    ]);
    try {
      return { input: resolved, session: await signIn(deps, signal) };
    } catch (error) {
      // Not the order's failure: the `authenticate` step tries again, and its outcome is the one that counts.
      log.warn('first sign-in failed; the order signs in through the authenticate step', {
        errorType: error instanceof Error ? error.name : typeof error,
      });
      return { input: resolved, session: null };
    }
  };
}
