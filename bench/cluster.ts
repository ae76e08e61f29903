/**
 * The benchmark's cluster mode (`npm run bench -- --cluster`): the same orders on the production-shaped stack of
 * tools/cluster — PostgreSQL, Temporal's frontend, history, matching and worker services as separate processes —
 * with 1, 2 and 4 worker processes, each scenario's CPU per order measured for every Temporal service, for
 * PostgreSQL (the postmaster and all its backends), the SDK workers and the bench. The cluster starts once; each
 * worker count gets fresh worker processes on task queues of their own, as on the dev server. The figures and
 * their table are in bench/cluster-report.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { intList } from './cli';
import { GO_TOOLS } from '../tools/go-tools/go-tools';
import { startCluster, TEMPORAL_CONFIG_FILE, type Cluster } from '../tools/cluster';
import {
  cpuBetweenReadings,
  parseProcStatEntry,
  processTreeTicks,
  sumCpu,
  ticksToSeconds,
  type ClusterBenchResults,
  type ClusterScenarioResult,
  type CpuByGroup,
  type ProcStatEntry,
} from './cluster-report';
import { mergeRepeats } from './merge';
import { readLoadAverage } from './metrics';
import { runTemporalScenario, type OrderShape, type ScenarioResult, type TemporalKind } from './scenario';
import { benchLocalStackOptions, benchStackOn, type BenchStack, type BenchStackOptions } from './stack';

/** Worker process counts of the cluster mode unless `--cluster-workers` says otherwise. */
export const DEFAULT_CLUSTER_WORKERS: readonly number[] = [1, 2, 4];

/** The command-line options of the cluster mode, as commander parses them. */
export interface ClusterCliOptions {
  readonly cluster: boolean;
  readonly clusterWorkers?: number[];
}

/** Adds `--cluster` and `--cluster-workers <list>` to the bench's command line. */
export function addClusterOptions(program: Command): Command {
  return program
    .addOption(
      new Option(
        '--cluster',
        'also run badgeOrder (and the own-shape floor) on the production-shaped cluster (tools/cluster), ' +
          'with CPU per order for each Temporal service and PostgreSQL',
      ).default(false),
    )
    .addOption(
      new Option(
        '--cluster-workers <list>',
        `worker process counts on the cluster (default ${DEFAULT_CLUSTER_WORKERS.join(',')})`,
      ).argParser(intList),
    );
}

/** Options of {@link runClusterBench}: the dev-server run's settings, so both measure the same orders. */
export interface ClusterBenchOptions {
  readonly stack: Omit<BenchStackOptions, 'profileDir' | 'baselineRefs'>;
  readonly workerCounts: readonly number[];
  readonly concurrencies: readonly number[];
  /** Measured orders per scenario at a concurrency (split over the rounds). */
  readonly ordersFor: (concurrency: number) => number;
  readonly warmupOrders: number;
  readonly repeat: number;
  readonly documents: number;
  readonly documentBytes: number;
  readonly stockId: number | undefined;
  /** Run the own-shape floor too (its workers, interleaved with badgeOrder's in every round). */
  readonly floor: boolean;
  /** Unique prefix of order references. */
  readonly runId: string;
}

function readAllProcStats(): ProcStatEntry[] {
  const entries: ProcStatEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      entries.push(parseProcStatEntry(readFileSync(`/proc/${name}/stat`, 'utf8')));
    } catch {
      // The process exited between the listing and the read; its time is in its parent's reaped figure.
    }
  }
  return entries;
}

/** Cumulative CPU seconds of every group now; the SDK workers are those of `workerPids`. */
function readCpu(cluster: Cluster, workerPids: readonly number[]): CpuByGroup {
  const entries = readAllProcStats();
  const tree = (pid: number): number => {
    const ticks = processTreeTicks(pid, entries);
    if (ticks === null) throw new Error(`process ${pid} of the cluster is gone`);
    return ticksToSeconds(ticks);
  };
  const bench = process.cpuUsage();
  return {
    frontend: tree(cluster.temporal.process('frontend').pid),
    history: tree(cluster.temporal.process('history').pid),
    matching: tree(cluster.temporal.process('matching').pid),
    worker: tree(cluster.temporal.process('worker').pid),
    postgres: tree(cluster.postgres.process.pid),
    sdkWorkers: workerPids.reduce((sum, pid) => sum + tree(pid), 0),
    bench: (bench.user + bench.system) / 1e6,
  };
}

