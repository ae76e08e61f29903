import type { SandboxStats } from '../../src/sandbox';
import {
  combineServerWork,
  cpuSecondsBetween,
  parseLoadAverage,
  parseProcStat,
  parseProcStatus,
  parseServerWork,
  percentile,
  perOrder,
  statsDelta,
  summariseLatencies,
} from '../../bench/metrics';

describe('percentile (nearest rank)', () => {
  const values = [15, 20, 35, 40, 50];

  it('picks the nearest-rank element of the sorted values', () => {
    expect(percentile(values, 30)).toBe(20);
    expect(percentile(values, 40)).toBe(20);
    expect(percentile(values, 50)).toBe(35);
    expect(percentile(values, 100)).toBe(50);
    expect(percentile(values, 0)).toBe(15);
  });

  it('does not depend on the input order and does not sort the input in place', () => {
    const shuffled = [50, 15, 40, 35, 20];
    expect(percentile(shuffled, 95)).toBe(50);
    expect(shuffled).toEqual([50, 15, 40, 35, 20]);
  });

  it('gives p99 of 100 values as the 99th smallest', () => {
    const hundred = Array.from({ length: 100 }, (_, index) => 100 - index);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 50)).toBe(50);
  });

  it('is NaN without values and refuses a p outside 0..100', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile(values, 101)).toThrow(RangeError);
  });
});

describe('summariseLatencies', () => {
  it('summarises count, min, percentiles, max and mean', () => {
    expect(summariseLatencies([10, 30, 20, 40])).toEqual({
      count: 4,
      minMs: 10,
      p50Ms: 20,
      p95Ms: 40,
      p99Ms: 40,
      maxMs: 40,
      meanMs: 25,
    });
  });

  it('reports NaN for an empty run', () => {
    const summary = summariseLatencies([]);
    expect(summary.count).toBe(0);
    expect(summary.p50Ms).toBeNaN();
    expect(summary.meanMs).toBeNaN();
  });
});

describe('/proc parsing', () => {
  it('reads utime and stime (fields 14 and 15) even when the command name has spaces and parentheses', () => {
    const line =
      '4242 (node (worker) x) S 1 4242 4242 0 -1 4194560 12000 0 3 0 1234 567 0 0 20 0 11 0 9999 1234567 8901 ' +
      '18446744073709551615 1 1 0 0 0 0 0 4096 134234626 0 0 0 17 1 0 0 0 0 0\n';
    expect(parseProcStat(line)).toEqual({ utimeTicks: 1234, stimeTicks: 567 });
  });

  it('refuses text that is not a stat line', () => {
    expect(() => parseProcStat('hello')).toThrow('no ")"');
    expect(() => parseProcStat('1 (x) S 1')).toThrow('utime/stime missing');
  });

  it('turns ticks into CPU seconds at 100 ticks per second', () => {
    expect(
      cpuSecondsBetween({ utimeTicks: 100, stimeTicks: 50 }, { utimeTicks: 350, stimeTicks: 100 }),
    ).toBeCloseTo(3);
  });

  it('reads VmRSS and VmHWM in bytes from /proc/<pid>/status', () => {
    const status = [
      'Name:\tnode',
      'VmPeak:\t 1200000 kB',
      'VmHWM:\t  250000 kB',
      'VmRSS:\t  200000 kB',
      'Threads:\t11',
    ].join('\n');
    expect(parseProcStatus(status)).toEqual({ rssBytes: 200000 * 1024, peakRssBytes: 250000 * 1024 });
  });

  it('refuses a status text without the memory lines', () => {
    expect(() => parseProcStatus('Name:\tnode\n')).toThrow('VmRSS');
  });

  it('reads the load averages', () => {
    expect(parseLoadAverage('1.50 0.75 0.25 3/200 12345\n')).toEqual([1.5, 0.75, 0.25]);
    expect(() => parseLoadAverage('x')).toThrow('loadavg');
  });
});

