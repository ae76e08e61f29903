/**
 * Pure measurement helpers of the benchmarks: percentiles, latency summaries, parsers for `/proc/<pid>/stat`
 * and `/proc/<pid>/status`, the difference of two sandbox stats snapshots, and the Temporal server's work from
 * its Prometheus counters. The readers at the end are the only functions here that touch the file system or
 * the network.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { SandboxStats } from '../src/sandbox';

/** The `p`th percentile (0–100) of `values` by the nearest-rank method; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (p < 0 || p > 100) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** End-to-end latencies of a set of orders, in milliseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly minMs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

/** Summarises latencies (ms) into count, min, p50, p95, p99, max and mean. */
export function summariseLatencies(values: readonly number[]): LatencySummary {
  const sum = values.reduce((total, value) => total + value, 0);
  return {
    count: values.length,
    minMs: values.length === 0 ? Number.NaN : Math.min(...values),
    p50Ms: percentile(values, 50),
    p95Ms: percentile(values, 95),
    p99Ms: percentile(values, 99),
    maxMs: values.length === 0 ? Number.NaN : Math.max(...values),
    meanMs: values.length === 0 ? Number.NaN : sum / values.length,
  };
}

/** CPU time of a process from `/proc/<pid>/stat`, in clock ticks. */
export interface ProcCpuTicks {
  readonly utimeTicks: number;
  readonly stimeTicks: number;
}

/**
 * Parses `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may hold spaces and ")", so the
 * fields are counted from the last ")": utime and stime are fields 14 and 15.
 */
export function parseProcStat(text: string): ProcCpuTicks {
  const end = text.lastIndexOf(')');
  if (end < 0) throw new Error('not a /proc/<pid>/stat line: no ")"');
  // After ")" come field 3 (state), 4, 5, …; utime is field 14, i.e. index 11 here.
  const fields = text
    .slice(end + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) {
    throw new Error('not a /proc/<pid>/stat line: utime/stime missing');
  }
  return { utimeTicks: utime, stimeTicks: stime };
}

/** Memory of a process from `/proc/<pid>/status`, in bytes. */
export interface ProcMemory {
  /** Resident set size now (`VmRSS`). */
  readonly rssBytes: number;
  /** Peak resident set size over the process's life (`VmHWM`). */
  readonly peakRssBytes: number;
}

function statusField(text: string, name: string): number {
  const match = new RegExp(`^${name}:\\s*(\\d+)\\s*kB\\s*$`, 'm').exec(text);
  if (!match?.[1]) throw new Error(`not a /proc/<pid>/status text: no ${name}`);
  return Number(match[1]) * 1024;
}

/** Parses `VmRSS` and `VmHWM` from `/proc/<pid>/status`. */
export function parseProcStatus(text: string): ProcMemory {
  return { rssBytes: statusField(text, 'VmRSS'), peakRssBytes: statusField(text, 'VmHWM') };
}

/** Clock ticks per second of `/proc` CPU times (`getconf CLK_TCK`; 100 on every Linux we run on). */
export const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) between two `/proc/<pid>/stat` readings. */
export function cpuSecondsBetween(before: ProcCpuTicks, after: ProcCpuTicks): number {
  const ticks = after.utimeTicks + after.stimeTicks - (before.utimeTicks + before.stimeTicks);
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** Platform requests by route (status codes summed), and token calls. */
export interface PlatformRequestCounts {
  readonly byRoute: Readonly<Record<string, number>>;
  readonly total: number;
  readonly authIssued: number;
  readonly authRejected: number;
}

function routeTotals(stats: SandboxStats): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const [route, byStatus] of Object.entries(stats.requests)) {
    totals[route] = Object.values(byStatus ?? {}).reduce((sum, count) => sum + count, 0);
  }
  return totals;
}

/** The platform requests made between two sandbox stats snapshots. */
export function statsDelta(before: SandboxStats, after: SandboxStats): PlatformRequestCounts {
  const from = routeTotals(before);
  const to = routeTotals(after);
  const byRoute: Record<string, number> = {};
  for (const route of Object.keys(to).sort()) {
    const count = (to[route] ?? 0) - (from[route] ?? 0);
    if (count !== 0) byRoute[route] = count;
  }
  return {
    byRoute,
    total: after.totalRequests - before.totalRequests,
    authIssued: after.authCalls.issued - before.authCalls.issued,
    authRejected: after.authCalls.rejected - before.authCalls.rejected,
  };
}

/** Requests per order by route, from counts over `orders` orders. */
export function perOrder(counts: PlatformRequestCounts, orders: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(counts.byRoute).map(([route, count]) => [route, orders === 0 ? 0 : count / orders]),
  );
}

