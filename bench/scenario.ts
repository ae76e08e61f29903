/**
 * The scenarios of a benchmark run: N orders × D documents through badgeOrder, the peer or a floor at a
 * concurrency, the direct calls, one large document (worker memory), and one order with many documents (history
 * size). Each returns plain data for the report.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { SandboxStats } from '../src/sandbox';
import { BadgeOrderRef, BadgeOrderStatus } from '../src/workflow-contract';
import type { DirectOptions, DirectResult } from './direct';
import type { FloorOrderInput } from './floor/workflows';
import type { PeerOrderInput } from './peer/workflows';
import {
  combineServerWork,
  cpuSecondsBetween,
  readLoadAverage,
  readProcCpu,
  readProcMemory,
  readServerWork,
  resetPeakRss,
  statsDelta,
  summariseLatencies,
  perOrder,
  type LatencySummary,
  type PlatformRequestCounts,
  type ServerWork,
} from './metrics';
import { runOrders, type PoolResult } from './pool';
import { startTsProcess } from '../tools/dev/child-process';
import type { BenchStack, WorkerSet } from './stack';
import { BADGE, VEHICLE } from './order-data';

/**
 * Which implementation a scenario ran: `badgeOrder` (this tree's worker and bundle), `baseline` (the worker and
 * bundle of another git ref, `--baseline`), the `peer` (what a user would write first, bench/peer/), the
 * own-shape `floor`, the `naiveFloor`, the own-shape floor making badgeOrder's visibility writes
 * (`floorSearchAttributes`, `--floor-search-attributes`), the own-shape floor with badgeOrder's production
 * features (`featuredFloor`: those writes, the Web UI summaries and payload encryption), `direct` calls as fast
 * as they go, or direct calls at badgeOrder's pace (`directPaced`).
 */
export type ScenarioKind = 'badgeOrder' | 'baseline' | 'peer' | FloorKind | 'direct' | 'directPaced';

/** The no-op floors. */
export type FloorKind = 'floor' | 'naiveFloor' | 'floorSearchAttributes' | 'featuredFloor';

/** Kinds that run as Temporal workflows on a worker set. */
export type TemporalKind = Exclude<ScenarioKind, 'direct' | 'directPaced'>;

/** Whether a kind runs the service's badgeOrder workflow (this tree's or the baseline's). */
export function isBadgeKind(kind: ScenarioKind): kind is 'badgeOrder' | 'baseline' {
  return kind === 'badgeOrder' || kind === 'baseline';
}

/** Whether a kind is direct calls (as fast as they go, or at badgeOrder's pace). */
export function isDirectKind(kind: ScenarioKind): kind is 'direct' | 'directPaced' {
  return kind === 'direct' || kind === 'directPaced';
}

/** Whether a kind is one of the no-op floors. */
export function isFloorKind(kind: ScenarioKind): kind is FloorKind {
  return Object.hasOwn(FLOORS, kind);
}

/** The shape of the orders of a scenario. */
export interface OrderShape {
  /** Document paths relative to the documents root. */
  readonly documents: readonly string[];
  readonly documentBytes: number;
  readonly stockId: number | undefined;
}

/** What one throughput scenario measured. */
export interface ScenarioResult {
  readonly kind: ScenarioKind;
  /** Worker processes (0 for direct calls; for `directPaced`, those of the badgeOrder run whose pace it kept). */
  readonly workers: number;
  readonly concurrency: number;
  readonly orders: number;
  readonly documentsPerOrder: number;
  readonly documentBytes: number;
  readonly withStock: boolean;
  readonly wallSeconds: number;
  readonly ordersPerSecond: number;
  readonly latency: LatencySummary;
  readonly failures: number;
  readonly failureSamples: readonly string[];
  /** CPU seconds over the measured orders: all workers together (or the direct script), the server, the bench. */
  readonly cpu: {
    readonly workerSeconds: number;
    readonly serverSeconds: number;
    readonly benchSeconds: number;
  };
  /** Largest peak RSS (VmHWM) among the workers (or of the direct script), in bytes. */
  readonly workerPeakRssBytes: number;
  /** Platform requests of the measured orders. */
  readonly requests: PlatformRequestCounts;
  /** What the Temporal server did over the measured orders; absent without its counters (direct calls). */
  readonly serverWork?: ServerWork;
  readonly requestsPerOrder: Readonly<Record<string, number>>;
  /** Token calls during the scenario including its warm-up orders. */
  readonly authCallsIncludingWarmup: number;
  /** The measured orders' spans on the monotonic clock (µs), to cut CPU profiles to them. */
  readonly windowsUs: readonly (readonly [number, number])[];
  /** Every measured order's latency (ms), in completion order. */
  readonly latenciesMs: readonly number[];
  /** The machine's load averages (1, 5, 15 min) when the measured orders started and when they ended. */
  readonly load: { readonly start: readonly number[]; readonly end: readonly number[] };
  /** Which baseline a `baseline` scenario ran (its ref and commit). */
  readonly baseline?: string;
}

