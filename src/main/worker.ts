/**
 * The worker process (`npm run worker`): runs badge order workflows and their activities. Configuration comes
 * from the environment (see `src/config.ts`); SIGINT/SIGTERM shut it down gracefully.
 */
import { Runtime } from '@temporalio/worker';
import { ConfigError, loadWorkerConfig } from '../config';
import { createLogger, sdkLoggerFor } from '../logging';
import { metricsTelemetryOptions } from '../metrics';
import { createBadgeOrderWorker } from '../worker/create-worker';

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger({ level: config.logLevel, name: 'badge-orders-worker' });
  Runtime.install({
    logger: sdkLoggerFor(logger, 'INFO'),
    telemetryOptions: metricsTelemetryOptions(config),
  });
  const { worker, connection, client } = await createBadgeOrderWorker(config, logger);
  logger.info(
    {
      temporal: config.temporal.address,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      platform: config.platform.baseUrl,
      documentsRoot: config.documentsRoot,
      metrics: config.metricsPort === undefined ? null : `${config.metricsHost}:${config.metricsPort}`,
    },
    'worker started',
  );
  try {
    // The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown that resolves run().
    await worker.run();
  } finally {
    await client.connection.close();
    await connection.close();
    logger.info('worker stopped');
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    const message =
      error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : String(error);
    console.error(message);
    process.exit(1);
  });
}
