/**
 * The pure part of the benchmark's cluster mode (bench/cluster.ts): CPU of process trees from `/proc/<pid>/stat`
 * texts, CPU per order for each process group of the cluster (the four Temporal services, PostgreSQL, the SDK
 * workers, the bench), which group is busiest, and the table beside the dev-server figures. No I/O here.
 */
import { CLOCK_TICKS_PER_SECOND } from './metrics';
import {
  cpuPerOrderMs,
  failureLines,
  formatLoad,
  formatTable,
  num,
  SCENARIO_COLUMNS,
  scenarioCells,
} from './report';
import type { ScenarioResult } from './scenario';

/** The fields of `/proc/<pid>/stat` a process tree's CPU needs. */
export interface ProcStatEntry {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime of the process itself (all threads), in clock ticks. */
  readonly ownTicks: number;
  /** cutime + cstime: children it has waited for (their own reaped children included), in clock ticks. */
  readonly reapedChildrenTicks: number;
}

/**
 * Parses `/proc/<pid>/stat`. The command name (field 2) may hold spaces and ")", so fields are counted from the
 * last ")": ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
 */
export function parseProcStatEntry(text: string): ProcStatEntry {
  const open = text.indexOf('(');
  const end = text.lastIndexOf(')');
  if (open < 0 || end < open) throw new Error('not a /proc/<pid>/stat line: no "(…)"');
  const pid = Number(text.slice(0, open).trim());
  // Index 0 is field 3 (state), so field n is at index n - 3.
  const fields = text
    .slice(end + 1)
    .trim()
    .split(/\s+/)
    .map(Number);
  const [ppid, utime, stime, cutime, cstime] = [1, 11, 12, 13, 14].map((index) => fields[index]);
  const values = [pid, ppid, utime, stime, cutime, cstime];
  if (values.some((value) => value === undefined || !Number.isFinite(value))) {
    throw new Error('not a /proc/<pid>/stat line: pid, ppid or CPU times missing');
  }
  const [, parent, user, system, childUser, childSystem] = values as number[];
  return {
    pid,
    ppid: parent as number,
    ownTicks: (user as number) + (system as number),
    reapedChildrenTicks: (childUser as number) + (childSystem as number),
  };
}

/**
 * CPU ticks a process tree has used so far: over the root and its live descendants, their own time plus that of
 * the children they have reaped. The sum only grows — a child that exits moves its time into its parent's
 * reaped-children figure when the parent waits for it — so the difference of two readings is the tree's CPU in
 * between, new and exited children (PostgreSQL's backends) included. `null` when the root is not in `entries`.
 */
export function processTreeTicks(rootPid: number, entries: readonly ProcStatEntry[]): number | null {
  const byParent = new Map<number, ProcStatEntry[]>();
  let root: ProcStatEntry | undefined;
  for (const entry of entries) {
    if (entry.pid === rootPid) root = entry;
    const siblings = byParent.get(entry.ppid) ?? [];
    siblings.push(entry);
    byParent.set(entry.ppid, siblings);
  }
  if (!root) return null;
  let ticks = 0;
  const seen = new Set<number>();
  const queue: ProcStatEntry[] = [root];
  for (let next = queue.pop(); next; next = queue.pop()) {
    if (seen.has(next.pid)) continue;
    seen.add(next.pid);
    ticks += next.ownTicks + next.reapedChildrenTicks;
    queue.push(...(byParent.get(next.pid) ?? []));
  }
  return ticks;
}

/** The process groups of the cluster whose CPU is measured, in table order. */
export const CLUSTER_CPU_GROUPS = [
  'frontend',
  'history',
  'matching',
  'worker',
  'postgres',
  'sdkWorkers',
  'bench',
] as const;

/**
 * A process group: the Temporal services `frontend`, `history`, `matching`, `worker` (Temporal's internal
 * worker service); `postgres` (the postmaster and all its backends); `sdkWorkers` (the scenario's worker
 * processes, badge or floor); `bench` (this process: the sandbox platform and the clients starting orders).
 */
export type ClusterCpuGroup = (typeof CLUSTER_CPU_GROUPS)[number];

/** CPU seconds per group. */
export type CpuByGroup = Readonly<Record<ClusterCpuGroup, number>>;

/** CPU seconds per group between two cumulative readings (in seconds); NaN where either is missing. */
export function cpuBetweenReadings(before: CpuByGroup, after: CpuByGroup): CpuByGroup {
  return Object.fromEntries(
    CLUSTER_CPU_GROUPS.map((group) => [group, after[group] - before[group]]),
  ) as Record<ClusterCpuGroup, number>;
}

/** Adds CPU readings group by group (the rounds of one scenario). */
export function sumCpu(parts: readonly CpuByGroup[]): CpuByGroup {
  return Object.fromEntries(
    CLUSTER_CPU_GROUPS.map((group) => [group, parts.reduce((sum, part) => sum + part[group], 0)]),
  ) as Record<ClusterCpuGroup, number>;
}