/** Now on the monotonic clock in microseconds (the clock of V8's profile samples). */
function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Parameters of a throughput scenario. */
export interface ThroughputParams {
  readonly orders: number;
  readonly warmupOrders: number;
  readonly concurrency: number;
  readonly shape: OrderShape;
  /** Unique prefix of order references. */
  readonly runId: string;
}

interface Snapshot {
  readonly stats: SandboxStats;
  readonly workers: ReturnType<typeof readProcCpu>[];
  readonly server: ReturnType<typeof readProcCpu> | null;
  readonly serverWork: ServerWork | null;
  readonly bench: NodeJS.CpuUsage;
}

async function snapshot(stack: BenchStack, pids: readonly number[]): Promise<Snapshot> {
  return {
    stats: await stack.sandbox.control.stats(),
    workers: pids.map(readProcCpu),
    server: stack.server.pid === null ? null : readProcCpu(stack.server.pid),
    serverWork: stack.server.metricsUrl === null ? null : await readServerWork(stack.server.metricsUrl),
    bench: process.cpuUsage(),
  };
}

function cpuBetween(before: Snapshot, after: Snapshot): ScenarioResult['cpu'] {
  const workerSeconds = before.workers.reduce(
    (sum, ticks, index) => sum + cpuSecondsBetween(ticks, after.workers[index] ?? ticks),
    0,
  );
  const serverSeconds =
    before.server && after.server ? cpuSecondsBetween(before.server, after.server) : Number.NaN;
  const benchMicros = after.bench.user + after.bench.system - (before.bench.user + before.bench.system);
  return { workerSeconds, serverSeconds, benchSeconds: benchMicros / 1e6 };
}

/** The input of badge order `index` of a run. */
function badgeInput(orderRef: string, shape: OrderShape): Record<string, unknown> {
  return {
    orderRef,
    ...(shape.stockId === undefined ? {} : { stockId: shape.stockId }),
    vehicle: VEHICLE,
    badge: BADGE,
    documents: shape.documents.map((path) => ({ path })),
  };
}

/** What each floor kind runs (bench/floor/workflows.ts) and which of badgeOrder's features it carries. */
const FLOORS: Readonly<
  Record<
    FloorKind,
    {
      readonly workflow: 'floorOrder' | 'naiveFloorOrder';
      /** badgeOrder's visibility writes: search attributes at the start, a patch, two upserts. */
      readonly searchAttributes: boolean;
      /** A Web UI summary on the start and on every step. */
      readonly summaries: boolean;
      /** Payloads encrypted by the client and the worker (the worker set is started with `encrypted`). */
      readonly encrypted: boolean;
    }
  >
> = {
  floor: { workflow: 'floorOrder', searchAttributes: false, summaries: false, encrypted: false },
  naiveFloor: { workflow: 'naiveFloorOrder', searchAttributes: false, summaries: false, encrypted: false },
  floorSearchAttributes: {
    workflow: 'floorOrder',
    searchAttributes: true,
    summaries: false,
    encrypted: false,
  },
  featuredFloor: { workflow: 'floorOrder', searchAttributes: true, summaries: true, encrypted: true },
};

