/**
 * The worker process (`npm run worker`): runs badge order workflows and their activities. Configuration comes
 * from the environment (see `src/config.ts`); SIGINT/SIGTERM shut it down gracefully.
 */
import { Runtime, Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities } from './activities';
import { createDocumentsRoot } from './activities/documents-root';
import { ConfigError, loadWorkerConfig, type WorkerConfig } from './config';
import { createLogger, sdkLoggerFor } from './logging';
import { createPlatformClient } from './platform';
import { connectWorker } from './temporal/connection';
import { ensureSearchAttributes } from './temporal/search-attributes';

/** A worker ready to run, with the connection it owns. */
export interface BadgeOrderWorker {
  readonly worker: Worker;
  readonly connection: NativeConnection;
}

/** A prebuilt bundle (from tests or the container image) when there is one; else bundle the sources now. */
function workflowSource(config: WorkerConfig, overrides: Partial<WorkerOptions>): Partial<WorkerOptions> {
  if (overrides.workflowBundle) return {};
  if (config.workflowBundlePath) return { workflowBundle: { codePath: config.workflowBundlePath } };
  return { workflowsPath: require.resolve('./workflows') };
}

/** Builds the worker from configuration; `overrides` lets tests pass a prebuilt workflow bundle. */
export async function createBadgeOrderWorker(
  config: WorkerConfig,
  logger: Logger,
  overrides: Partial<WorkerOptions> = {},
): Promise<BadgeOrderWorker> {
  const connection = await connectWorker(config.temporal);
  try {
    if (config.ensureSearchAttributes) {
      const result = await ensureSearchAttributes(connection, config.temporal.namespace);
      logger.info(result, 'search attributes checked');
    }
    const platform = createPlatformClient({
      baseUrl: config.platform.baseUrl,
      credentials: { username: config.platform.username, password: config.platform.password },
      timeouts: { requestMs: config.platform.requestTimeoutMs, uploadMs: config.platform.uploadTimeoutMs },
      logger: logger.child({ component: 'platform' }),
    });
    const documentsRoot = createDocumentsRoot({
      root: config.documentsRoot,
      maxBytes: config.maxDocumentBytes,
    });
    const worker = await Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      activities: createActivities({ platform, documentsRoot }),
      ...workflowSource(config, overrides),
      maxConcurrentActivityTaskExecutions: config.maxConcurrentActivities,
      ...overrides,
    });
    return { worker, connection };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger({ level: config.logLevel, name: 'badge-orders-worker' });
  Runtime.install({ logger: sdkLoggerFor(logger, 'INFO') });
  const { worker, connection } = await createBadgeOrderWorker(config, logger);
  logger.info(
    {
      temporal: config.temporal.address,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      platform: config.platform.baseUrl,
      documentsRoot: config.documentsRoot,
    },
    'worker started',
  );
  try {
    // The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown that resolves run().
    await worker.run();
  } finally {
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
