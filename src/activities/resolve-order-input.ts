/**
 * Step: validate an order's input and resolve its options with this worker's defaults, once, when the order
 * starts. It runs as a local activity so its answer is recorded in history: replaying the order on a later
 * release takes the input as it was resolved then, never parsing it again with that release's schema.
 *
 * `resolveInputAndSignIn` does the same and then signs in (as `authenticate`): one local activity instead of two,
 * so one workflow activation and one marker fewer per order. Sign-in here is a first try only, bounded by
 * {@link FIRST_SIGN_IN_TIMEOUT_MS}: when it fails, the order signs in through the `authenticate` step, with its
 * retries, its phase and its cancellation, as before.
 */
import { Context, log } from '@temporalio/activity';
import { InvalidOrderInputError } from '../contract';
import { applicationFailure } from '../failure-types';
import { resolveBadgeOrderInput, type ResolvedBadgeOrderInput } from '../workflows/order-input';
import { signIn } from './authenticate';
import type { ActivityDependencies } from './dependencies';
import type { AuthenticateResult } from './types';

/** Input of `resolveOrderInput`: the order's input as the workflow received it. */
interface ResolveOrderInputInput {
  readonly input: unknown;
}

/** Creates the `resolveOrderInput` activity; an invalid input fails it for good, naming every field. */
export function resolveOrderInputActivity(): (
  input: ResolveOrderInputInput,
) => Promise<ResolvedBadgeOrderInput> {
  // async for the activity's promise-returning signature; the work itself is synchronous.
  // eslint-disable-next-line @typescript-eslint/require-await
  return async function resolveOrderInput({ input }) {
    try {
      return resolveBadgeOrderInput(input);
    } catch (error) {
      if (!(error instanceof InvalidOrderInputError)) throw error;
      throw applicationFailure('INVALID_INPUT', error.message);
    }
  };
}

/**
 * How long the first sign-in may take. The order cannot be cancelled and shows its starting view meanwhile,
 * so this stays short, well below the activity's timeout.
 */
const FIRST_SIGN_IN_TIMEOUT_MS = 10_000;

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
