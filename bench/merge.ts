/**
 * Merges the repeats of one scenario: the bench alternates floor and badgeOrder runs (`--repeat`) so that a
 * change in the machine's background load hits both alike, then reports each kind as one scenario.
 */
import {
  combineServerWork,
  perOrder,
  summariseLatencies,
  type PlatformRequestCounts,
  type ServerWork,
} from './metrics';
import type { ScenarioResult } from './scenario';

function sumRequests(parts: readonly PlatformRequestCounts[]): PlatformRequestCounts {
  const byRoute: Record<string, number> = {};
  for (const part of parts) {
    for (const [route, count] of Object.entries(part.byRoute)) byRoute[route] = (byRoute[route] ?? 0) + count;
  }
  const sum = (pick: (part: PlatformRequestCounts) => number): number =>
    parts.reduce((total, part) => total + pick(part), 0);
  return {
    byRoute,
    total: sum((part) => part.total),
    authIssued: sum((part) => part.authIssued),
    authRejected: sum((part) => part.authRejected),
  };
}

/** The server's work over all repeats; none when a repeat has none (a server without counters). */
function serverWorkOf(repeats: readonly ScenarioResult[]): ServerWork | undefined {
  let total: ServerWork | undefined;
  for (const { serverWork } of repeats) {
    if (!serverWork) return undefined;
    total = total ? combineServerWork(total, serverWork, (a, b) => a + b) : serverWork;
  }
  return total;
}

/** One scenario from its repeats (same kind, workers, concurrency and shape): sums, maxima, all latencies. */
export function mergeRepeats(repeats: readonly ScenarioResult[]): ScenarioResult {
  const [first] = repeats;
  if (!first) throw new Error('mergeRepeats needs at least one result');
  if (repeats.length === 1) return first;
  const sum = (pick: (result: ScenarioResult) => number): number =>
    repeats.reduce((total, result) => total + pick(result), 0);
  const latenciesMs = repeats.flatMap((result) => result.latenciesMs);
  const orders = sum((result) => result.orders);
  const wallSeconds = sum((result) => result.wallSeconds);
  const requests = sumRequests(repeats.map((result) => result.requests));
  return {
    ...first,
    orders,
    wallSeconds,
    ordersPerSecond: latenciesMs.length / wallSeconds,
    latency: summariseLatencies(latenciesMs),
    failures: sum((result) => result.failures),
    failureSamples: repeats.flatMap((result) => result.failureSamples).slice(0, 5),
    cpu: {
      workerSeconds: sum((result) => result.cpu.workerSeconds),
      serverSeconds: sum((result) => result.cpu.serverSeconds),
      benchSeconds: sum((result) => result.cpu.benchSeconds),
    },
    workerPeakRssBytes: Math.max(...repeats.map((result) => result.workerPeakRssBytes)),
    requests,
    serverWork: serverWorkOf(repeats),
    requestsPerOrder: perOrder(requests, orders),
    authCallsIncludingWarmup: sum((result) => result.authCallsIncludingWarmup),
    windowsUs: repeats.flatMap((result) => result.windowsUs),
    latenciesMs,
    load: { start: first.load.start, end: (repeats[repeats.length - 1] ?? first).load.end },
  };
}