/** The peer's input: the same order data and documents as a badge order's. */
function peerInput(shape: OrderShape): PeerOrderInput {
  return {
    ...(shape.stockId === undefined ? {} : { stockId: shape.stockId }),
    vehicle: VEHICLE,
    badge: BADGE,
    documents: shape.documents,
  };
}

function floorInput(kind: FloorKind, orderRef: string, shape: OrderShape): FloorOrderInput {
  const { searchAttributes, summaries } = FLOORS[kind];
  return {
    orderRef,
    ...(shape.stockId === undefined ? {} : { stockId: shape.stockId }),
    vehicle: VEHICLE,
    badge: BADGE,
    documents: shape.documents,
    ...(searchAttributes && { searchAttributes }),
    ...(summaries && { summaries }),
  };
}

/** The workflow id a floor or peer order of `orderRef` runs under. */
function plainWorkflowId(kind: FloorKind | 'peer', orderRef: string): string {
  return `${kind}-${orderRef}`;
}

/** Starts one order of `kind` on the worker set's task queue and waits for its result. */
function orderRunner(stack: BenchStack, kind: TemporalKind, workers: WorkerSet, shape: OrderShape) {
  // A baseline starts its orders with its own client, as its service would.
  const orders = workers.baseline
    ? workers.baseline.orders(stack.client, workers.taskQueue)
    : stack.orders(workers.taskQueue);
  return async (orderRef: string): Promise<void> => {
    if (isBadgeKind(kind)) {
      // The service's own starter path: the input is validated in full before the start.
      const { handle } = await orders.startOrder(badgeInput(orderRef, shape));
      await handle.result();
      return;
    }
    if (kind === 'peer') {
      await stack.plainClient.workflow.execute('peerOrder', {
        taskQueue: workers.taskQueue,
        workflowId: plainWorkflowId(kind, orderRef),
        args: [peerInput(shape)],
      });
      return;
    }
    const floor = FLOORS[kind];
    // An encrypted floor starts its orders with the codec's client, as badge orders are started.
    const client = floor.encrypted ? stack.client : stack.plainClient;
    const handle = await client.workflow.start(floor.workflow, {
      taskQueue: workers.taskQueue,
      workflowId: plainWorkflowId(kind, orderRef),
      args: [floorInput(kind, orderRef, shape)],
      ...(floor.searchAttributes && {
        typedSearchAttributes: [
          { key: BadgeOrderRef, value: orderRef },
          { key: BadgeOrderStatus, value: 'Running' },
        ],
      }),
      ...(floor.summaries && { staticSummary: `Badge order ${orderRef}` }),
    });
    await handle.result();
  };
}

/** What a scenario reports of its orders: their shape and concurrency, and how the measured ones (`pool`) went. */
function measuredOrders(params: ThroughputParams, pool: PoolResult) {
  return {
    concurrency: params.concurrency,
    orders: params.orders,
    documentsPerOrder: params.shape.documents.length,
    documentBytes: params.shape.documentBytes,
    withStock: params.shape.stockId !== undefined,
    wallSeconds: pool.wallMs / 1000,
    ordersPerSecond: pool.latenciesMs.length / (pool.wallMs / 1000),
    latency: summariseLatencies(pool.latenciesMs),
    failures: pool.failures,
    failureSamples: pool.failureSamples,
    latenciesMs: pool.latenciesMs,
  };
}

