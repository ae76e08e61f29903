/**
 * The faults of a cluster, one after the other, each while orders are in flight: the history service killed
 * with SIGKILL (and started again), matching restarted, PostgreSQL restarted, a worker process killed with
 * SIGKILL (and replaced), and a worker in its own network namespace cut off from the frontend (and the
 * platform) for 30 s. After each, every order of its batch must settle as planned — Completed, or
 * AwaitingRepair only for the document the sandbox refuses on purpose — with the platform holding each order
 * once and each accepted document once (the sandbox honours `Idempotency-Key`, and the workers are told so).
 * The figures (time to inject, time until every order settled) are printed at the end.
 */
import { BadgeOrderId, BadgeOrderStatus } from '../../src/workflow-contract';
import type { ClusterWorker } from '../../tools/cluster';
import { planOrders, type PlannedOrder } from '../../tools/chaos/chaos-orders';
import { checkGroundTruth } from '../../tools/chaos/ground-truth';
import { pollUntil } from '../../tools/dev/poll';
import { useCluster } from './cluster-fixture';

const ORDERS_PER_FAULT = 5;
const PARTITION_MS = 30_000;

interface Figures {
  readonly fault: string;
  readonly orders: number;
  /** From the fault's start until the cluster (or worker) was whole again. */
  readonly faultMs: number;
  /** From then until every order of the batch had settled. */
  readonly settledAfterMs: number;
  readonly completed: number;
  readonly awaitingRepair: number;
}

const figures: Figures[] = [];
const pause = (ms: number): Promise<void> => new Promise((resolvePause) => setTimeout(resolvePause, ms));

describe('a cluster under faults', () => {
  const cluster = useCluster({
    workers: 2,
    networkNamespaces: true,
    webUi: false,
    workerEnv: { BADGE_IDEMPOTENCY_KEYS: 'honoured' },
  });
  const plan = planOrders(ORDERS_PER_FAULT * 5);
  const placed: PlannedOrder[] = [];
  let isolated: ClusterWorker;

  beforeAll(async () => {
    // Latency keeps orders in flight long enough for a fault to land mid-order.
    await cluster().stack.sandbox.control.setFaults({ latencyMs: { min: 100, max: 400 } });
    isolated = await cluster().startWorker({ isolated: true });
  }, 300_000);

  afterAll(async () => {
    const cpu = await cluster()
      .temporal.cpuMs()
      .catch(() => null);
    const lines = figures.map(
      (entry) =>
        `  ${entry.fault.padEnd(34)} ${String(entry.orders).padStart(2)} orders  fault ${(entry.faultMs / 1000).toFixed(1).padStart(5)} s  ` +
        `all settled ${(entry.settledAfterMs / 1000).toFixed(1).padStart(5)} s later  ` +
        `(${entry.completed} Completed, ${entry.awaitingRepair} AwaitingRepair as planned)`,
    );
    const cpuLine = cpu
      ? `  CPU of the Temporal services: ${Object.entries(cpu)
          .map(([service, ms]) => `${service} ${(ms / 1000).toFixed(1)} s`)
          .join(', ')}`
      : '';
    console.log(['Cluster chaos figures:', ...lines, cpuLine].join('\n'));
  });

  /** Starts the next batch and resolves once one of its orders exists on the platform (mid-order). */
  async function startBatch(): Promise<PlannedOrder[]> {
    const batch = plan.slice(placed.length, placed.length + ORDERS_PER_FAULT);
    placed.push(...batch);
    const { stack } = cluster();
    for (const planned of batch) {
      for (const document of planned.documents) stack.writeDocument(document.path, document.content);
      await stack.orders().startOrder(planned.input);
    }
    await pollUntil(
      async () =>
        Promise.all(
          batch.map(async (planned) =>
            (await stack.orders().getHandle(planned.orderRef).describe()).typedSearchAttributes.get(
              BadgeOrderId,
            ),
          ),
        ),
      (orderIds) => orderIds.some((orderId) => orderId !== undefined),
      { what: 'an order of the batch under way', timeoutMs: 120_000 },
    );
    return batch;
  }

  /** Waits until every order of `batch` settled as planned, then checks the platform's holdings. */
  async function settleAndCheck(
    fault: string,
    batch: readonly PlannedOrder[],
    startedAt: number,
    wholeAt: number,
  ) {
    const { stack } = cluster();
    const settled = async (planned: PlannedOrder): Promise<boolean> => {
      const description = await stack.orders().getHandle(planned.orderRef).describe();
      const status = description.typedSearchAttributes.get(BadgeOrderStatus);
      return planned.expected === 'Completed'
        ? description.status.name === 'COMPLETED'
        : description.status.name === 'RUNNING' && status === 'AwaitingRepair';
    };
    await pollUntil(
      async () => (await Promise.all(batch.map(settled))).every(Boolean),
      (done) => done,
      { what: `every order of the ${fault} batch settled`, timeoutMs: 240_000, intervalMs: 250 },
    );
    const settledAt = Date.now();

    const flags = new Map<string, boolean>();
    for (const planned of placed) {
      const view = await stack.orders().status(planned.orderRef);
      for (const document of view.documents) flags.set(document.path, document.possibleDuplicate);
    }
    const violations: string[] = [];
    const documents = checkGroundTruth({
      state: await stack.sandbox.control.state(),
      planned: placed,
      flags,
      keysHonoured: true,
      violations,
    });
    expect(violations).toEqual([]);
    expect(documents).toMatchObject({ lost: 0, duplicated: 0 });
    figures.push({
      fault,
      orders: batch.length,
      faultMs: wholeAt - startedAt,
      settledAfterMs: settledAt - wholeAt,
      completed: batch.filter((planned) => planned.expected === 'Completed').length,
      awaitingRepair: batch.filter((planned) => planned.expected === 'AwaitingRepair').length,
    });
  }

  it('survives a SIGKILL of the history service mid-order', async () => {
    const batch = await startBatch();
    const startedAt = Date.now();
    await cluster().temporal.kill('history', 'SIGKILL');
    await cluster().temporal.start('history');
    await settleAndCheck('history SIGKILL, then started', batch, startedAt, Date.now());
  });

  it('survives a restart of the matching service', async () => {
    const batch = await startBatch();
    const startedAt = Date.now();
    await cluster().temporal.restart('matching');
    await settleAndCheck('matching restart', batch, startedAt, Date.now());
  });

  it('survives a restart of PostgreSQL', async () => {
    const batch = await startBatch();
    const startedAt = Date.now();
    await cluster().postgres.restart();
    await settleAndCheck('PostgreSQL restart', batch, startedAt, Date.now());
  });

  it('survives a SIGKILL of a worker process', async () => {
    const batch = await startBatch();
    const victim = cluster().workers.find((worker) => worker.network === null && worker.process.running());
    expect(victim).toBeDefined();
    const startedAt = Date.now();
    await victim?.process.kill('SIGKILL');
    await cluster().startWorker();
    await settleAndCheck('worker SIGKILL, then replaced', batch, startedAt, Date.now());
  });

  it('survives a worker cut off from the frontend for 30 s', async () => {
    const batch = await startBatch();
    const network = isolated.network;
    expect(network).not.toBeNull();
    const startedAt = Date.now();
    await network?.disconnect();
    // The partition's length is the fault itself, not a wait for something to happen.
    await pause(PARTITION_MS);
    await network?.reconnect();
    expect(isolated.process.running()).toBe(true);
    // Whole again once the cut-off worker polls again.
    await cluster().stack.waitUntilPolling([isolated.process]);
    await settleAndCheck('worker partitioned 30 s (netns)', batch, startedAt, Date.now());
  });
});
