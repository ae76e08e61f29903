/**
 * The whole service for a test file: a real Temporal dev server, the real sandbox over HTTP, a documents root
 * with files, and workers — in this process, or as real child processes that tests may SIGKILL.
 * Everything started here is stopped by `teardown()`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import pino from 'pino';
import { BadgeOrdersClient } from '../../src/client/badge-orders-client';
import { createDataConverter } from '../../src/codec/data-converter';
import { generatePayloadKeyEntry, parsePayloadKeys, type PayloadKeyRing } from '../../src/codec/key-ring';
import { workerConfigSchema, type WorkerConfig } from '../../src/config';
import { startTsProcess, workerProcessEnv, type ChildProcessHandle } from '../../tools/dev/child-process';
import type { DevServerOptions } from '../../tools/dev/dev-server';
import { DEMO_USER, startSandbox, type RunningSandbox, type StartSandboxOptions } from '../../src/sandbox';
import { createBadgeOrderWorker } from '../../src/worker/create-worker';
import { buildServiceBundle } from '../../src/workflow-bundle';
import { startTestTemporal, uniqueTaskQueue, type TestTemporal } from './temporal';

/** A worker running in this process. */
export interface InProcessWorker {
  stop(): Promise<void>;
}

/** A worker running as a child process (`src/main/worker.ts`, as `npm run worker` runs it). */
export type WorkerProcess = ChildProcessHandle;

export interface TestStackOptions {
  readonly sandbox?: StartSandboxOptions;
  readonly temporal?: DevServerOptions;
  /** Platform user the workers log in as. @default the sandbox's demo user */
  readonly user?: { readonly username: string; readonly password: string };
  /** The in-process workers' `maxDocumentBytes` (`MAX_DOCUMENT_BYTES`). @default the worker config's default */
  readonly maxDocumentBytes?: number;
}

/** A running stack; see the module comment. */
export interface TestStack {
  readonly temporal: TestTemporal;
  readonly sandbox: RunningSandbox;
  readonly documentsRoot: string;
  readonly taskQueue: string;
  readonly orders: BadgeOrdersClient;
  readonly workerConfig: WorkerConfig;
  /** The stack's random payload key (workers and `temporal.client` encrypt; `temporal.rawClient` does not). */
  readonly payloadKeys: PayloadKeyRing;
  /** Writes a file under the documents root and returns its relative path. */
  writeDocument(relativePath: string, content: string | Buffer): string;
  startWorker(): Promise<InProcessWorker>;
  /** `env` adds to or overrides the worker's environment (e.g. `METRICS_PORT`). */
  startWorkerProcess(env?: Readonly<Record<string, string>>): WorkerProcess;
  /** Restarts the Temporal dev server on the same port and db file (only with `temporal.dbFilename`). */
  restartTemporal(): Promise<void>;
  teardown(): Promise<void>;
}

let bundlePromise: Promise<WorkflowBundleWithSourceMap> | undefined;
/** The workflow bundle, built once per test file. */
function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundlePromise ??= buildServiceBundle();
  return bundlePromise;
}

const silentLogger = pino({ level: 'silent' });

/** Starts the stack; call `teardown()` in `afterAll`. */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const cleanups: (() => Promise<void>)[] = [];
  const teardown = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const scratch = mkdtempSync(join(tmpdir(), 'badge-stack-'));
    cleanups.push(() => Promise.resolve(rmSync(scratch, { recursive: true, force: true })));
    const documentsRoot = join(scratch, 'documents');
    mkdirSync(documentsRoot);

    const sandbox = await startSandbox({ port: 0, ...options.sandbox });
    cleanups.push(() => sandbox.close());
    // A random payload key per stack: every test runs with encryption, as production does.
    const payloadKeysEntry = generatePayloadKeyEntry('test-stack');
    const payloadKeys = parsePayloadKeys(payloadKeysEntry);
    const dataConverter = createDataConverter(payloadKeys);
    let temporal = await startTestTemporal(options.temporal, { dataConverter });
    cleanups.push(() => temporal.teardown());

    const taskQueue = uniqueTaskQueue('badge');
    const user = options.user ?? DEMO_USER;
    const workerConfig = workerConfigSchema.parse({
      temporal: {
        address: temporal.server.address,
        namespace: temporal.server.namespace,
        taskQueue,
        codec: { payloadKeys: payloadKeysEntry },
      },
      platform: { baseUrl: sandbox.baseUrl, username: user.username, password: user.password },
      documentsRoot,
      logLevel: 'silent',
      maxDocumentBytes: options.maxDocumentBytes,
    });
    const bundle = await workflowBundle();
    const bundlePath = join(scratch, 'workflow-bundle.js');
    writeFileSync(bundlePath, bundle.code);

    const workerStops = new Set<() => Promise<void>>();
    cleanups.push(async () => {
      for (const stop of workerStops) await stop();
    });

    const stack: TestStack = {
      get temporal() {
        return temporal;
      },
      sandbox,
      documentsRoot,
      taskQueue,
      get orders() {
        return new BadgeOrdersClient({ client: temporal.client, taskQueue });
      },
      workerConfig,
      payloadKeys,
      writeDocument(relativePath, content) {
        const path = join(documentsRoot, relativePath);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, content);
        return relativePath;
      },
      async startWorker() {
        const { worker, connection, client } = await createBadgeOrderWorker(workerConfig, silentLogger, {
          workflowBundle: bundle,
        });
        const running = worker.run();
        const stop = async (): Promise<void> => {
          workerStops.delete(stop);
          if (worker.getState() === 'RUNNING') worker.shutdown();
          await running;
          await client.connection.close();
          await connection.close();
        };
        workerStops.add(stop);
        return { stop };
      },
      startWorkerProcess(env = {}) {
        const worker = startTsProcess({
          name: 'worker',
          script: 'src/main/worker.ts',
          env: workerProcessEnv(
            {
              temporal: { address: temporal.server.address, namespace: temporal.server.namespace, taskQueue },
              platform: { baseUrl: sandbox.baseUrl, username: user.username, password: user.password },
              documentsRoot,
              workflowBundlePath: bundlePath,
              payloadKeys: payloadKeysEntry,
              logLevel: 'info',
            },
            env,
          ),
        });
        const stop = (): Promise<void> => worker.kill('SIGKILL');
        workerStops.add(stop);
        void worker.exited.then(() => workerStops.delete(stop));
        return worker;
      },
      async restartTemporal() {
        const dbFilename = options.temporal?.dbFilename;
        if (!dbFilename) throw new Error('restartTemporal needs temporal.dbFilename');
        const [, port] = temporal.server.address.split(':');
        await temporal.teardown();
        temporal = await startTestTemporal({ ...options.temporal, port: Number(port) }, { dataConverter });
      },
      teardown,
    };
    return stack;
  } catch (error) {
    await teardown();
    throw error;
  }
}
