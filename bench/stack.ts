/**
 * The processes of a benchmark run, all on loopback: the sandbox platform in this process, a Temporal dev
 * server, the two workflow bundles (badgeOrder and the floor) built once, a documents root with generated
 * files, and worker processes. `teardown()` stops everything that was started, in reverse order.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { BadgeOrdersClient } from '../src/client/badge-orders-client';
import { createDataConverter } from '../src/codec/data-converter';
import { buildServiceBundle } from '../src/workflow-bundle';
import { generatePayloadKeyEntry, parsePayloadKeys } from '../src/codec/key-ring';
import { startDevServer, type DevServer } from '../tools/dev/dev-server';
import { DEMO_USER, startSandbox, type RunningSandbox } from '../src/sandbox';
import { startTsProcess, waitUntilPolling, type BenchProcess } from './processes';

/** Options of {@link startBenchStack}. */
export interface BenchStackOptions {
  /** Activities one worker runs at once (`WORKER_MAX_CONCURRENT_ACTIVITIES`). */
  readonly maxConcurrentActivities: number;
  /** Largest document the sandbox and the workers accept. */
  readonly maxDocumentBytes: number;
  /** Lifetime of the sandbox's tokens in seconds. */
  readonly tokenTtlSeconds: number;
  /** Worker log level (`LOG_LEVEL`). */
  readonly workerLogLevel: string;
  /** When set, workers write V8 CPU profiles there (`--cpu-prof`), named by pid. */
  readonly profileDir?: string;
  readonly log: (message: string) => void;
}

/** A set of worker processes polling one task queue. */
export interface WorkerSet {
  readonly taskQueue: string;
  readonly processes: readonly BenchProcess[];
  stop(): Promise<void>;
}

/** A running benchmark stack. */
export interface BenchStack {
  readonly sandbox: RunningSandbox;
  readonly server: DevServer;
  /** Client with the workers' data converter (payload encryption), for badge orders. */
  readonly client: Client;
  /** Client without a codec, for the floor. */
  readonly plainClient: Client;
  readonly orders: (taskQueue: string) => BadgeOrdersClient;
  readonly documentsRoot: string;
  readonly user: { readonly username: string; readonly password: string };
  /** Writes `count` files of `bytes` random bytes (`<prefix>-<n>.pdf`); returns their relative paths. */
  writeDocuments(prefix: string, count: number, bytes: number): string[];
  /** Creates a sparse file of `bytes` bytes (reads as zeros); returns its relative path. */
  writeSparseDocument(name: string, bytes: number): string;
  /** Starts `count` `src/worker.ts` processes on a new task queue and waits until they poll. */
  startBadgeWorkers(count: number): Promise<WorkerSet>;
  /** Starts `count` floor worker processes on a new task queue and waits until they poll. */
  startFloorWorkers(count: number): Promise<WorkerSet>;
  /** The workflow bundles as profiles name them (`file://` URL) with their code. */
  readonly bundles: readonly { readonly url: string; readonly code: string }[];
  teardown(): Promise<void>;
}

const silentBundlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
  log: () => undefined,
};