/** Runs warm-up orders, then `params.orders` measured orders through badgeOrder, the peer or a floor. */
export async function runTemporalScenario(
  stack: BenchStack,
  kind: TemporalKind,
  workers: WorkerSet,
  params: ThroughputParams,
): Promise<ScenarioResult> {
  const runOne = orderRunner(stack, kind, workers, params.shape);
  const prefix = `${params.runId}-${kind}${workers.baseline ? `-${workers.baseline.commit.slice(0, 7)}` : ''}-w${workers.processes.length}-c${params.concurrency}`;
  const pids = workers.processes.map((worker) => worker.pid);
  const start = await stack.sandbox.control.stats();
  await runOrders(params.warmupOrders, params.concurrency, (index) => runOne(`${prefix}-warmup-${index}`));
  const loadStart = readLoadAverage();
  const before = await snapshot(stack, pids);
  const windowStart = monotonicMicros();
  const pool = await runOrders(params.orders, params.concurrency, (index) => runOne(`${prefix}-${index}`));
  const windowEnd = monotonicMicros();
  const after = await snapshot(stack, pids);
  const loadEnd = readLoadAverage();
  const requests = statsDelta(before.stats, after.stats);
  return {
    kind,
    workers: workers.processes.length,
    ...measuredOrders(params, pool),
    cpu: cpuBetween(before, after),
    workerPeakRssBytes: Math.max(0, ...pids.map((pid) => readProcMemory(pid).peakRssBytes)),
    requests,
    ...(before.serverWork &&
      after.serverWork && {
        serverWork: combineServerWork(after.serverWork, before.serverWork, (to, from) => to - from),
      }),
    requestsPerOrder: perOrder(requests, params.orders),
    authCallsIncludingWarmup: after.stats.authCalls.issued - start.authCalls.issued,
    windowsUs: [[windowStart, windowEnd]],
    load: { start: loadStart, end: loadEnd },
    ...(workers.baseline ? { baseline: workers.baseline.label } : {}),
  };
}

/**
 * Runs the same platform calls from a plain script (a child process) at the same concurrency: as fast as they
 * go, or at `ordersPerSecond` (warm-up orders too, so that the sandbox's share of the bench process's CPU is the
 * same per order throughout; `directPaced`).
 */
export async function runDirectScenario(
  stack: BenchStack,
  params: ThroughputParams & { readonly ordersPerSecond?: number },
): Promise<ScenarioResult> {
  const options: DirectOptions = {
    baseUrl: stack.sandbox.baseUrl,
    username: stack.user.username,
    password: stack.user.password,
    documents: params.shape.documents.map((path) => join(stack.documentsRoot, path)),
    ...(params.shape.stockId === undefined ? {} : { stockId: params.shape.stockId }),
    orders: params.orders,
    warmupOrders: params.warmupOrders,
    concurrency: params.concurrency,
    ...(params.ordersPerSecond === undefined ? {} : { ordersPerSecond: params.ordersPerSecond }),
    maxParallelUploads: 4,
    runId: `${params.runId}-direct-c${params.concurrency}-${randomUUID()}`,
  };
  const start = await stack.sandbox.control.stats();
  const loadStart = readLoadAverage();
  const serverBefore = stack.server.pid === null ? null : readProcCpu(stack.server.pid);
  const benchBefore = process.cpuUsage();
  const windowStart = monotonicMicros();
  const child = startTsProcess({
    name: 'direct calls',
    script: 'bench/direct.ts',
    env: { BENCH_DIRECT_OPTIONS: JSON.stringify(options) },
  });
  try {
    await child.exited;
  } finally {
    await child.stop();
  }
  const end = await stack.sandbox.control.stats();
  if (child.child.exitCode !== 0) throw new Error(`the direct-call script failed:\n${child.output()}`);
  const lines = child.output().trim().split('\n');
  const result = JSON.parse(lines[lines.length - 1] ?? '{}') as DirectResult;
  const requests = statsDelta(start, end);
  // Warm-up orders are in the sandbox counters too; they have the same shape, so scale by measured orders.
  const measuredShare = params.orders / (params.orders + params.warmupOrders);
  const measured: PlatformRequestCounts = {
    // The script's one token call is counted in authIssued, not per order.
    byRoute: Object.fromEntries(
      Object.entries(requests.byRoute)
        .filter(([route]) => route !== 'auth')
        .map(([route, count]) => [route, count * measuredShare]),
    ),
    total: requests.total * measuredShare,
    authIssued: requests.authIssued,
    authRejected: requests.authRejected,
  };
  const bench = process.cpuUsage(benchBefore);
  return {
    kind: params.ordersPerSecond === undefined ? 'direct' : 'directPaced',
    workers: 0,
    ...measuredOrders(params, result),
    cpu: {
      workerSeconds: result.cpuSeconds,
      serverSeconds:
        serverBefore && stack.server.pid !== null
          ? cpuSecondsBetween(serverBefore, readProcCpu(stack.server.pid))
          : Number.NaN,
      // Includes the warm-up orders' sandbox work; the direct script's own CPU is measured exactly.
      benchSeconds: ((bench.user + bench.system) / 1e6) * measuredShare,
    },
    workerPeakRssBytes: result.peakRssBytes,
    requests: measured,
    requestsPerOrder: perOrder(measured, params.orders),
    authCallsIncludingWarmup: requests.authIssued,
    windowsUs: [[windowStart, monotonicMicros()]],
    load: { start: loadStart, end: readLoadAverage() },
  };
}

