/**
 * The worker process (`npm run worker`): runs badge order workflows and their activities. Configuration comes
 * from the environment (see `src/config.ts`); SIGINT/SIGTERM shut it down gracefully.
 */
import { Runtime } from '@temporalio/worker';
import { ConfigError, loadWorkerConfig, type WorkerConfig } from '../config';
import { urlOrigin } from '../url-policy';
import { createLogger, sdkLoggerFor } from '../logging';
import { metricsTelemetryOptions, startStatusMetrics } from '../metrics';
import { startTracing } from '../tracing';
import { createBadgeOrderWorker } from '../worker/create-worker';
import { runMain } from './run-main';

/**
 * What the worker logs at start: where it connects, never a secret. The platform appears as its origin only,
 * as `BADGE_BASE_URL` may carry user info, a path or a query.
 */
export function workerStartedFields(config: WorkerConfig): Readonly<Record<string, unknown>> {
  return {
    temporal: config.temporal.address,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    platform: urlOrigin(config.platform.baseUrl),
    documentsRoot: config.documentsRoot,
    metrics: config.metricsPort === undefined ? null : `${config.metricsHost}:${config.metricsPort}`,
    tracing: config.tracing.endpoint === undefined ? null : urlOrigin(config.tracing.endpoint),
  };
}

async function main(): Promise<void> {
  const config = loadWorkerConfig(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'badge-orders-worker' });
  Runtime.install({
    logger: sdkLoggerFor(logger, 'INFO'),
    telemetryOptions: metricsTelemetryOptions(config),
  });
  const tracing = await startTracing(config.tracing, { serviceName: 'badge-orders-worker' });
  const { worker, connection, client } = await createBadgeOrderWorker(config, logger, {}, tracing);
  logger.info(workerStartedFields(config), 'worker started');
  // Gauges from visibility (orders waiting, the nightly replay) go where the other metrics go: none without.
  const statusMetrics =
    config.metricsPort === undefined
      ? undefined
      : startStatusMetrics({
          client,
          meter: Runtime.instance().metricMeter,
          intervalMs: config.statusMetricsIntervalMs,
          logger: logger.child({ component: 'status-metrics' }),
        });
  try {
    // The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown that resolves run().
    await worker.run();
  } finally {
    await statusMetrics?.stop();
    await client.connection.close();
    await connection.close();
    // Spans still in the batch leave now; a SIGKILLed worker loses them (docs/observability.md).
    await tracing?.shutdown();
    logger.info('worker stopped');
  }
}

if (require.main === module) {
  runMain(main, { messageOnly: [ConfigError] });
}
