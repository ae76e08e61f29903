/**
 * How each badge order step is retried: backoff and windows. Which failures are final is not listed here: each
 * failure says so itself (`nonRetryable`, set at the activity boundary from the failure table in
 * `src/failure-types.ts`); everything else backs off and tries again within the step's window.
 */
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/workflow';

/** Backoff for platform calls: quick first retries, then at most a minute apart. 429 overrides the delay. */
const PLATFORM_RETRY_POLICY: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
};

/**
 * Authentication and stock lookup: small JSON calls that change nothing on the platform. The attempt timeout
 * sits above the client's total deadline of a call, so a call lost with a crashed worker is retried soon.
 * New orders run them as local activities: they only read, are safe to repeat, and take milliseconds
 * (authentication answers from the worker's token cache), so running them inside the workflow task saves two
 * activity round trips through the server per order. Their results (user id, stock verdict; never the token)
 * are recorded in history as markers; a long retry runs as timers between attempts (the SDK's local retry
 * threshold).
 */
export function platformCallOptions(retryWindowMs: number): ActivityOptions & LocalActivityOptions {
  return {
    startToCloseTimeout: '35 seconds',
    scheduleToCloseTimeout: retryWindowMs,
    retry: PLATFORM_RETRY_POLICY,
  };
}

/**
 * Order creation: one attempt per activity. The workflow sees every failed attempt, because what follows
 * depends on whether the attempt may have created the order (see `placeOrder`).
 */
export const CREATE_ORDER_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '35 seconds',
  retry: { maximumAttempts: 1 },
};

/** Delay before creation attempt `attempt + 1` after a failure that did not create the order. */
export function creationBackoffMs(attempt: number, requestedMs: number | undefined): number {
  const backoff = Math.min(1000 * 2 ** Math.min(attempt - 1, 20), 60_000);
  return Math.max(backoff, Math.min(requestedMs ?? 0, 10 * 60_000));
}

/**
 * One document upload. Large files may take long, so liveness comes from heartbeats, not a short timeout;
 * the retry window bounds how long a document is retried before it counts as failed.
 */
export function uploadOptions(options: {
  retryWindowMs: number;
  heartbeatTimeoutMs: number;
}): ActivityOptions {
  return {
    startToCloseTimeout: '1 hour',
    heartbeatTimeout: options.heartbeatTimeoutMs,
    scheduleToCloseTimeout: options.retryWindowMs,
    retry: PLATFORM_RETRY_POLICY,
  };
}

/** Local checks of a file under DOCUMENTS_ROOT (used to validate a replacement). */
export const INSPECT_DOCUMENT_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { ...PLATFORM_RETRY_POLICY, maximumAttempts: 3 },
};
