import {
  busiestGroup,
  CLUSTER_CPU_GROUPS,
  clusterCpuPerOrderMs,
  clusterRows,
  coresUsed,
  cpuBetweenReadings,
  devServerTwin,
  formatClusterReport,
  parseProcStatEntry,
  processTreeTicks,
  sumCpu,
  type ClusterBenchResults,
  type ClusterScenarioResult,
  type CpuByGroup,
  type ProcStatEntry,
} from '../../bench/cluster-report';
import { summariseLatencies } from '../../bench/metrics';
import type { ScenarioResult } from '../../bench/scenario';

/** A /proc/<pid>/stat line with the given fields; the rest are zeros. */
function statLine(pid: number, comm: string, ppid: number, times: [number, number, number, number]): string {
  const [utime, stime, cutime, cstime] = times;
  // Fields 3..: state, ppid, pgrp, session, tty_nr, tpgid, flags, minflt, cminflt, majflt, cmajflt, utime, …
  const rest = ['S', ppid, 1, 1, 0, -1, 4194560, 10, 0, 0, 0, utime, stime, cutime, cstime, 20, 0, 1, 0, 100];
  return `${pid} (${comm}) ${rest.join(' ')}\n`;
}

const entry = (pid: number, ppid: number, own: number, reaped = 0): ProcStatEntry => ({
  pid,
  ppid,
  ownTicks: own,
  reapedChildrenTicks: reaped,
});

function cpu(values: Partial<Record<(typeof CLUSTER_CPU_GROUPS)[number], number>>): CpuByGroup {
  return Object.fromEntries(CLUSTER_CPU_GROUPS.map((group) => [group, values[group] ?? 0])) as CpuByGroup;
}

function scenario(
  kind: ScenarioResult['kind'],
  workers: number,
  latencies: number[],
  wallSeconds: number,
): ScenarioResult {
  return {
    kind,
    workers,
    concurrency: 10,
    orders: latencies.length,
    documentsPerOrder: 2,
    documentBytes: 65536,
    withStock: true,
    wallSeconds,
    ordersPerSecond: latencies.length / wallSeconds,
    latency: summariseLatencies(latencies),
    failures: 0,
    failureSamples: [],
    cpu: { workerSeconds: 1, serverSeconds: 0.5, benchSeconds: 0.1 },
    workerPeakRssBytes: 0,
    requests: { byRoute: {}, total: 0, authIssued: 0, authRejected: 0 },
    requestsPerOrder: {},
    authCallsIncludingWarmup: 0,
    windowsUs: [],
    latenciesMs: latencies,
    load: { start: [3.5, 0, 0], end: [4.25, 0, 0] },
  };
}

describe('parseProcStatEntry', () => {
  it('reads pid, ppid, own and reaped children CPU, also with spaces and ")" in the command name', () => {
    expect(parseProcStatEntry(statLine(4242, 'postgres: a) b', 17, [120, 30, 500, 70]))).toEqual({
      pid: 4242,
      ppid: 17,
      ownTicks: 150,
      reapedChildrenTicks: 570,
    });
  });

  it('rejects text that is not a stat line', () => {
    expect(() => parseProcStatEntry('hello')).toThrow(/not a \/proc/);
    expect(() => parseProcStatEntry('12 (x) S 1 2')).toThrow(/CPU times missing/);
  });
});

describe('processTreeTicks', () => {
  const postmaster = 100;
  it('adds the root and all its live descendants, own and reaped time, and nothing else', () => {
    const entries = [
      entry(1, 0, 999),
      entry(postmaster, 1, 10, 40),
      entry(101, postmaster, 5),
      entry(102, postmaster, 7, 3),
      entry(103, 102, 2),
      entry(200, 1, 1000),
    ];
    expect(processTreeTicks(postmaster, entries)).toBe(10 + 40 + 5 + 7 + 3 + 2);
  });

  it('counts a backend that exited between two readings once: its time moves to the reaped figure', () => {
    const before = [entry(postmaster, 1, 10, 0), entry(101, postmaster, 5), entry(102, postmaster, 8)];
    // 101 used 4 more ticks, exited and was reaped; 102 used 2 more; 103 started and used 6.
    const after = [entry(postmaster, 1, 11, 9), entry(102, postmaster, 10), entry(103, postmaster, 6)];
    const used = (processTreeTicks(postmaster, after) ?? 0) - (processTreeTicks(postmaster, before) ?? 0);
    expect(used).toBe(1 + 4 + 2 + 6);
  });

  it('is null when the root is gone', () => {
    expect(processTreeTicks(5, [entry(6, 1, 1)])).toBeNull();
  });

  it('stops at a cycle instead of looping (a pid reused while /proc was read)', () => {
    expect(processTreeTicks(7, [entry(7, 8, 1), entry(8, 7, 2)])).toBe(3);
  });
});

