/**
 * Step: validate an order's input and resolve its options with this worker's defaults, once, when the order
 * starts. It runs as a local activity so its answer is recorded in history: replaying the order on a later
 * release takes the input as it was resolved then, never parsing it again with that release's schema.
 *
 * `resolveInputAndSignIn` does the same and then signs in (as `authenticate`) and, when asked, looks the order's
 * stock up (as `lookUpStock`): one local activity instead of three, so two workflow activations and two markers
 * fewer per order. Both are first tries only, each bounded by {@link FIRST_TRY_TIMEOUT_MS}: when one does not
 * answer, the order takes its own step (`authenticate`, `lookUpStock`), with its retries, its phase and its
 * cancellation, as before.
 */
import { Context, log } from '@temporalio/activity';
import { InvalidOrderInputError, parseBadgeOrderInput } from '../contract';
import { applicationFailure } from '../failure-types';
import { withDefaultOptions, type ResolvedBadgeOrderInput } from '../order-options';
import { signIn } from './authenticate';
import type { ActivityDependencies } from './dependencies';
import { lookUpStock } from './look-up-stock';
import type { AuthenticateResult, LookUpStockResult } from './types';

/** Input of `resolveOrderInput`: the order's input as the workflow received it. */
interface ResolveOrderInputInput {
  readonly input: unknown;
}

/** Input of `resolveInputAndSignIn`. */
interface ResolveInputAndSignInInput extends ResolveOrderInputInput {
  /** Also look the order's stock up, once signed in (orders since 0.5.0; absent in older histories). */
  readonly lookUpStock?: boolean;
}

/**
 * Validates an order input and resolves its options with this worker's defaults; throws `InvalidOrderInputError`
 * naming each invalid field.
 */
export function resolveBadgeOrderInput(input: unknown): ResolvedBadgeOrderInput {
  const valid = parseBadgeOrderInput(input);
  return { ...valid, options: withDefaultOptions(valid.options) };
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
 * How long the first sign-in, and then the first stock lookup, may each take. The order cannot be cancelled and
 * shows its starting view meanwhile, so this stays short: both together stay well below the activity's timeout.
 */
const FIRST_TRY_TIMEOUT_MS = 10_000;

/** The resolved input, the session when the first sign-in succeeded, and the stock when it was looked up. */
interface ResolveInputAndSignInResult {
  readonly input: ResolvedBadgeOrderInput;
  /** `null` when the first sign-in failed: the workflow then runs the `authenticate` step. */
  readonly session: AuthenticateResult | null;
  /**
   * What the stock lookup advised; `null` (or absent: not asked, as in older histories) when it was not made or
   * did not answer: the workflow then runs the `lookUpStock` step when the order names a stock.
   */
  readonly stock?: LookUpStockResult | null;
}

/** Creates the `resolveInputAndSignIn` activity; an invalid input fails it for good, naming every field. */
export function resolveInputAndSignInActivity(
  deps: ActivityDependencies,
): (input: ResolveInputAndSignInInput) => Promise<ResolveInputAndSignInResult> {
  const resolveOrderInput = resolveOrderInputActivity();
  const firstTry = async <T>(
    step: string,
    attempt: (signal: AbortSignal) => Promise<T>,
  ): Promise<T | null> => {
    const signal = AbortSignal.any([
      Context.current().cancellationSignal,
      AbortSignal.timeout(FIRST_TRY_TIMEOUT_MS),
    ]);
    try {
      return await attempt(signal);
    } catch (error) {
      // Not the order's failure: the order's own step tries again, and its outcome is the one that counts.
      log.warn(`first ${step} failed; the order takes its own step`, {
        errorType: error instanceof Error ? error.name : typeof error,
      });
      return null;
    }
  };
  return async function resolveInputAndSignIn({ input, lookUpStock: withStock }) {
    const resolved = await resolveOrderInput({ input });
    const session = await firstTry('sign-in', (signal) => signIn(deps, signal));
    if (withStock !== true) return { input: resolved, session };
    const stockId = resolved.stockId ?? null;
    const stock =
      session === null || stockId === null
        ? null
        : await firstTry('stock lookup', (signal) => lookUpStock(deps, stockId, signal));
    return { input: resolved, session, stock };
  };
}
