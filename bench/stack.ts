/**
 * The processes of a benchmark run, on the local stack (tools/stack): the sandbox platform in this process, a
 * Temporal dev server, the service's workflow bundle, the floor's and the peer's, built once, a documents root with
 * generated files, and worker processes. `teardown()` (also run on Ctrl-C) stops everything, newest first.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, ftruncateSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@temporalio/client';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { BadgeOrdersClient } from '../src/client/badge-orders-client';
import type { RunningSandbox } from '../src/sandbox';
import { bundleWorkflows } from '../src/workflow-bundle';
import type { ChildProcessHandle } from '../tools/dev/child-process';
import type { DevServer } from '../tools/dev/dev-server';
import { startLocalStack, type LocalStack, type LocalStackOptions, type StackUser } from '../tools/stack';
import { prepareBaseline, type Baseline } from './baseline';

/** A child process started by the bench. */
export type BenchProcess = ChildProcessHandle;

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
  /** Payload encryption of the badge workers and client; off only to measure what it costs. @default true */
  readonly encryption?: boolean;
  /** When set, workers write V8 CPU profiles there (`--cpu-prof`), named by pid. */
  readonly profileDir?: string;
  /** Git refs whose workers and workflow bundles run as baselines (see bench/baseline.ts). */
  readonly baselineRefs?: readonly string[];
  readonly log: (message: string) => void;
}

/** A set of worker processes polling one task queue. */
export interface WorkerSet {
  readonly taskQueue: string;
  /** The baseline these workers run, for a baseline's set. */
  readonly baseline?: Baseline;
  readonly processes: readonly BenchProcess[];
  stop(): Promise<void>;
}

/** A running benchmark stack. */
export interface BenchStack {
  readonly sandbox: RunningSandbox;
  readonly server: DevServer;
  /** Client with the workers' data converter (payload encryption), for badge orders. */
  readonly client: Client;
  /** Client without a codec, for the floors and the peer. */
  readonly plainClient: Client;
  readonly orders: (taskQueue: string) => BadgeOrdersClient;
  readonly documentsRoot: string;
  readonly user: StackUser;
  /** Writes `count` files of `bytes` random bytes (`<prefix>-<n>.pdf`); returns their relative paths. */
  writeDocuments(prefix: string, count: number, bytes: number): string[];
  /** Creates a sparse file of `bytes` bytes (reads as zeros); returns its relative path. */
  writeSparseDocument(name: string, bytes: number): string;
  /** Starts `count` `src/main/worker.ts` processes on a new task queue and waits until they poll. */
  startBadgeWorkers(count: number): Promise<WorkerSet>;
  /**
   * Starts `count` floor worker processes on a new task queue and waits until they poll; `encrypted` gives them
   * the badge workers' payload encryption (the featured floor).
   */
  startFloorWorkers(count: number, options?: { readonly encrypted?: boolean }): Promise<WorkerSet>;
  /** Starts `count` peer worker processes (bench/peer/worker.ts) on a new task queue and waits until they poll. */
  startPeerWorkers(count: number): Promise<WorkerSet>;
  /** The baselines, one per ref of `baselineRefs`. */
  readonly baselines: readonly Baseline[];
  /** Starts `count` worker processes of `baseline` on a new task queue. */
  startBaselineWorkers(baseline: Baseline, count: number): Promise<WorkerSet>;
  /** The workflow bundles as profiles name them (`file://` URL) with their code. */
  readonly bundles: readonly { readonly url: string; readonly code: string }[];
  teardown(): Promise<void>;
}

/** The local-stack options of a bench run: the same for the dev server and the cluster (bench/cluster.ts). */
export function benchLocalStackOptions(options: BenchStackOptions) {
  return {
    sandbox: {
      tokenTtlSeconds: options.tokenTtlSeconds,
      rules: { maxUploadBytes: options.maxDocumentBytes },
    },
    worker: {
      maxDocumentBytes: options.maxDocumentBytes,
      maxConcurrentActivities: options.maxConcurrentActivities,
      // The dev server and the cluster's namespace set-up have them already; checking costs every worker start
      // a round trip.
      ensureSearchAttributes: false,
      logLevel: options.workerLogLevel,
    },
    // The dev server reads search attribute definitions from its database at every command, history and record
    // that carries search attributes, so that ones created while it runs apply at once; a production server
    // caches them (this is the server's default). The bench registers its attributes at start and measures what
    // a deployed server does.
    temporal: { dynamicConfig: { 'system.forceSearchAttributesCacheRefreshOnRead': false } },
    ...(options.encryption === false && { payloadKeys: null }),
    // Graceful, so workers write their CPU profiles.
    workerProcessStop: 'graceful',
  } as const satisfies LocalStackOptions;
}

/** Starts the stack; always call `teardown()` (Ctrl-C stops it too). */
export async function startBenchStack(options: BenchStackOptions): Promise<BenchStack> {
  options.log('starting the sandbox, the Temporal dev server and the workflow bundles');
  // The floor's and the peer's bundles are built while the stack starts; a failed start leaves them unused.
  const floorBundleBuild = bundleWorkflows({ workflowsPath: require.resolve('./floor/workflows') });
  const peerBundleBuild = bundleWorkflows({ workflowsPath: require.resolve('./peer/workflows') });
  floorBundleBuild.catch(() => undefined);
  peerBundleBuild.catch(() => undefined);
  const stack = await startLocalStack({
    ...benchLocalStackOptions(options),
    stopOnSignals: true,
    log: options.log,
  });
  return benchStackOn(stack, options, {
    floorBundle: floorBundleBuild,
    peerBundle: peerBundleBuild,
    teardown: () => stack.stop(),
  });
}

