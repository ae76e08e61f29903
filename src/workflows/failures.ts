/**
 * Reading activity failures in workflow code: their code, a one-line description, attempt counts and what the
 * failed call may have done (the details the activity boundary attaches; see `src/failure-types.ts`).
 */
import { ActivityFailure, ApplicationFailure, TemporalFailure, TimeoutFailure } from '@temporalio/workflow';
import type { CallOutcome, FailureCode, FailureDetails } from '../failure-types';

/** The innermost ApplicationFailure of a failure chain, if any. */
export function applicationCause(error: unknown): ApplicationFailure | undefined {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof ApplicationFailure) return current;
    current = current.cause;
  }
  return undefined;
}

/** The failure type (our failure code, or another `type`) behind an activity failure, e.g. `STOCK_NOT_FOUND`. */
export function failureType(error: unknown): string | undefined {
  return applicationCause(error)?.type ?? undefined;
}

/** Whether a failure is of this code. */
export function failedWith(error: unknown, code: FailureCode): boolean {
  return failureType(error) === code;
}

/**
 * Longest failure description kept in workflow state (`lastError`, the order's error) and in messages built
 * from it. Every query answer and the result carry it, and history keeps it for the retention period; a
 * platform answering with a megabyte of text must not grow them. (Activities cap their messages at 1000.)
 */
export const MAX_FAILURE_DESCRIPTION_LENGTH = 2_000;

/** `text` cut to `max` characters (code points, so no half emoji), marked with `…` when cut. */
export function capLength(text: string, max: number = MAX_FAILURE_DESCRIPTION_LENGTH): string {
  if (text.length <= max) return text;
  const characters = Array.from(text);
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join('')}…`;
}

/**
 * A one-line description for operators: the failure type and message, with the timeout that ended retries;
 * at most {@link MAX_FAILURE_DESCRIPTION_LENGTH} characters.
 */
export function describeFailure(error: unknown): string {
  return capLength(describeUncapped(error));
}

function describeUncapped(error: unknown): string {
  const application = applicationCause(error);
  const timeout =
    error instanceof ActivityFailure && error.cause instanceof TimeoutFailure
      ? `retry window exhausted (${error.cause.timeoutType === undefined ? 'timeout' : String(error.cause.timeoutType)})`
      : error instanceof ActivityFailure && error.retryState === 'TIMEOUT'
        ? 'retry window exhausted'
        : undefined;
  const parts = [
    timeout,
    application ? `${application.type ?? 'Error'}: ${application.message}` : undefined,
  ].filter((part): part is string => part !== undefined);
  if (parts.length > 0) return parts.join(' — last error ');
  if (error instanceof TemporalFailure || error instanceof Error) return error.message;
  return String(error);
}

/** The `FailureDetails` an activity attaches to its failures, unchecked: a history holds what any release wrote. */
function failureDetails(error: unknown): { readonly [K in keyof FailureDetails]?: unknown } | undefined {
  const details = applicationCause(error)?.details?.[0];
  return details && typeof details === 'object' ? details : undefined;
}

/** How many activity attempts a failure stands for (the activity reports its attempt in the details). */
export function activityAttempts(error: unknown): number {
  const attempt = failureDetails(error)?.attempt;
  return typeof attempt === 'number' ? attempt : 1;
}

/**
 * What a failed activity attempt says about its platform call. A timeout (a worker that died or hung
 * mid-call) and any failure without our details count as "may have taken effect": we cannot know.
 */
export function attemptOutcome(error: unknown): CallOutcome {
  if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure) return 'maybe-applied';
  const outcome = failureDetails(error)?.outcome;
  return outcome === 'not-sent' || outcome === 'rejected' ? outcome : 'maybe-applied';
}

/** The delay the platform asked for (429 `Retry-After`), when it did. */
export function requestedRetryDelayMs(error: unknown): number | undefined {
  const delay = failureDetails(error)?.retryAfterMs;
  return typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 ? delay : undefined;
}

/**
 * Whether the platform refused the request because of `document_owner` (a 422 naming it as the field, or in
 * its message). Only picks the advice given to the operator; it decides nothing.
 */
export function refusedDocumentOwner(error: unknown): boolean {
  if (!failedWith(error, 'VALIDATION')) return false;
  return (
    failureDetails(error)?.field === 'document_owner' ||
    /document[_ ]?owner/i.test(applicationCause(error)?.message ?? '')
  );
}

/** The setting that decides a refusal (`FailureDetails.setting`): fixed there, the same request can succeed. */
export function refusedSetting(error: unknown): string | undefined {
  const setting = failureDetails(error)?.setting;
  return typeof setting === 'string' ? setting : undefined;
}

/** Whether the failure is final: its code's row in the failure table, or an activity that held a maybe-applied call. */
export function isFinalFailure(error: unknown): boolean {
  return applicationCause(error)?.nonRetryable === true;
}
