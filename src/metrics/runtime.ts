/** The SDK runtime's telemetry: where the Prometheus endpoint listens, when one is configured. */
import type { TelemetryOptions } from '@temporalio/worker';

/**
 * Telemetry options for `Runtime.install`: a Prometheus endpoint at `http://<host>:<port>/metrics` serving the
 * SDK's metrics and ours, or none when no port is configured.
 */
export function metricsTelemetryOptions(config: {
  readonly metricsPort?: number;
  readonly metricsHost: string;
}): TelemetryOptions | undefined {
  if (config.metricsPort === undefined) return undefined;
  return { metrics: { prometheus: { bindAddress: `${config.metricsHost}:${config.metricsPort}` } } };
}