/**
 * What the Temporal server did for a set of orders, from the counters it exposes to Prometheus (`/metrics`).
 * Counts, not times: they say why one implementation costs the server more than another.
 */
export interface ServerWork {
  /** Workflow tasks the history service handed to matching (one per workflow task). */
  readonly workflowTasks: number;
  /** Tasks matching wrote to its database because no poller was waiting for them, to dispatch them later. */
  readonly backlogWrites: number;
  /**
   * Visibility tasks: a run's start, its close and its search attribute upserts. The server collapses those of
   * one transaction into one (an upsert in the closing workflow task, or beside its own `BuildIds` upsert in
   * the first, costs nothing more).
   */
  readonly visibilityTasks: number;
  /** Writes of workflow state (mutable state and its new events, one per transaction). */
  readonly stateWrites: number;
  /**
   * Reads of the namespace's and the search attributes' definitions from the database, which a server with its
   * caches on (as deployed) does not repeat per order.
   */
  readonly definitionReads: number;
}

/** The counters behind each {@link ServerWork} figure: a metric name and the labels of the samples to sum. */
const SERVER_WORK_COUNTERS: Readonly<Record<keyof ServerWork, { metric: string; labels: RegExp }>> = {
  workflowTasks: { metric: 'task_latency_count', labels: /task_type="TransferActiveTaskWorkflowTask"/ },
  backlogWrites: { metric: 'persistence_latency_count', labels: /operation="CreateTasks"/ },
  visibilityTasks: {
    metric: 'task_latency_count',
    labels: /task_type="VisibilityTask(Start|Upsert|Close)Execution"/,
  },
  stateWrites: {
    metric: 'persistence_latency_count',
    labels: /operation="(Create|Update)WorkflowExecution"/,
  },
  definitionReads: {
    metric: 'persistence_latency_count',
    labels: /operation="(GetNamespace|GetClusterMetadata)"/,
  },
};

const SERVER_WORK_KEYS = Object.keys(SERVER_WORK_COUNTERS) as (keyof ServerWork)[];

/** Sums the {@link ServerWork} counters of a Prometheus text exposition (a counter never seen counts 0). */
export function parseServerWork(text: string): ServerWork {
  const work = Object.fromEntries(SERVER_WORK_KEYS.map((key) => [key, 0])) as Record<
    keyof ServerWork,
    number
  >;
  for (const line of text.split('\n')) {
    const sample = /^([A-Za-z_:][\w:]*)(\{.*\})?\s+(\S+)/.exec(line);
    if (!sample) continue;
    const [, metric, labels = '', value] = sample;
    for (const key of SERVER_WORK_KEYS) {
      const counter = SERVER_WORK_COUNTERS[key];
      if (metric === counter.metric && counter.labels.test(labels)) work[key] += Number(value);
    }
  }
  return work;
}

/** Applies `combine` to each figure of two {@link ServerWork}s: their difference, their sum. */
export function combineServerWork(
  a: ServerWork,
  b: ServerWork,
  combine: (a: number, b: number) => number,
): ServerWork {
  return Object.fromEntries(SERVER_WORK_KEYS.map((key) => [key, combine(a[key], b[key])])) as Record<
    keyof ServerWork,
    number
  >;
}

/** Parses `/proc/loadavg` into its 1, 5 and 15 minute load averages. */
export function parseLoadAverage(text: string): readonly [number, number, number] {
  const [one, five, fifteen] = text.trim().split(/\s+/).map(Number);
  if (
    one === undefined ||
    five === undefined ||
    fifteen === undefined ||
    [one, five, fifteen].some(Number.isNaN)
  ) {
    throw new Error('not a /proc/loadavg text');
  }
  return [one, five, fifteen];
}

/** Reads a process's CPU ticks from `/proc`. */
export function readProcCpu(pid: number): ProcCpuTicks {
  return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * Resets a process's peak RSS (VmHWM) to its current RSS, so the peak read later is what follows, not
 * start-up's. "5" to `clear_refs` does it (Linux ≥ 4.0); false when the kernel refuses.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Reads a process's memory from `/proc`. */
export function readProcMemory(pid: number): ProcMemory {
  return parseProcStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

/** Reads the server's {@link ServerWork} counters from its `/metrics` endpoint. */
export async function readServerWork(metricsUrl: string): Promise<ServerWork> {
  const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`${metricsUrl} answered ${response.status}`);
  return parseServerWork(await response.text());
}

/** Reads the load averages from `/proc/loadavg`. */
export function readLoadAverage(): readonly [number, number, number] {
  return parseLoadAverage(readFileSync('/proc/loadavg', 'utf8'));
}
