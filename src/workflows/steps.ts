/**
 * The activities of a badge order, each proxied with its options and a summary for the Web UI's timeline
 * (refs and ids only: no personal data). Workflow code imports activities as types only.
 */
import { CancellationScope, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  CREATE_ORDER_OPTIONS,
  INSPECT_DOCUMENT_OPTIONS,
  platformCallOptions,
  uploadOptions,
} from './activity-options';

/** The activity functions the worker registers for badge orders. */
export type BadgeOrderActivities = ReturnType<typeof createActivities>;

/** Tuning that the step options depend on. */
interface StepSettings {
  readonly platformRetryWindowMs: number;
  readonly uploadRetryWindowMs: number;
  readonly uploadHeartbeatTimeoutMs: number;
  /** Authentication and stock lookup as local activities (orders since 0.2.0), else as regular ones. */
  readonly localReads: boolean;
}

/** Activity proxies of one order, by step. */
export interface OrderSteps {
  /** Authentication and stock lookup, with a summary (see `platformCallOptions`). */
  platformRead(summary: string): BadgeOrderActivities;
  /** One order creation attempt, with a summary. */
  createOrder(summary: string): BadgeOrderActivities;
  /** One document upload, with a summary. */
  upload(summary: string): BadgeOrderActivities;
  /** Checking a replacement file. */
  readonly inspector: BadgeOrderActivities;
}

/**
 * Validating and resolving the order's input when it starts: a local activity, so its answer is recorded in
 * history and replay never parses the input again with a later release's schema or defaults.
 */
export const inputResolver = proxyLocalActivities<BadgeOrderActivities>({
  startToCloseTimeout: '10 seconds',
  // Only an unexpected error is retried: an invalid input fails the activity for good (INVALID_INPUT).
  retry: { maximumAttempts: 3 },
  summary: 'Validate the order input and resolve its options',
});

/**
 * The same, and a first sign-in (orders since 0.3.0) and stock lookup (since 0.5.0), in one local activity,
 * with `summary`. Each first try inside is bounded (`FIRST_TRY_TIMEOUT_MS`, 10 s) and never fails the activity,
 * so the timeout only catches the unexpected.
 */
export function inputResolverWithSignIn(summary: string): BadgeOrderActivities {
  return proxyLocalActivities<BadgeOrderActivities>({
    startToCloseTimeout: '35 seconds',
    retry: { maximumAttempts: 3 },
    summary,
  });
}

let shield: CancellationScope | undefined;

/**
 * Runs `step` shielded from the order's cancellation. Every call of a run shares one non-cancellable scope
 * (module state is per workflow execution): building a scope costs three promises, each with a captured stack.
 */
export function nonCancellable<T>(step: () => Promise<T>): Promise<T> {
  return (shield ??= new CancellationScope({ cancellable: false })).run(step);
}

/** Builds the activity proxies of one order. */
export function orderSteps(settings: StepSettings): OrderSteps {
  const platform = platformCallOptions(settings.platformRetryWindowMs);
  const upload = uploadOptions({
    retryWindowMs: settings.uploadRetryWindowMs,
    heartbeatTimeoutMs: settings.uploadHeartbeatTimeoutMs,
  });
  return {
    platformRead: (summary) =>
      (settings.localReads ? proxyLocalActivities : proxyActivities)<BadgeOrderActivities>({
        ...platform,
        summary,
      }),
    createOrder: (summary) => proxyActivities<BadgeOrderActivities>({ ...CREATE_ORDER_OPTIONS, summary }),
    upload: (summary) => proxyActivities<BadgeOrderActivities>({ ...upload, summary }),
    inspector: proxyActivities<BadgeOrderActivities>({
      ...INSPECT_DOCUMENT_OPTIONS,
      summary: 'Check replacement file',
    }),
  };
}