describe('sandbox stats differences', () => {
  const stats = (
    requests: SandboxStats['requests'],
    totalRequests: number,
    issued: number,
  ): SandboxStats => ({
    requests,
    totalRequests,
    authCalls: { issued, rejected: 0 },
    faults: {},
    idempotentReplays: 0,
  });

  it('counts the requests between two snapshots by route, over every status', () => {
    const before = stats({ auth: { '200': 1 }, orders: { '201': 2 } }, 3, 1);
    const after = stats(
      {
        auth: { '200': 1 },
        orders: { '201': 12 },
        documents: { '201': 19, '503': 1 },
        stocks: { '200': 10 },
      },
      43,
      1,
    );
    const delta = statsDelta(before, after);
    expect(delta).toEqual({
      byRoute: { documents: 20, orders: 10, stocks: 10 },
      total: 40,
      authIssued: 0,
      authRejected: 0,
    });
    expect(perOrder(delta, 10)).toEqual({ documents: 2, orders: 1, stocks: 1 });
  });
});

describe("the Temporal server's work from its Prometheus counters", () => {
  const exposition = (tasks: number, backlog: number) =>
    [
      '# HELP task_latency_count task_latency_count counter',
      '# TYPE task_latency_count counter',
      `task_latency_count{archetype="workflow",operation="TransferActiveTaskWorkflowTask",service_name="history",task_type="TransferActiveTaskWorkflowTask"} ${tasks}`,
      'task_latency_count{archetype="workflow",operation="TransferActiveTaskCloseExecution",service_name="history",task_type="TransferActiveTaskCloseExecution"} 7',
      'task_latency_count{operation="VisibilityTaskStartExecution",task_type="VisibilityTaskStartExecution"} 10',
      'task_latency_count{operation="VisibilityTaskUpsertExecution",task_type="VisibilityTaskUpsertExecution"} 20',
      'task_latency_count{operation="VisibilityTaskCloseExecution",task_type="VisibilityTaskCloseExecution"} 9',
      `persistence_latency_count{namespace="default",operation="CreateTasks",service_name="matching"} ${backlog}`,
      'persistence_latency_count{operation="UpdateWorkflowExecution",service_name="history"} 90',
      'persistence_latency_count{operation="CreateWorkflowExecution",service_name="history"} 10',
      'persistence_latency_count{operation="GetTasks",service_name="matching"} 44',
      'persistence_latency_count{namespace="default",operation="GetNamespace",service_name="frontend"} 4',
      'persistence_latency_count{namespace="system",operation="GetClusterMetadata",service_name="server"} 1',
      'persistence_latency_sum{operation="CreateTasks",service_name="matching"} 0.5',
      'go_goroutines 812',
    ].join('\n');

  it('sums the samples of each figure and leaves out every other counter', () => {
    expect(parseServerWork(exposition(30, 12.5))).toEqual({
      workflowTasks: 30,
      backlogWrites: 12.5,
      visibilityTasks: 39,
      stateWrites: 100,
      definitionReads: 5,
    });
  });

  it('counts 0 for counters the server has not reported yet', () => {
    expect(parseServerWork('# nothing yet\ngo_goroutines 3\n')).toEqual({
      workflowTasks: 0,
      backlogWrites: 0,
      visibilityTasks: 0,
      stateWrites: 0,
      definitionReads: 0,
    });
  });

  it('subtracts and adds figure by figure', () => {
    const before = parseServerWork(exposition(30, 12));
    const after = parseServerWork(exposition(45, 20));
    expect(combineServerWork(after, before, (to, from) => to - from)).toEqual({
      workflowTasks: 15,
      backlogWrites: 8,
      visibilityTasks: 0,
      stateWrites: 0,
      definitionReads: 0,
    });
    expect(combineServerWork(after, before, (a, b) => a + b).workflowTasks).toBe(75);
  });
});
