/**
 * Counters of the worker process itself (platform calls, auth calls), recorded through the SDK runtime's
 * metric meter so they are exported wherever the SDK's metrics go (the Prometheus endpoint).
 */
import type { MetricMeter } from '@temporalio/common';
import type { PlatformRequestEvent } from '../platform/types';
import { METRIC_NAMES } from './names';

/**
 * The process-level metrics, on `meter` (`Runtime.instance().metricMeter` in the worker); build once per process.
 * `onPlatformRequest` is the platform client's `onRequest` hook: it counts every HTTP attempt and records its
 * duration, and counts token requests separately.
 */
export function createServiceMetrics(meter: MetricMeter) {
  const platformRequests = meter.createCounter(
    METRIC_NAMES.platformRequests,
    '1',
    'HTTP attempts to the Badge Ordering Platform by route, method and status',
  );
  const duration = meter.createHistogram(
    METRIC_NAMES.platformRequestDuration,
    'int',
    'ms',
    'Duration of HTTP attempts to the Badge Ordering Platform by route and method',
  );
  const authCalls = meter.createCounter(
    METRIC_NAMES.authCalls,
    '1',
    'Token requests to the Badge Ordering Platform by status',
  );
  return {
    onPlatformRequest: (event: PlatformRequestEvent): void => {
      const status = String(event.status);
      platformRequests.add(1, { route: event.route, method: event.method, status });
      // No status label: latency by route stays a handful of series per worker.
      duration.record(Math.max(0, Math.round(event.durationMs)), {
        route: event.route,
        method: event.method,
      });
      if (event.route === 'auth') authCalls.add(1, { status });
    },
  };
}