/** What uploading one large document did to a fresh worker's memory. */
export interface MemoryResult {
  readonly documentBytes: number;
  readonly seconds: number;
  readonly megabytesPerSecond: number;
  readonly rssBeforeBytes: number;
  /** VmHWM after the upload (reset to the current RSS before it when the kernel allows). */
  readonly peakRssBytes: number;
  readonly rssGrowthBytes: number;
  /** Whether the peak was reset before the upload (`/proc/<pid>/clear_refs`), so it is the upload's own. */
  readonly peakReset: boolean;
  readonly requestsByRoute: Readonly<Record<string, number>>;
}

/** Uploads one document of `document` (relative path, `bytes` long) through a fresh single worker. */
export async function runMemoryScenario(
  stack: BenchStack,
  document: string,
  bytes: number,
  warmupShape: OrderShape,
  runId: string,
): Promise<MemoryResult> {
  const workers = await stack.startBadgeWorkers(1);
  try {
    const worker = workers.processes[0];
    if (!worker) throw new Error('no worker');
    const runOne = orderRunner(stack, 'badgeOrder', workers, warmupShape);
    // Warm the worker up (bundle loaded, token cached, code compiled) so the growth is the upload's.
    for (let index = 0; index < 3; index++) await runOne(`${runId}-memory-warmup-${index}`);
    const statsBefore = await stack.sandbox.control.stats();
    const rssBeforeBytes = readProcMemory(worker.pid).rssBytes;
    const peakReset = resetPeakRss(worker.pid);
    const begin = performance.now();
    const big = orderRunner(stack, 'badgeOrder', workers, {
      documents: [document],
      documentBytes: bytes,
      stockId: undefined,
    });
    await big(`${runId}-memory-big`);
    const seconds = (performance.now() - begin) / 1000;
    const memory = readProcMemory(worker.pid);
    const statsAfter = await stack.sandbox.control.stats();
    return {
      documentBytes: bytes,
      seconds,
      megabytesPerSecond: bytes / 1024 / 1024 / seconds,
      rssBeforeBytes,
      peakRssBytes: memory.peakRssBytes,
      rssGrowthBytes: memory.peakRssBytes - rssBeforeBytes,
      peakReset,
      requestsByRoute: statsDelta(statsBefore, statsAfter).byRoute,
    };
  } finally {
    await workers.stop();
  }
}

/** One order with many documents: duration and the size of its history. */
export interface ManyDocumentsResult {
  readonly kind: TemporalKind;
  readonly documents: number;
  readonly seconds: number;
  readonly historyEvents: number;
  readonly historyBytes: number;
  readonly status: string;
}

/** Runs one order with `shape.documents` and describes its history. */
export async function runManyDocumentsScenario(
  stack: BenchStack,
  kind: TemporalKind,
  workers: WorkerSet,
  shape: OrderShape,
  runId: string,
): Promise<ManyDocumentsResult> {
  const orderRef = `${runId}-${kind}-many-${shape.documents.length}`;
  const begin = performance.now();
  await orderRunner(stack, kind, workers, shape)(orderRef);
  const seconds = (performance.now() - begin) / 1000;
  const handle = isBadgeKind(kind)
    ? stack.orders(workers.taskQueue).getHandle(orderRef)
    : stack.plainClient.workflow.getHandle(plainWorkflowId(kind, orderRef));
  const description = await handle.describe();
  return {
    kind,
    documents: shape.documents.length,
    seconds,
    historyEvents: description.historyLength,
    historyBytes: description.historySize ?? Number.NaN,
    status: description.status.name,
  };
}