/** Starts the stack; always call `teardown()` (also on failure and on Ctrl-C). */
export async function startBenchStack(options: BenchStackOptions): Promise<BenchStack> {
  const cleanups: (() => Promise<void>)[] = [];
  const teardown = async (): Promise<void> => {
    while (cleanups.length > 0) {
      const cleanup = cleanups.pop();
      await cleanup?.().catch(() => undefined);
    }
  };
  try {
    const scratch = mkdtempSync(join(tmpdir(), 'badge-bench-'));
    cleanups.push(() => Promise.resolve(rmSync(scratch, { recursive: true, force: true })));
    const documentsRoot = join(scratch, 'documents');
    mkdirSync(documentsRoot);

    const sandbox = await startSandbox({
      port: 0,
      tokenTtlSeconds: options.tokenTtlSeconds,
      rules: { maxUploadBytes: options.maxDocumentBytes },
    });
    cleanups.push(() => sandbox.close());
    options.log(`sandbox at ${sandbox.baseUrl}`);

    options.log('starting the Temporal dev server and building the workflow bundles');
    const [server, badgeBundle, floorBundle] = await Promise.all([
      startDevServer({ log: options.log }),
      // Exactly the production bundle: workflows, metrics interceptors and the failure converter.
      buildServiceBundle(),
      bundleWorkflowCode({
        workflowsPath: require.resolve('./floor/workflows'),
        logger: silentBundlerLogger,
      }),
    ]);
    cleanups.push(() => server.stop());
    const badgeBundlePath = join(scratch, 'badge-bundle.js');
    const floorBundlePath = join(scratch, 'floor-bundle.js');
    writeFileSync(badgeBundlePath, badgeBundle.code);
    writeFileSync(floorBundlePath, floorBundle.code);

    const payloadKeysEntry = generatePayloadKeyEntry('bench');
    const connection = await Connection.connect({ address: server.address });
    cleanups.push(() => connection.close());
    const client = new Client({
      connection,
      namespace: server.namespace,
      dataConverter: createDataConverter(parsePayloadKeys(payloadKeysEntry)),
    });
    const plainClient = new Client({ connection, namespace: server.namespace });
    const user = { username: DEMO_USER.username, password: DEMO_USER.password };

    const startWorkers = async (
      kind: 'badge' | 'floor',
      count: number,
      env: Record<string, string>,
    ): Promise<WorkerSet> => {
      const taskQueue = `bench-${kind}-${randomUUID()}`;
      const script = kind === 'badge' ? 'src/main/worker.ts' : 'bench/floor/worker.ts';
      const processes: BenchProcess[] = [];
      const stop = async (): Promise<void> => {
        await Promise.all(processes.map((child) => child.stop()));
      };
      cleanups.push(stop);
      for (let index = 0; index < count; index++) {
        processes.push(
          startTsProcess({
            name: `${kind} worker ${index + 1}`,
            script,
            env: {
              ...env,
              TEMPORAL_ADDRESS: server.address,
              TEMPORAL_NAMESPACE: server.namespace,
              TEMPORAL_TASK_QUEUE: taskQueue,
              WORKER_MAX_CONCURRENT_ACTIVITIES: String(options.maxConcurrentActivities),
            },
            nodeFlags: options.profileDir
              ? ['--cpu-prof', `--cpu-prof-dir=${join(options.profileDir, kind)}`]
              : [],
          }),
        );
      }
      await waitUntilPolling(client, taskQueue, processes);
      return { taskQueue, processes, stop };
    };

    return {
      sandbox,
      server,
      client,
      plainClient,
      orders: (taskQueue) => new BadgeOrdersClient({ client, taskQueue }),
      documentsRoot,
      user,
      writeDocuments(prefix, count, bytes) {
        return Array.from({ length: count }, (_, index) => {
          const name = `${prefix}-${index + 1}.pdf`;
          writeFileSync(join(documentsRoot, name), randomBytes(bytes));
          return name;
        });
      },
      writeSparseDocument(name, bytes) {
        const fd = openSync(join(documentsRoot, name), 'w');
        try {
          ftruncateSync(fd, bytes);
        } finally {
          closeSync(fd);
        }
        return name;
      },
      startBadgeWorkers: (count) =>
        startWorkers('badge', count, {
          BADGE_BASE_URL: sandbox.baseUrl,
          BADGE_USERNAME: user.username,
          BADGE_PASSWORD: user.password,
          DOCUMENTS_ROOT: documentsRoot,
          MAX_DOCUMENT_BYTES: String(options.maxDocumentBytes),
          WORKFLOW_BUNDLE_PATH: badgeBundlePath,
          PAYLOAD_KEYS: payloadKeysEntry,
          ENSURE_SEARCH_ATTRIBUTES: 'false',
          LOG_LEVEL: options.workerLogLevel,
        }),
      bundles: [
        { url: pathToFileURL(badgeBundlePath).href, code: badgeBundle.code },
        { url: pathToFileURL(floorBundlePath).href, code: floorBundle.code },
      ],
      startFloorWorkers: (count) => startWorkers('floor', count, { WORKFLOW_BUNDLE_PATH: floorBundlePath }),
      teardown,
    };
  } catch (error) {
    await teardown();
    throw error;
  }
}
