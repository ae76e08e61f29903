/**
 * Step: validate an order's input and resolve its options with this worker's defaults, once, when the order
 * starts. It runs as a local activity so its answer is recorded in history: replaying the order on a later
 * release takes the input as it was resolved then, never parsing it again with that release's schema.
 */
import { InvalidOrderInputError } from '../contract';
import { applicationFailure } from '../failure-types';
import { resolveBadgeOrderInput, type ResolvedBadgeOrderInput } from '../workflows/order-input';

/** Input of `resolveOrderInput`: the order's input as the workflow received it. */
export interface ResolveOrderInputInput {
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
