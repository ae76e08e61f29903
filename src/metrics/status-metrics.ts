/**
 * Gauges read from Temporal rather than counted in this process: how many open orders wait in each
 * `BadgeOrderStatus` and for how long, and whether the nightly replay is scheduled and when it last succeeded or
 * failed. They survive worker restarts (Temporal holds the truth), so alerts on them do not reset with a deploy.
 * Each worker with a metrics endpoint collects them on an interval; alert rules take the `max` across workers.
 */
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import type { MetricGauge, MetricMeter, NumericMetricValueType } from '@temporalio/common';
import { WORKFLOW_TYPES, type BadgeOrderStatusValue } from '../workflow-contract';
import { badgeOrdersQuery } from '../temporal/visibility';
import { REPLAY_SCHEDULE_ID } from '../contract';
import type { Logger } from 'pino';
import { METRIC_NAMES } from './names';

/** The open statuses counted; the two waiting ones also get the age of their oldest order. */
const WAITING_STATUSES: readonly BadgeOrderStatusValue[] = ['AwaitingRepair', 'AwaitingReconciliation'];
const OPEN_STATUSES: readonly BadgeOrderStatusValue[] = ['Running', ...WAITING_STATUSES];
/** Most waiting orders looked at for the oldest one; more than this many waiting is an alert of its own. */
const MAX_WAITING_LISTED = 5_000;

interface StatusMetricsOptions {
  readonly client: Client;
  /** `Runtime.instance().metricMeter` of the worker. */
  readonly meter: MetricMeter;
  /** Time between collections, ms. */
  readonly intervalMs: number;
  /** Where a failed collection is logged. */
  readonly logger: Pick<Logger, 'warn'>;
}

/** The gauges collected, by the key of their name: value type, unit and help text. */
const GAUGES = {
  ordersInStatus: ['int', '1', 'Open badge orders by BadgeOrderStatus, from Temporal visibility'],
  oldestWaitingSeconds: [
    'float',
    's',
    'Age of the oldest open order awaiting repair or reconciliation (since its run started); 0 when none',
  ],
  replayLastSuccess: ['float', 's', 'Unix time the nightly replay last completed'],
  replayLastFailure: [
    'float',
    's',
    'Unix time a nightly replay last failed, timed out or was terminated; 0 when none did',
  ],
  replayScheduleActive: ['int', '1', '1 when the nightly replay Schedule exists and is not paused'],
} as const satisfies Partial<
  Record<keyof typeof METRIC_NAMES, readonly [NumericMetricValueType, string, string]>
>;

/** When the newest run of the replay workflow matching `statusClause` closed, in seconds, or undefined. */
async function lastReplayClose(client: Client, statusClause: string): Promise<number | undefined> {
  let latest: number | undefined;
  let looked = 0;
  for await (const run of client.workflow.list({
    query: `WorkflowType = '${WORKFLOW_TYPES.replayFailedUploads}' AND (${statusClause})`,
    pageSize: 50,
  })) {
    const closed = run.closeTime?.getTime();
    if (closed !== undefined) latest = Math.max(latest ?? 0, closed / 1000);
    // Listings come newest first; one page is plenty for a nightly job.
    if (++looked >= 50) break;
  }
  return latest;
}

/**
 * Starts collecting every `intervalMs` (the first collection at once); see the module comment. `stop()` ends it
 * and waits for a collection under way.
 */
export function startStatusMetrics(options: StatusMetricsOptions): { stop(): Promise<void> } {
  const { client, meter } = options;
  const gauge = (key: keyof typeof GAUGES): MetricGauge => {
    const [valueType, unit, help]: readonly [NumericMetricValueType, string, string] = GAUGES[key];
    return meter.createGauge(METRIC_NAMES[key], valueType, unit, help);
  };
  const inStatus = gauge('ordersInStatus');
  const oldestWaiting = gauge('oldestWaitingSeconds');
  const lastSuccess = gauge('replayLastSuccess');
  const lastFailure = gauge('replayLastFailure');
  const scheduleActive = gauge('replayScheduleActive');

  const collectOnce = async (): Promise<void> => {
    for (const status of OPEN_STATUSES) {
      const { count } = await client.workflow.count(badgeOrdersQuery({ status, openOnly: true }));
      inStatus.set(count, { status });
    }
    const now = Date.now();
    for (const status of WAITING_STATUSES) {
      let oldest = now;
      let listed = 0;
      const query = badgeOrdersQuery({ status, openOnly: true });
      for await (const run of client.workflow.list({ query, pageSize: 1000 })) {
        oldest = Math.min(oldest, run.startTime.getTime());
        if (++listed >= MAX_WAITING_LISTED) break;
      }
      oldestWaiting.set((now - oldest) / 1000, { status });
    }
    const success = await lastReplayClose(client, `ExecutionStatus = 'Completed'`);
    if (success !== undefined) lastSuccess.set(success);
    const failure = await lastReplayClose(
      client,
      `ExecutionStatus = 'Failed' OR ExecutionStatus = 'TimedOut' OR ExecutionStatus = 'Terminated'`,
    );
    // 0 when none failed: "failed after the last success" needs no special case in the alert rule.
    lastFailure.set(failure ?? 0);
    try {
      const schedule = await client.schedule.getHandle(REPLAY_SCHEDULE_ID).describe();
      scheduleActive.set(schedule.state.paused ? 0 : 1);
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
      scheduleActive.set(0);
    }
  };

  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const collect = (): Promise<void> => {
    // One collection at a time: a slow visibility store must not pile up listings.
    running = running.then(() =>
      stopped
        ? undefined
        : collectOnce().catch((error: unknown) => {
            options.logger.warn(
              { err: error instanceof Error ? error.message : String(error) },
              'order status metrics not collected',
            );
          }),
    );
    return running;
  };
  const timer = setInterval(() => void collect(), options.intervalMs);
  timer.unref();
  void collect();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
