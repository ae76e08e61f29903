/**
 * Builds a badge order worker from configuration: connections, platform client, document access, activities,
 * the workflow bundle and the payload codec. The process entry point is `src/main/worker.ts`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  NativeConnection,
  Runtime,
  Worker,
  type NativeConnectionOptions,
  type WorkerOptions,
} from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { createActivities } from '../activities';
import { assertDocumentsRootReadable, createDocumentsRoot, documentStoreFromConfig } from '../documents';
import { createReplayActivities } from '../activities/replay';
import { createDataConverter } from '../codec/data-converter';
import { ConfigError, type WorkerConfig } from '../config';
import { createServiceMetrics } from '../metrics';
import { connectClient, connectionOptions } from '../temporal/connection';
import { tracingWorkerOptions, withPlatformSpans, type Tracing } from '../tracing';
import { ensureSearchAttributes } from '../temporal/search-attributes';
import { buildServiceBundle } from '../workflow-bundle';
import { packageVersion } from '../version';
import { documentOwnerWarning, platformClientFromConfig } from './platform-client';

/**
 * A prebuilt bundle (from tests or the container image) when there is one; else the service's bundle, built now.
 * `readCode` gives the bundle's code for a build id; it is read only when a versioned worker needs one.
 */
async function workflowSource(
  config: WorkerConfig,
  overrides: Partial<WorkerOptions>,
): Promise<{ options: Partial<WorkerOptions>; readCode: () => string }> {
  const prebuilt =
    overrides.workflowBundle ??
    (config.workflowBundlePath ? { codePath: config.workflowBundlePath } : undefined);
  if (prebuilt) {
    return {
      options: overrides.workflowBundle ? {} : { workflowBundle: prebuilt },
      readCode: () => ('code' in prebuilt ? prebuilt.code : readFileSync(prebuilt.codePath, 'utf8')),
    };
  }
  // Every bundle of the service comes from its bundler options; a versioned worker also names its build by the
  // bundle's content.
  const bundle = await buildServiceBundle();
  return { options: { workflowBundle: bundle }, readCode: () => bundle.code };
}

/**
 * The worker's deployment version: the configured build id, or the package version plus the workflow
 * bundle's content hash (the same code gets the same id on every worker).
 */
export function deploymentVersion(config: WorkerConfig, readCode: () => string) {
  const buildId =
    config.versioning.buildId ??
    `${packageVersion()}-${createHash('sha256').update(readCode()).digest('hex').slice(0, 12)}`;
  return { deploymentName: config.versioning.deploymentName, buildId };
}

/**
 * Builds the worker from configuration; `overrides` lets tests pass a prebuilt workflow bundle; `tracing` (from
 * `startTracing`, once per process) exports the worker's spans. Returns the worker ready to run with the
 * connections it owns (close both after `run()`); `client` is the one the nightly replay's activities use.
 */
export async function createBadgeOrderWorker(
  config: WorkerConfig,
  logger: Logger,
  overrides: Partial<WorkerOptions> = {},
  tracing?: Tracing,
) {
  const { payloadKeys, encryption } = config.temporal.codec;
  if (!payloadKeys.encrypts && encryption !== 'off') {
    // The config parser refuses this already; a configuration built in code must not slip past it.
    throw new ConfigError(
      'Invalid configuration: PAYLOAD_KEYS: is required: set PAYLOAD_KEYS or PAYLOAD_KEYS_FILE, or PAYLOAD_ENCRYPTION=off',
    );
  }
  const options = connectionOptions(config.temporal) as NativeConnectionOptions;
  const connection = await NativeConnection.connect(options);
  let client: Client | undefined;
  try {
    client = await connectClient(config.temporal);
    if (payloadKeys.encrypts) {
      logger.info(
        { encryptKeyId: payloadKeys.encryptKeyId, keyIds: payloadKeys.ids },
        'payload encryption on',
      );
    } else {
      logger.warn(
        'PAYLOAD_ENCRYPTION=off: workflow payloads (vehicle and badge data) are stored unencrypted in Temporal',
      );
    }
    if (config.ensureSearchAttributes) {
      const result = await ensureSearchAttributes(connection, config.temporal.namespace);
      logger.info(result, 'search attributes checked');
    }
    const platform = platformClientFromConfig(config.platform, {
      logger: logger.child({ component: 'platform' }),
      onRequest: withPlatformSpans(
        tracing,
        createServiceMetrics(Runtime.instance().metricMeter).onPlatformRequest,
      ),
    });
    const ownerWarning = documentOwnerWarning(config.platform);
    if (ownerWarning !== undefined) logger.warn(ownerWarning);
    // A missing or unreadable DOCUMENTS_ROOT stops the worker here, rather than failing every document.
    await assertDocumentsRootReadable(config.documentsRoot);
    const documentsRoot = createDocumentsRoot({
      root: config.documentsRoot,
      maxBytes: config.maxDocumentBytes,
    });
    const documentStore = documentStoreFromConfig(config.documentStore, {
      documentsRoot: config.documentsRoot,
      maxBytes: config.maxDocumentBytes,
    });
    try {
      // A store that cannot be used (a missing bucket, wrong credentials) stops the worker here too.
      await documentStore.check();
      logger.info({ documentStore: documentStore.kind }, 'document store checked');
    } catch (error) {
      // The default local store under a read-only DOCUMENTS_ROOT: orders naming paths must keep working.
      if (config.documentStore.kind !== 'local' || config.documentStore.root !== undefined) throw error;
      logger.warn(
        { err: error },
        'the default document store cannot be prepared; documents named by reference will be retried',
      );
    }
    const source = await workflowSource(config, overrides);
    const traced = tracingWorkerOptions(tracing);
    const worker = await Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      activities: {
        ...createActivities({
          platform,
          documentsRoot,
          documentStore,
          behaviour: {
            idempotencyKeys: config.platform.idempotencyKeys,
            uploadUnknownOutcome: config.platform.uploadUnknownOutcome,
          },
          webhooks: config.webhooks,
        }),
        ...createReplayActivities({ client }),
      },
      ...source.options,
      ...traced,
      ...(config.versioning.enabled && {
        workerDeploymentOptions: {
          version: deploymentVersion(config, source.readCode),
          useWorkerVersioning: true,
          // badgeOrder and the nightly replay each declare their own behaviour; this covers any other.
          defaultVersioningBehavior: 'PINNED',
        },
      }),
      maxConcurrentActivityTaskExecutions: config.maxConcurrentActivities,
      // Workflow task pollers follow the server's hints (Temporal's recommended setting, Server 1.28 and later):
      // the SDK's fixed split (2 polls on the normal queue, 8 on the sticky one) left new orders' first tasks in
      // the server's backlog under load. At least 5 polls stay open on each, or moderate load finds none open
      // (docs/benchmarks.md).
      workflowTaskPollerBehavior: { type: 'autoscaling', minimum: 5 },
      // A stopping worker lets its activities finish: an order creation cut off would wait for a person, its
      // outcome unknown. The SDK's default, 0, cancels them at once.
      shutdownGraceTime: config.shutdownGraceMs,
      // A prebuilt bundle must come from buildServiceBundle() (same failure converter and interceptors).
      dataConverter: createDataConverter(payloadKeys),
      ...overrides,
    });
    return { worker, connection, client };
  } catch (error) {
    await client?.connection.close();
    await connection.close();
    throw error;
  }
}