/**
 * The bench stack on a local stack already running (the dev server's, or a cluster's: `tools/cluster`), started
 * with {@link benchLocalStackOptions}. `teardown` stops what the caller started; it also runs when this fails.
 */
export async function benchStackOn(
  stack: LocalStack,
  options: BenchStackOptions,
  parts: {
    /** The floor's bundle, when its build was started earlier. */
    readonly floorBundle?: Promise<WorkflowBundleWithSourceMap>;
    /** The peer's bundle, when its build was started earlier. */
    readonly peerBundle?: Promise<WorkflowBundleWithSourceMap>;
    readonly teardown: () => Promise<void>;
  },
): Promise<BenchStack> {
  const floorBundleBuild =
    parts.floorBundle ?? bundleWorkflows({ workflowsPath: require.resolve('./floor/workflows') });
  const peerBundleBuild =
    parts.peerBundle ?? bundleWorkflows({ workflowsPath: require.resolve('./peer/workflows') });
  try {
    const [floorBundle, peerBundle] = await Promise.all([floorBundleBuild, peerBundleBuild]);
    const floorBundlePath = join(stack.scratchDir, 'floor-bundle.js');
    writeFileSync(floorBundlePath, floorBundle.code);
    const peerBundlePath = join(stack.scratchDir, 'peer-bundle.js');
    writeFileSync(peerBundlePath, peerBundle.code);

    const baselines: Baseline[] = [];
    for (const ref of options.baselineRefs ?? []) {
      baselines.push(await prepareBaseline(ref, stack.scratchDir, options.log));
    }

    type WorkerKind = 'badge' | 'floor' | 'featuredFloor' | 'peer' | 'baseline';
    const scriptOf = (
      kind: WorkerKind,
      baseline: Baseline | undefined,
    ): { script?: string; env?: Record<string, string> } => {
      if (kind === 'peer') {
        return { script: 'bench/peer/worker.ts', env: { WORKFLOW_BUNDLE_PATH: peerBundlePath } };
      }
      if (kind === 'floor' || kind === 'featuredFloor') {
        // Encrypted as the badge workers are: not at all in a --no-encryption run.
        const encryption = kind === 'featuredFloor' && options.encryption !== false ? 'on' : 'off';
        return {
          script: 'bench/floor/worker.ts',
          env: { WORKFLOW_BUNDLE_PATH: floorBundlePath, FLOOR_ENCRYPTION: encryption },
        };
      }
      if (baseline) {
        return { script: baseline.workerScript, env: { WORKFLOW_BUNDLE_PATH: baseline.bundlePath } };
      }
      return {};
    };

    const startWorkers = async (kind: WorkerKind, count: number, baseline?: Baseline): Promise<WorkerSet> => {
      const taskQueue = `bench-${kind}-${randomUUID()}`;
      const processes = Array.from({ length: count }, (_, index) =>
        stack.startWorkerProcess({
          name: `${kind} worker ${index + 1}`,
          taskQueue,
          ...scriptOf(kind, baseline),
          nodeFlags: options.profileDir
            ? ['--cpu-prof', `--cpu-prof-dir=${join(options.profileDir, kind)}`]
            : [],
        }),
      );
      const stop = async (): Promise<void> => {
        await Promise.all(processes.map((child) => child.stop()));
      };
      await stack.waitUntilPolling(processes, taskQueue);
      return { taskQueue, processes, stop, ...(baseline ? { baseline } : {}) };
    };

    return {
      sandbox: stack.sandbox,
      get server() {
        return stack.temporal.server;
      },
      get client() {
        return stack.temporal.client;
      },
      get plainClient() {
        return stack.temporal.rawClient;
      },
      orders: (taskQueue) => stack.orders(taskQueue),
      documentsRoot: stack.documentsRoot,
      user: stack.user,
      writeDocuments(prefix, count, bytes) {
        return Array.from({ length: count }, (_, index) =>
          stack.writeDocument(`${prefix}-${index + 1}.pdf`, randomBytes(bytes)),
        );
      },
      writeSparseDocument(name, bytes) {
        const fd = openSync(join(stack.documentsRoot, name), 'w');
        try {
          ftruncateSync(fd, bytes);
        } finally {
          closeSync(fd);
        }
        return name;
      },
      startBadgeWorkers: (count) => startWorkers('badge', count),
      startFloorWorkers: (count, { encrypted = false } = {}) =>
        startWorkers(encrypted ? 'featuredFloor' : 'floor', count),
      startPeerWorkers: (count) => startWorkers('peer', count),
      baselines,
      startBaselineWorkers: (baseline, count) => startWorkers('baseline', count, baseline),
      bundles: [
        { url: pathToFileURL(stack.workflowBundle.path).href, code: stack.workflowBundle.bundle.code },
        { url: pathToFileURL(floorBundlePath).href, code: floorBundle.code },
        { url: pathToFileURL(peerBundlePath).href, code: peerBundle.code },
        ...baselines.map((baseline) => ({
          url: pathToFileURL(baseline.bundlePath).href,
          code: readFileSync(baseline.bundlePath, 'utf8'),
        })),
      ],
      teardown: parts.teardown,
    };
  } catch (error) {
    await parts.teardown().catch(() => undefined);
    throw error;
  }
}
