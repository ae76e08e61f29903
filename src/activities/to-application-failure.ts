/**
 * The boundary between our errors and Temporal: every activity error leaves as an `ApplicationFailure` whose
 * `type` is the error's stable code and whose retryability comes from the one failure table
 * (`src/failure-types.ts`), so the workflow's retry table can name it. A cancellation is not a failure of the
 * step: it leaves as it came.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { FAILURE_TABLE, isFailureType, SERVICE_FAILURE_TYPES } from '../failure-types';
import type { FailureType } from '../failure-types';
import { CALL_OUTCOMES, isPlatformError } from '../platform/errors';
import type { CallOutcome } from '../platform/errors';
import { redactText } from '../platform/http';

/** `details[0]` of every `ApplicationFailure` built here: what the workflow needs to decide. */
export interface FailureDetails {
  /** The activity attempt that failed. */
  readonly attempt: number;
  /** What the failed call may have done on the platform; `maybe-applied` when unknown. */
  readonly outcome: CallOutcome;
  /** The delay the platform asked for (429, 503 in maintenance), when it gave one. */
  readonly retryAfterMs?: number;
  /** The HTTP status, when the platform answered. */
  readonly status?: number;
  /** The field or part the platform named as at fault (a 422's `document_owner`, say), when it named one. */
  readonly field?: string;
}

/** Options of {@link toApplicationFailure}. */
export interface ToApplicationFailureOptions {
  /**
   * The activity's cancellation signal (`Context.current().cancellationSignal`): an error that is its reason
   * is a cancellation and is returned unchanged.
   */
  readonly cancellationSignal?: AbortSignal;
  /**
   * Make a failure that may have taken effect non-retryable, so that the workflow decides (e.g. holds order
   * creation for reconciliation when the platform may ignore idempotency keys) instead of Temporal retrying
   * blindly.
   * @default false
   */
  readonly holdWhenMaybeApplied?: boolean;
}

const MAX_MESSAGE_LENGTH = 1_000;

/**
 * Whether an error is a cancellation or an abort rather than a failure: a `CancelledFailure`, an `AbortError`
 * (DOMException or not), or the reason of the activity's cancellation signal.
 */
export function isCancellation(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted && error === signal.reason) return true;
  if (error instanceof CancelledFailure) return true;
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'CancelledFailure';
}

/**
 * What a failed call may have done on the platform: a platform error says; a document that could not be
 * read was never sent; anything else may have taken effect.
 */
export function callOutcomeOf(error: unknown): CallOutcome {
  const outcome = (error as { outcome?: unknown } | null)?.outcome;
  if (CALL_OUTCOMES.includes(outcome as CallOutcome)) return outcome as CallOutcome;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === SERVICE_FAILURE_TYPES.invalidDocument || code === SERVICE_FAILURE_TYPES.documentUnavailable) {
    return 'not-sent';
  }
  return 'maybe-applied';
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
 * The failure type of an error: a platform error's code, another error's `code` when it is in the failure
 * table (e.g. `INVALID_DOCUMENT`, `DOCUMENT_UNAVAILABLE`), else `UNEXPECTED_ERROR`.
 */
export function failureTypeOf(error: unknown): FailureType {
  if (isPlatformError(error)) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  return isFailureType(code) ? code : SERVICE_FAILURE_TYPES.unexpectedError;
}

/**
 * Converts an error thrown by activity code. Returns the error unchanged when it already is an
 * `ApplicationFailure` or when it is a cancellation ({@link isCancellation}): a cancelled activity is never
 * reported as `UNEXPECTED_ERROR` or `ORDER_REJECTED`. Otherwise the `ApplicationFailure` has
 * `type` = the failure type, `nonRetryable` from the failure table, `details[0]` = {@link FailureDetails}, and
 * the platform's `Retry-After` as the next retry delay.
 * @param error what the activity threw
 * @param attempt the activity attempt, recorded so the workflow can count attempts
 * @param options the activity's cancellation signal and the hold rule
 */
export function toApplicationFailure(
  error: unknown,
  attempt: number,
  options: ToApplicationFailureOptions = {},
): Error {
  if (error instanceof ApplicationFailure) return error;
  if (isCancellation(error, options.cancellationSignal)) {
    // Objects pass as they are (a DOMException may come from another realm and fail `instanceof Error`).
    return typeof error === 'object' && error !== null
      ? (error as Error)
      : new CancelledFailure(String(error));
  }
  const type = failureTypeOf(error);
  const outcome = callOutcomeOf(error);
  const retryAfterMs = retryAfterOf(error);
  const status = isPlatformError(error) ? error.status : undefined;
  const field = (error as { field?: unknown } | null)?.field;
  const details: FailureDetails = {
    attempt,
    outcome,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
    ...(status !== undefined && { status }),
    ...(typeof field === 'string' && isPlatformError(error) && { field }),
  };
  const held = options.holdWhenMaybeApplied === true && outcome === 'maybe-applied';
  return ApplicationFailure.create({
    type,
    message: safeMessage(error),
    nonRetryable: !FAILURE_TABLE[type].retryable || held,
    details: [details],
    // The platform's Retry-After becomes the delay before the next attempt.
    ...(retryAfterMs !== undefined && { nextRetryDelay: retryAfterMs }),
  });
}
