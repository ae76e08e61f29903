/**
 * The one local stack of the dev tooling — tests, the chaos run, the benchmarks, the demo and the history export
 * all start the service through it: a scratch folder, a documents root, the sandbox platform in this process,
 * a Temporal dev server (restartable on the same port and database file), optionally a codec server and the
 * Web UI, the workflow bundle (built once per process) and workers, in this process or as child processes
 * (`src/main/worker.ts`, as `npm run worker` runs it). Everything started is registered in one
 * {@link CleanupList}: `stop()` stops it all, newest first, also after a part failed to start.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import pino, { type Logger } from 'pino';
import { BadgeOrdersClient } from '../../src/client/badge-orders-client';
import { startCodecServer, type RunningCodecServer } from '../../src/codec/codec-server';
import { createDataConverter } from '../../src/codec/data-converter';
import { generatePayloadKeyEntry, parsePayloadKeys, PayloadKeyRing } from '../../src/codec/key-ring';
import { loadPlatformConfig, workerConfigSchema, type WorkerConfig } from '../../src/config';
import { DEMO_USER, startSandbox, type RunningSandbox, type StartSandboxOptions } from '../../src/sandbox';
import { createBadgeOrderWorker } from '../../src/worker/create-worker';
import {
  startTsProcess,
  userCredentialsEnv,
  workerProcessEnv,
  type ChildProcessHandle,
} from '../dev/child-process';
import type { DevServerOptions } from '../dev/dev-server';
import { findFreePort } from '../dev/ports';
import { serviceBundleOnce } from './bundle';
import { CleanupList } from './cleanup';
import { waitUntilPolling } from './polling';
import {
  connectLocalTemporal,
  restartLocalTemporal,
  startLocalTemporal,
  type LocalTemporal,
} from './temporal';

export { CleanupError, CleanupList, type StopOnSignalsOptions } from './cleanup';
export { serviceBundleOnce } from './bundle';
export { waitUntilPolling } from './polling';
export {
  connectLocalTemporal,
  restartLocalTemporal,
  startLocalTemporal,
  type LocalTemporal,
  type LocalTemporalClientOptions,
} from './temporal';

/** A Temporal server the stack does not own: see {@link LocalStackOptions.temporalServer}. */
export interface ExternalTemporalServer {
  /** The frontend's gRPC address, `host:port`. */
  readonly address: string;
  readonly namespace: string;
  /** Its Web UI, if any. */
  readonly uiUrl?: string | null;
}

/** A platform user. */
export interface StackUser {
  readonly username: string;
  readonly password: string;
}

/** Settings of every worker of the stack, in this process or a child process. */
export interface StackWorkerSettings {
  /** `MAX_DOCUMENT_BYTES`. @default the worker config's default */
  readonly maxDocumentBytes?: number;
  /** `WORKER_MAX_CONCURRENT_ACTIVITIES`. @default the worker config's default */
  readonly maxConcurrentActivities?: number;
  /** `ENSURE_SEARCH_ATTRIBUTES` (the dev server already has them). @default the worker config's default */
  readonly ensureSearchAttributes?: boolean;
  /** `LOG_LEVEL` of worker processes. @default warn */
  readonly logLevel?: string;
}

/** Options of {@link startLocalStack}; everything is optional. */
export interface LocalStackOptions {
  /** The sandbox's options (profile, faults, rules, seed, users, …). @default port 0, defaults otherwise */
  readonly sandbox?: StartSandboxOptions;
  /**
   * The dev server's options. `persistent` keeps its data in a database file in the scratch folder, which
   * {@link LocalStack.restartTemporal} needs (as does an explicit `dbFilename`). `uiPort` and
   * `uiCodecEndpoint` are set by `webUi` and `codecServer`.
   */
  readonly temporal?: DevServerOptions & { readonly persistent?: boolean };
  /**
   * A Temporal server already running (a cluster, tools/cluster): the stack connects to it instead of starting
   * a dev server, and neither stops nor restarts it. `temporal` and `webUi` then do not apply to the server;
   * `webUi.port` still tells the codec server which browser origin to allow.
   */
  readonly temporalServer?: ExternalTemporalServer;
  /** Run the dev server's Web UI (`port` 0 or absent: a free one). @default false (headless) */
  readonly webUi?: boolean | { readonly port?: number };
  /**
   * Run a codec server with the stack's payload keys, the Web UI's codec endpoint when there is a Web UI. It
   * serves callers without credentials on loopback, as the dev server's UI sends none. @default false
   */
  readonly codecServer?: boolean | { readonly port?: number };
  /**
   * `PAYLOAD_KEYS` text of the workers and `temporal.client`; `null` for no encryption.
   * @default a random key per stack, so everything runs encrypted as in production
   */
  readonly payloadKeys?: string | null;
  /** The workers' task queue. @default a unique one */
  readonly taskQueue?: string;
  /** The platform user the workers log in as. @default the sandbox's demo user */
  readonly user?: StackUser;
  /**
   * More platform settings of the workers, as the documented variables (`BADGE_REQUEST_PROFILE`, …): in-process
   * workers read them as a worker process does, worker processes get them in their environment. With
   * `BADGE_CLIENT_ID` (client credentials) the workers get no user credentials.
   */
  readonly platformEnv?: Readonly<Record<string, string>>;
  readonly worker?: StackWorkerSettings;
  /** Build the workflow bundle at start, for workers (built once per process). @default true */
  readonly workflowBundle?: boolean;
  /** Folder that document paths are relative to. @default `documents` in the scratch folder */
  readonly documentsRoot?: string;
  /** Logger of in-process workers. @default silent */
  readonly logger?: Logger;
  /** How stop() ends worker processes: SIGKILL, or SIGTERM with a grace period (CPU profiles). @default kill */
  readonly workerProcessStop?: 'kill' | 'graceful';
  /** For command-line tools: stop everything and exit on SIGINT / SIGTERM. @default false */
  readonly stopOnSignals?: boolean;
  /** Progress lines. */
  readonly log?: (message: string) => void;
}