/** Clock ticks to seconds. */
export function ticksToSeconds(ticks: number): number {
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** One scenario on the cluster: the usual figures plus CPU by process group over its measured orders. */
export interface ClusterScenarioResult {
  /** Orders/s, latency, requests, … as on the dev server (`cpu.serverSeconds` is NaN: see `cpuSeconds`). */
  readonly scenario: ScenarioResult;
  /** CPU seconds per process group over the measured orders. */
  readonly cpuSeconds: CpuByGroup;
}

/** What the cluster mode measured. */
export interface ClusterBenchResults {
  /** Temporal server version and history shards of the cluster. */
  readonly temporal: { readonly version: string; readonly historyShards: number };
  readonly workerCounts: readonly number[];
  readonly concurrencies: readonly number[];
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
  /** Seconds from the start of the cluster to its stop. */
  readonly totalSeconds: number;
  readonly scenarios: readonly ClusterScenarioResult[];
}

/** CPU ms per completed order for each group, and their total. */
export function clusterCpuPerOrderMs(
  result: ClusterScenarioResult,
): Readonly<Record<ClusterCpuGroup | 'total', number>> {
  const orders = Math.max(1, result.scenario.latency.count);
  const perGroup = Object.fromEntries(
    CLUSTER_CPU_GROUPS.map((group) => [group, (result.cpuSeconds[group] * 1000) / orders]),
  ) as Record<ClusterCpuGroup, number>;
  const total = CLUSTER_CPU_GROUPS.reduce((sum, group) => sum + perGroup[group], 0);
  return { ...perGroup, total };
}

/**
 * The group that used the most CPU, with its share of all the cluster's CPU and how many cores it kept busy on
 * average (CPU seconds over wall seconds): where the bottleneck is, as far as CPU shows it.
 */
export function busiestGroup(result: ClusterScenarioResult): {
  readonly group: ClusterCpuGroup;
  readonly share: number;
  readonly cores: number;
} {
  const total = CLUSTER_CPU_GROUPS.reduce((sum, group) => sum + result.cpuSeconds[group], 0);
  const group = CLUSTER_CPU_GROUPS.reduce((best, candidate) =>
    result.cpuSeconds[candidate] > result.cpuSeconds[best] ? candidate : best,
  );
  return {
    group,
    share: total > 0 ? result.cpuSeconds[group] / total : Number.NaN,
    cores: result.cpuSeconds[group] / result.scenario.wallSeconds,
  };
}

/** Cores the whole cluster kept busy on average during the measured orders. */
export function coresUsed(result: ClusterScenarioResult): number {
  const total = CLUSTER_CPU_GROUPS.reduce((sum, group) => sum + result.cpuSeconds[group], 0);
  return total / result.scenario.wallSeconds;
}

/** The dev-server scenario of the same kind, worker count and concurrency, if the run has one. */
export function devServerTwin(
  devScenarios: readonly ScenarioResult[],
  cluster: ClusterScenarioResult,
): ScenarioResult | undefined {
  return devScenarios.find(
    (scenario) =>
      scenario.kind === cluster.scenario.kind &&
      scenario.workers === cluster.scenario.workers &&
      scenario.concurrency === cluster.scenario.concurrency,
  );
}

/** The table rows: one per scenario on the cluster, with its dev-server twin's throughput and CPU beside it. */
export function clusterRows(
  results: ClusterBenchResults,
  devScenarios: readonly ScenarioResult[],
): string[][] {
  return results.scenarios.map((result) => {
    const { scenario } = result;
    const cpu = clusterCpuPerOrderMs(result);
    const busiest = busiestGroup(result);
    const twin = devServerTwin(devScenarios, result);
    return [
      ...scenarioCells(scenario),
      ...CLUSTER_CPU_GROUPS.map((group) => num(cpu[group])),
      num(cpu.total),
      num(coresUsed(result), 2),
      `${busiest.group} ${num(busiest.share * 100, 0)}%`,
      twin ? num(twin.ordersPerSecond) : '-',
      twin ? num(cpuPerOrderMs(twin).total) : '-',
      formatLoad(scenario),
    ];
  });
}

/** The cluster section of the report. */
export function formatClusterReport(
  results: ClusterBenchResults,
  devScenarios: readonly ScenarioResult[],
): string {
  const intro =
    `Cluster mode — Temporal ${results.temporal.version} as four processes on PostgreSQL ` +
    `(${results.temporal.historyShards} history shards), ${num(results.totalSeconds, 0)} s, load ` +
    `${results.loadAverage.start.join(' ')} → ${results.loadAverage.end.join(' ')}. CPU in ms per order by process: ` +
    'frontend, history, matching, worker = the Temporal services; postgres = the postmaster and all its backends; ' +
    'sdk workers = the scenario’s worker processes; bench = this process (sandbox + starters). cores = CPU ' +
    'seconds of all of them over wall seconds; busiest = the group with the largest share. dev o/s and dev cpu = ' +
    'the same scenario on the dev server in this run (orders/s, total CPU ms per order), when it ran.';
  const table = formatTable(
    [
      ...SCENARIO_COLUMNS,
      'frontend',
      'history',
      'matching',
      'worker',
      'postgres',
      'sdk workers',
      'bench',
      'total cpu',
      'cores',
      'busiest',
      'dev o/s',
      'dev cpu',
      'load',
    ],
    clusterRows(results, devScenarios),
  );
  const failed = failureLines(
    results.scenarios.map((result) => result.scenario),
    'cluster ',
  );
  return [intro, table, ...failed].join('\n\n');
}