/** The history shards the cluster runs with: the default of the shared server config. */
function historyShards(): number {
  const match = /numHistoryShards:\s*\{\{\s*default\s+"(\d+)"/.exec(
    readFileSync(TEMPORAL_CONFIG_FILE, 'utf8'),
  );
  return match?.[1] ? Number(match[1]) : Number.NaN;
}

/** Starts the cluster, runs the scenarios for each worker count and stops everything again. */
export async function runClusterBench(options: ClusterBenchOptions): Promise<ClusterBenchResults> {
  const log = options.stack.log;
  const startedAt = Date.now();
  const loadStart = readLoadAverage();
  log(
    `cluster mode: starting PostgreSQL and the four Temporal services; load average ${loadStart.join(' ')}`,
  );
  const cluster = await startCluster({
    workers: 0,
    webUi: false,
    stopOnSignals: true,
    stack: benchLocalStackOptions(options.stack),
    log,
  });
  let bench: BenchStack | undefined;
  try {
    bench = await benchStackOn(cluster.stack, options.stack, { teardown: () => cluster.stop() });
    const stack = bench;
    const shape: OrderShape = {
      documents: stack.writeDocuments('cluster-doc', options.documents, options.documentBytes),
      documentBytes: options.documentBytes,
      stockId: options.stockId,
    };
    const scenarios: ClusterScenarioResult[] = [];
    for (const workers of options.workerCounts) {
      log(
        `cluster: starting ${workers} badge worker(s)${options.floor ? ` and ${workers} floor worker(s)` : ''}`,
      );
      const [badgeSet, floorSet] = await Promise.all([
        stack.startBadgeWorkers(workers),
        options.floor ? stack.startFloorWorkers(workers) : Promise.resolve(undefined),
      ]);
      const kinds = [
        ...(floorSet ? [{ kind: 'floor' as TemporalKind, set: floorSet }] : []),
        { kind: 'badgeOrder' as TemporalKind, set: badgeSet },
      ];
      try {
        for (const concurrency of options.concurrencies) {
          const perRepeat = Math.ceil(options.ordersFor(concurrency) / options.repeat);
          const runs = new Map(kinds.map(({ kind }) => [kind, [] as ScenarioResult[]]));
          const cpu = new Map(kinds.map(({ kind }) => [kind, [] as CpuByGroup[]]));
          for (let round = 0; round < options.repeat; round++) {
            for (const { kind, set } of kinds) {
              const params = { concurrency, shape };
              // Warm-up as a scenario of its own, so that the CPU readings below hold only measured orders.
              if (round === 0 && options.warmupOrders > 0) {
                await runTemporalScenario(stack, kind, set, {
                  ...params,
                  orders: options.warmupOrders,
                  warmupOrders: 0,
                  runId: `${options.runId}-cluster-warmup`,
                });
              }
              const pids = set.processes.map((child) => child.pid);
              const before = readCpu(cluster, pids);
              const result = await runTemporalScenario(stack, kind, set, {
                ...params,
                orders: perRepeat,
                warmupOrders: 0,
                runId: `${options.runId}-cluster-r${round}`,
              });
              const used = cpuBetweenReadings(before, readCpu(cluster, pids));
              runs.get(kind)?.push(result);
              cpu.get(kind)?.push(used);
              const cpuMs = (seconds: number): string =>
                ((seconds * 1000) / Math.max(1, result.latency.count)).toFixed(1);
              log(
                `cluster ${kind}: ${workers} worker(s), concurrency ${concurrency}, ${perRepeat} orders, round ` +
                  `${round + 1}/${options.repeat}: ${result.ordersPerSecond.toFixed(1)} orders/s; ms CPU/order ` +
                  `frontend ${cpuMs(used.frontend)}, history ${cpuMs(used.history)}, matching ` +
                  `${cpuMs(used.matching)}, worker ${cpuMs(used.worker)}, postgres ${cpuMs(used.postgres)}, ` +
                  `sdk workers ${cpuMs(used.sdkWorkers)}, bench ${cpuMs(used.bench)}; load ` +
                  `${result.load.start[0] ?? '-'} → ${result.load.end[0] ?? '-'}`,
              );
            }
          }
          for (const { kind } of kinds) {
            scenarios.push({
              scenario: mergeRepeats(runs.get(kind) ?? []),
              cpuSeconds: sumCpu(cpu.get(kind) ?? []),
            });
          }
        }
      } finally {
        await Promise.all([badgeSet.stop(), floorSet?.stop()]);
      }
    }
    return {
      temporal: { version: GO_TOOLS.temporalServer.version, historyShards: historyShards() },
      workerCounts: options.workerCounts,
      concurrencies: options.concurrencies,
      loadAverage: { start: loadStart, end: readLoadAverage() },
      totalSeconds: (Date.now() - startedAt) / 1000,
      scenarios,
    };
  } finally {
    log('cluster: stopping');
    // The bench stack's teardown is the cluster's stop; without it (its start failed) stop the cluster here.
    await (bench ? bench.teardown() : cluster.stop());
  }
}