/** Options of {@link LocalStack.startWorker}. */
interface InProcessWorkerOptions {
  /** @default the stack's task queue */
  readonly taskQueue?: string;
  /**
   * Bundle the workflows at start, as a worker without `WORKFLOW_BUNDLE_PATH` does, instead of taking the stack's
   * prebuilt bundle. @default false
   */
  readonly bundleAtStart?: boolean;
  /** Settings other than the stack's worker configuration (`webhooks`, `documentStore`, `versioning`…). */
  readonly config?: Readonly<Partial<Omit<WorkerConfig, 'temporal'>>>;
}

/** A worker running in this process. */
export interface InProcessWorker {
  /** Shuts the worker down and closes its connections. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@link LocalStack.startWorkerProcess}. */
export interface WorkerProcessOptions {
  /** @default the stack's task queue */
  readonly taskQueue?: string;
  /** Adds to or overrides the worker environment (e.g. `METRICS_PORT`, another `WORKFLOW_BUNDLE_PATH`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Entry file relative to the project root. @default src/main/worker.ts */
  readonly script?: string;
  /** For messages. @default worker */
  readonly name?: string;
  /** Flags for node itself, e.g. `--cpu-prof`. */
  readonly nodeFlags?: readonly string[];
  /** A command that runs node (see `StartTsProcessOptions.wrapper`), e.g. to run it in a network namespace. */
  readonly wrapper?: readonly string[];
}

/** The service's workflow bundle as the stack's workers load it. */
export interface StackWorkflowBundle {
  readonly bundle: WorkflowBundleWithSourceMap;
  /** The bundle's file in the scratch folder (`WORKFLOW_BUNDLE_PATH` of worker processes). */
  readonly path: string;
}

/** A running stack; see the module comment. */
export interface LocalStack {
  /** A folder of this stack's own, removed by stop(). */
  readonly scratchDir: string;
  readonly documentsRoot: string;
  readonly sandbox: RunningSandbox;
  /** The Temporal server now running and its clients (new ones after {@link restartTemporal}). */
  readonly temporal: LocalTemporal;
  /** The codec server, when asked for. */
  readonly codecServer: RunningCodecServer | null;
  /** The Web UI's base URL, when asked for. */
  readonly webUiUrl: string | null;
  readonly taskQueue: string;
  readonly user: StackUser;
  /** The stack's payload keys (empty when `payloadKeys: null`). */
  readonly payloadKeys: PayloadKeyRing;
  /** The same keys as `PAYLOAD_KEYS` text, for processes configured from the environment; null for none. */
  readonly payloadKeysEntry: string | null;
  /** The configuration of in-process workers (worker processes get the same as environment). */
  readonly workerConfig: WorkerConfig;
  /** The workflow bundle (throws when the stack was started with `workflowBundle: false`). */
  readonly workflowBundle: StackWorkflowBundle;
  /** A client for badge orders on `taskQueue` (the stack's by default), over the current connection. */
  orders(taskQueue?: string): BadgeOrdersClient;
  /** Writes a file under the documents root and returns its relative path. */
  writeDocument(relativePath: string, content: string | Buffer): string;
  /** Starts a worker in this process; it is stopped by stop(). */
  startWorker(options?: InProcessWorkerOptions): Promise<InProcessWorker>;
  /** Starts a worker child process; it is stopped by stop() unless it has exited before. */
  startWorkerProcess(options?: WorkerProcessOptions): ChildProcessHandle;
  /** Resolves once all `processes` poll `taskQueue` (the stack's by default). */
  waitUntilPolling(processes: readonly ChildProcessHandle[], taskQueue?: string): Promise<void>;
  /** Stops the dev server and starts it again on the same port and database file. */
  restartTemporal(): Promise<void>;
  /** Registers another stop with the stack's cleanup list (runs before everything started earlier). */
  onStop(name: string, stop: () => Promise<void> | void): void;
  /** Stops everything that was started, newest first; safe to call twice. */
  stop(): Promise<void>;
}

const silentLogger = pino({ level: 'silent' });

/** Web UI and codec server addresses: the UI needs the codec URL at start, the codec server the UI's origin. */
async function startCodecPart(
  options: LocalStackOptions,
  payloadKeys: PayloadKeyRing,
  cleanups: CleanupList,
): Promise<{ readonly uiPort: number | null; readonly codec: RunningCodecServer | null }> {
  const ui = options.webUi === true ? {} : options.webUi || null;
  const uiPort = ui === null ? null : ui.port || (await findFreePort());
  const codecOptions = options.codecServer === true ? {} : options.codecServer || null;
  if (codecOptions === null) return { uiPort, codec: null };
  const codec = await startCodecServer({
    keys: payloadKeys,
    // Without a Web UI of ours, the one allowed browser origin is where a UI would usually be.
    corsOrigin: `http://127.0.0.1:${uiPort ?? 8233}`,
    port: codecOptions.port ?? 0,
    allowUnauthenticatedOnLoopback: true,
  });
  cleanups.add('the codec server', () => codec.close());
  options.log?.(`codec server at ${codec.url}`);
  return { uiPort, codec };
}

/** Starts what `options` ask for; on any failure stops what was started and throws. Call `stop()` at the end. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const cleanups = new CleanupList();
  if (options.stopOnSignals) cleanups.stopOnSignals({ log: options.log });
  try {
    const scratchDir = mkdtempSync(join(tmpdir(), 'badge-stack-'));
    cleanups.add('the scratch folder', () => rmSync(scratchDir, { recursive: true, force: true }));
    options.log?.(`scratch folder ${scratchDir}`);
    const documentsRoot = options.documentsRoot ?? join(scratchDir, 'documents');
    mkdirSync(documentsRoot, { recursive: true });

    const sandbox = await startSandbox({ port: 0, ...options.sandbox });
    cleanups.add('the sandbox', () => sandbox.close());
    options.log?.(`sandbox at ${sandbox.baseUrl}`);

    const payloadKeysEntry =
      options.payloadKeys === undefined ? generatePayloadKeyEntry('local-stack') : options.payloadKeys;
    const payloadKeys = payloadKeysEntry ? parsePayloadKeys(payloadKeysEntry) : PayloadKeyRing.empty();
    const clientOptions = { dataConverter: createDataConverter(payloadKeys) };
    const { uiPort, codec } = await startCodecPart(options, payloadKeys, cleanups);

    const { persistent, ...devServer } = options.temporal ?? {};
    const temporalOptions: DevServerOptions = {
      log: options.log,
      ...devServer,
      ...(persistent && !devServer.dbFilename ? { dbFilename: join(scratchDir, 'temporal.db') } : {}),
      ...(uiPort === null ? {} : { uiPort }),
      ...(codec ? { uiCodecEndpoint: codec.url } : {}),
    };
    // The dev server and the bundle take the longest: side by side, each registered for cleanup once there.
    const [temporalStart, bundleBuild] = await Promise.allSettled([
      options.temporalServer
        ? connectLocalTemporal(options.temporalServer, clientOptions)
        : startLocalTemporal(temporalOptions, clientOptions),
      options.workflowBundle === false ? Promise.resolve(null) : serviceBundleOnce(),
    ]);
    if (temporalStart.status === 'rejected') throw temporalStart.reason;
    let temporal = temporalStart.value;
    // The server now running: a restart replaces it.
    cleanups.add('Temporal', () => temporal.stop());
    if (bundleBuild.status === 'rejected') throw bundleBuild.reason;
    let workflowBundle: StackWorkflowBundle | null = null;
    if (bundleBuild.value) {
      const path = join(scratchDir, 'workflow-bundle.js');
      writeFileSync(path, bundleBuild.value.code);
      workflowBundle = { bundle: bundleBuild.value, path };
    }
    const requireBundle = (): StackWorkflowBundle => {
      if (!workflowBundle) throw new Error('this stack was started with workflowBundle: false');
      return workflowBundle;
    };

    const taskQueue = options.taskQueue ?? `badge-${randomUUID()}`;
    const user = options.user ?? { username: DEMO_USER.username, password: DEMO_USER.password };
    const settings = options.worker ?? {};
    const workerConfig = workerConfigSchema.parse({
      temporal: {
        address: temporal.server.address,
        namespace: temporal.server.namespace,
        taskQueue,
        ...(temporal.server.uiUrl ? { webUiUrl: temporal.server.uiUrl } : {}),
        // `payloadKeys: null` asks for no encryption, which the worker must be told explicitly.
        codec: payloadKeysEntry ? { payloadKeys: payloadKeysEntry } : { encryption: 'off' },
      },
      platform: { baseUrl: sandbox.baseUrl, username: user.username, password: user.password },
      documentsRoot,
      logLevel: 'silent',
      maxDocumentBytes: settings.maxDocumentBytes,
      maxConcurrentActivities: settings.maxConcurrentActivities,
      ensureSearchAttributes:
        settings.ensureSearchAttributes === undefined ? undefined : String(settings.ensureSearchAttributes),
    });
    if (options.platformEnv !== undefined) {
      workerConfig.platform = loadPlatformConfig({
        BADGE_BASE_URL: sandbox.baseUrl,
        ...userCredentialsEnv(user, options.platformEnv),
        ...options.platformEnv,
      });
    }

    const stack: LocalStack = {
      scratchDir,
      documentsRoot,
      sandbox,
      get temporal() {
        return temporal;
      },
      codecServer: codec,
      get webUiUrl() {
        return temporal.server.uiUrl;
      },
      taskQueue,
      user,
      payloadKeys,
      payloadKeysEntry: payloadKeysEntry || null,
      workerConfig,
      get workflowBundle() {
        return requireBundle();
      },
      orders: (queue = taskQueue) => new BadgeOrdersClient({ client: temporal.client, taskQueue: queue }),
      writeDocument(relativePath, content) {
        const path = join(documentsRoot, relativePath);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, content);
        return relativePath;
      },
      async startWorker(workerOptions = {}) {
        const config = {
          ...workerConfig,
          ...workerOptions.config,
          temporal: {
            ...workerConfig.temporal,
            address: temporal.server.address,
            taskQueue: workerOptions.taskQueue ?? taskQueue,
          },
        };
        const { worker, connection, client } = await createBadgeOrderWorker(
          config,
          options.logger ?? silentLogger,
          workerOptions.bundleAtStart ? {} : { workflowBundle: requireBundle().bundle },
        );
        const running = worker.run();
        // A worker that fails on its own rejects `running`; stop() reports it, nothing else must crash on it.
        running.catch(() => undefined);
        let stopping: Promise<void> | undefined;
        let remove = (): void => undefined;
        const stop = (): Promise<void> => {
          stopping ??= (async () => {
            remove();
            if (worker.getState() === 'RUNNING') worker.shutdown();
            try {
              await running;
            } finally {
              await client.connection.close();
              await connection.close();
            }
          })();
          return stopping;
        };
        remove = cleanups.add('an in-process worker', stop);
        return { stop };
      },
      startWorkerProcess(processOptions = {}) {
        const child = startTsProcess({
          name: processOptions.name ?? 'worker',
          script: processOptions.script ?? 'src/main/worker.ts',
          nodeFlags: processOptions.nodeFlags,
          wrapper: processOptions.wrapper,
          env: workerProcessEnv(
            {
              temporal: {
                address: temporal.server.address,
                namespace: temporal.server.namespace,
                taskQueue: processOptions.taskQueue ?? taskQueue,
              },
              platform: { baseUrl: sandbox.baseUrl, ...user },
              documentsRoot,
              workflowBundlePath: requireBundle().path,
              payloadKeys: payloadKeysEntry || null,
              ...settings,
            },
            { ...options.platformEnv, ...processOptions.env },
          ),
        });
        const remove = cleanups.add(`${child.name} ${child.pid}`, () =>
          options.workerProcessStop === 'graceful' ? child.stop() : child.kill('SIGKILL'),
        );
        void child.exited.then(remove);
        return child;
      },
      waitUntilPolling: (processes, queue = taskQueue) => waitUntilPolling(temporal.client, queue, processes),
      async restartTemporal() {
        if (options.temporalServer) throw new Error('this stack does not own its Temporal server');
        temporal = await restartLocalTemporal(temporal, temporalOptions, clientOptions);
      },
      onStop(name, stop) {
        cleanups.add(name, stop);
      },
      stop: () => cleanups.run(),
    };
    return stack;
  } catch (error) {
    // The start's error is the one to report; the cleanup's own failures would only hide it.
    await cleanups.run().catch(() => undefined);
    throw error;
  }
}