describe('CPU by group', () => {
  it('subtracts readings and sums rounds group by group', () => {
    const used = cpuBetweenReadings(cpu({ history: 1, postgres: 2 }), cpu({ history: 3.5, postgres: 2.5 }));
    expect(used).toEqual(cpu({ history: 2.5, postgres: 0.5 }));
    expect(sumCpu([used, cpu({ history: 1, bench: 2 })])).toEqual(
      cpu({ history: 3.5, postgres: 0.5, bench: 2 }),
    );
  });
});

describe('cluster figures', () => {
  const badge: ClusterScenarioResult = {
    scenario: scenario('badgeOrder', 2, [100, 200, 300, 400], 2),
    cpuSeconds: cpu({
      frontend: 0.04,
      history: 0.2,
      matching: 0.04,
      postgres: 0.12,
      sdkWorkers: 0.4,
      bench: 0.04,
    }),
  };

  it('divides CPU by completed orders, per group and in total', () => {
    const perOrder = clusterCpuPerOrderMs(badge);
    expect(perOrder.history).toBeCloseTo(50);
    expect(perOrder.sdkWorkers).toBeCloseTo(100);
    expect(perOrder.worker).toBe(0);
    expect(perOrder.total).toBeCloseTo(210);
  });

  it('names the busiest group with its share and the cores it kept busy', () => {
    const busiest = busiestGroup(badge);
    expect(busiest.group).toBe('sdkWorkers');
    expect(busiest.share).toBeCloseTo(0.4 / 0.84);
    expect(busiest.cores).toBeCloseTo(0.2);
    expect(coresUsed(badge)).toBeCloseTo(0.42);
  });

  it('finds the dev-server twin by kind, workers and concurrency, and shows it beside the cluster row', () => {
    const dev = [
      scenario('floor', 2, [50], 1),
      scenario('badgeOrder', 1, [50], 1),
      scenario('badgeOrder', 2, [80, 90], 0.5),
    ];
    expect(devServerTwin(dev, badge)).toBe(dev[2]);
    const results: ClusterBenchResults = {
      temporal: { version: 'v1.32.2', historyShards: 4 },
      workerCounts: [2],
      concurrencies: [10],
      loadAverage: { start: [1, 2, 3], end: [4, 5, 6] },
      totalSeconds: 60,
      scenarios: [badge],
    };
    const [row] = clusterRows(results, dev);
    expect(row).toEqual([
      'badgeOrder',
      '2',
      '10',
      '4',
      '2.0',
      '200',
      '400',
      '10.0',
      '50.0',
      '10.0',
      '0.0',
      '30.0',
      '100.0',
      '10.0',
      '210.0',
      '0.42',
      'sdkWorkers 48%',
      '4.0',
      '800.0',
      '3.5→4.3',
    ]);
    expect(clusterRows(results, [])[0]?.slice(-3, -1)).toEqual(['-', '-']);
    const report = formatClusterReport(results, dev);
    expect(report).toContain('Temporal v1.32.2 as four processes on PostgreSQL (4 history shards)');
    expect(report).toContain('load 1 2 3 → 4 5 6');
  });

  it('lists failed orders of a scenario under the table', () => {
    const failed: ClusterScenarioResult = {
      ...badge,
      scenario: { ...badge.scenario, orders: 5, failures: 1, failureSamples: ['deadline exceeded'] },
    };
    const results: ClusterBenchResults = {
      temporal: { version: 'v1.32.2', historyShards: 4 },
      workerCounts: [2],
      concurrencies: [10],
      loadAverage: { start: [1], end: [1] },
      totalSeconds: 1,
      scenarios: [failed],
    };
    expect(clusterRows(results, [])[0]?.[3]).toBe('4/5');
    expect(formatClusterReport(results, [])).toContain(
      'cluster badgeOrder w2 c10: 1 failed — deadline exceeded',
    );
  });
});
