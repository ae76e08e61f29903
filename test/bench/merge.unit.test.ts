import { mergeRepeats } from '../../bench/merge';
import type { ScenarioResult } from '../../bench/scenario';
import { summariseLatencies } from '../../bench/metrics';

function round(latenciesMs: number[], wallSeconds: number, authCalls: number): ScenarioResult {
  const orders = latenciesMs.length;
  return {
    kind: 'badgeOrder',
    workers: 2,
    concurrency: 10,
    orders: latenciesMs.length,
    documentsPerOrder: 2,
    documentBytes: 1024,
    withStock: true,
    wallSeconds,
    ordersPerSecond: latenciesMs.length / wallSeconds,
    latency: summariseLatencies(latenciesMs),
    failures: 0,
    failureSamples: [],
    cpu: { workerSeconds: 1, serverSeconds: 2, benchSeconds: 0.5 },
    workerPeakRssBytes: 100 + latenciesMs.length,
    requests: {
      byRoute: { orders: latenciesMs.length, documents: 2 * latenciesMs.length },
      total: 3 * latenciesMs.length,
      authIssued: 0,
      authRejected: 0,
    },
    requestsPerOrder: { orders: 1, documents: 2 },
    serverWork: {
      workflowTasks: 3 * orders,
      backlogWrites: 1,
      visibilityTasks: 4 * orders,
      stateWrites: 10 * orders,
      definitionReads: 0,
    },
    authCallsIncludingWarmup: authCalls,
    windowsUs: [[wallSeconds, wallSeconds + 1]],
    latenciesMs,
    load: { start: [latenciesMs.length, 0, 0], end: [wallSeconds, 0, 0] },
  };
}

describe('mergeRepeats', () => {
  it('sums orders, time, CPU and requests, keeps every latency and the largest peak RSS', () => {
    const merged = mergeRepeats([round([10, 20, 30], 1, 2), round([40, 50], 4, 0)]);
    expect(merged).toMatchObject({
      orders: 5,
      wallSeconds: 5,
      ordersPerSecond: 1,
      latency: { count: 5, p50Ms: 30, maxMs: 50 },
      cpu: { workerSeconds: 2, serverSeconds: 4, benchSeconds: 1 },
      workerPeakRssBytes: 103,
      requests: { byRoute: { orders: 5, documents: 10 }, total: 15 },
      requestsPerOrder: { orders: 1, documents: 2 },
      serverWork: {
        workflowTasks: 15,
        backlogWrites: 2,
        visibilityTasks: 20,
        stateWrites: 50,
        definitionReads: 0,
      },
      authCallsIncludingWarmup: 2,
      windowsUs: [
        [1, 2],
        [4, 5],
      ],
      // The load when the first round started and when the last one ended.
      load: { start: [3, 0, 0], end: [4, 0, 0] },
    });
  });

  it("leaves the server's work out when a round has none (a server without counters)", () => {
    const withoutCounters = { ...round([40, 50], 4, 0), serverWork: undefined };
    expect(mergeRepeats([round([10], 1, 0), withoutCounters]).serverWork).toBeUndefined();
  });

  it('returns a single round as it is and refuses none', () => {
    const single = round([10], 1, 1);
    expect(mergeRepeats([single])).toBe(single);
    expect(() => mergeRepeats([])).toThrow('at least one');
  });
});
