/** Where activity code meets Temporal: every error leaves as an `ApplicationFailure` (see the failure table). */
import { Context } from '@temporalio/activity';
import { toApplicationFailure } from './to-application-failure';

/** An activity whose work's errors are converted, recording the attempt for the workflow's counts. */
export function atBoundary<I extends unknown[], T>(
  work: (...input: I) => Promise<T>,
): (...input: I) => Promise<T> {
  return async (...input) => {
    try {
      return await work(...input);
    } catch (error) {
      const context = Context.current();
      throw toApplicationFailure(error, context.info.attempt, {
        cancellationSignal: context.cancellationSignal,
      });
    }
  };
}
