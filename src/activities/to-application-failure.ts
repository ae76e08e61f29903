/**
 * The boundary between our errors and Temporal: every activity error leaves as an `ApplicationFailure` whose
 * `type` is the error's stable code, so the workflow's retry table can name it.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { isPlatformError, isRetryable, RateLimitedError } from '../platform/errors';
import { InvalidDocumentError } from '../documents';

/** Converts an error thrown by activity code; `attempt` is recorded so the workflow can count attempts. */
export function toApplicationFailure(error: unknown, attempt: number): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  if (isPlatformError(error)) {
    return ApplicationFailure.create({
      type: error.code,
      message: error.message,
      nonRetryable: !isRetryable(error),
      details: [{ attempt, status: error.status ?? null }],
      // The platform's Retry-After becomes the delay before the next attempt.
      nextRetryDelay: error instanceof RateLimitedError ? error.retryAfterMs : undefined,
    });
  }
  if (error instanceof InvalidDocumentError) {
    return ApplicationFailure.create({
      type: error.code,
      message: error.message,
      nonRetryable: true,
      details: [{ attempt }],
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return ApplicationFailure.create({ type: 'UNEXPECTED_ERROR', message, details: [{ attempt }] });
}
