/**
 * The boundary between our errors and Temporal: every activity error leaves as an `ApplicationFailure` whose
 * `type` is the error's code and whose retryability is the failure table's (`src/failure-types.ts`). A
 * cancellation is not a failure of the step: it leaves as it came.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { FAILURE_TABLE, isFailureCode, outcomeOf } from '../failure-types';
import type { CallOutcome, FailureCode, FailureDetails } from '../failure-types';
import { isPlatformError } from '../platform/errors';
import { redactText } from '../platform/http';

const MAX_MESSAGE_LENGTH = 1_000;

/**
 * Whether an error is a cancellation or an abort rather than a failure: a `CancelledFailure`, an `AbortError`
 * (DOMException or not), or the reason of the activity's cancellation signal.
 */
function isCancellation(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && error === signal.reason) return true;
  if (error instanceof CancelledFailure) return true;
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'CancelledFailure';
}

/** The failure code of an error: its `code` when the table has it (a platform or document error), else `UNEXPECTED_ERROR`. */
function failureCodeOf(error: unknown): FailureCode {
  const code = (error as { code?: unknown } | null)?.code;
  return isFailureCode(code) ? code : 'UNEXPECTED_ERROR';
}

/**
 * What a failed call may have done on the platform: what a platform error says, else its code's outcome in the
 * table (a document that could not be read was never sent; anything else may have taken effect).
 */
export function callOutcomeOf(error: unknown): CallOutcome {
  const outcome = (error as { outcome?: unknown } | null)?.outcome;
  if (outcome === 'not-sent' || outcome === 'rejected' || outcome === 'maybe-applied') return outcome;
  return outcomeOf(failureCodeOf(error));
}

function retryAfterOf(error: unknown): number | undefined {
  const value = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A secret-free, length-capped message (tokens and JWTs removed; platform errors are clean already). */
function safeMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const clean = redactText(text, []);
  return clean.length > MAX_MESSAGE_LENGTH ? `${clean.slice(0, MAX_MESSAGE_LENGTH)}…` : clean;
}

/**
 * Converts an error thrown by activity code. Returns the error unchanged when it already is an
 * `ApplicationFailure` or when it is a cancellation: a cancelled activity is never reported as
 * `UNEXPECTED_ERROR` or `ORDER_REJECTED`. Otherwise the `ApplicationFailure` has `type` = the failure code,
 * `nonRetryable` from the failure table, `details[0]` = `FailureDetails`, and the platform's `Retry-After` as
 * the next retry delay.
 * @param error what the activity threw
 * @param attempt the activity attempt, recorded so the workflow can count attempts
 * @param options the activity's cancellation signal (an error that is its reason is a cancellation), and
 * `holdWhenMaybeApplied`: make a failure that may have taken effect final, so that the workflow decides
 * instead of Temporal retrying blindly
 */
export function toApplicationFailure(
  error: unknown,
  attempt: number,
  options: { readonly cancellationSignal?: AbortSignal; readonly holdWhenMaybeApplied?: boolean } = {},
): Error {
  if (error instanceof ApplicationFailure) return error;
  if (isCancellation(error, options.cancellationSignal)) {
    // Objects pass as they are (a DOMException may come from another realm and fail `instanceof Error`).
    return typeof error === 'object' && error !== null
      ? (error as Error)
      : new CancelledFailure(String(error));
  }
  const code = failureCodeOf(error);
  const outcome = callOutcomeOf(error);
  const retryAfterMs = retryAfterOf(error);
  const status = isPlatformError(error) ? error.status : undefined;
  const field = isPlatformError(error) ? error.field : undefined;
  const setting = isPlatformError(error) ? error.setting : undefined;
  const details: FailureDetails = {
    attempt,
    outcome,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
    ...(status !== undefined && { status }),
    ...(typeof field === 'string' && { field }),
    ...(setting !== undefined && { setting }),
  };
  const held = options.holdWhenMaybeApplied === true && outcome === 'maybe-applied';
  return ApplicationFailure.create({
    type: code,
    message: safeMessage(error),
    nonRetryable: !FAILURE_TABLE[code].retryable || held,
    details: [details],
    // The platform's Retry-After becomes the delay before the next attempt.
    ...(retryAfterMs !== undefined && { nextRetryDelay: retryAfterMs }),
  });
}
