/** Where activity code meets Temporal: every error leaves as an `ApplicationFailure` (see the failure table). */
import { Context } from '@temporalio/activity';
import { toApplicationFailure } from './to-application-failure';

/** Runs an activity's work and converts what it throws, recording the attempt for the workflow's counts. */
export async function atBoundary<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const context = Context.current();
    throw toApplicationFailure(error, context.info.attempt, {
      cancellationSignal: context.cancellationSignal,
    });
  }
}
