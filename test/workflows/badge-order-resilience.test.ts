/**
 * Crashes and faults in the middle of an order: a worker process killed with SIGKILL, the platform storing
 * then failing (commit-then-fail), the Temporal server restarted. After each, the order completes and the
 * platform holds exactly one order and each document exactly once.
 */
import { createHash } from 'node:crypto';
import type { BadgeOrderInput } from '../../src/contract';
import { startTestStack, type TestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';
import {
  completedAt,
  holdUploads,
  killedUploadEnded,
  startedAttemptOf,
  uploadInFlight,
} from '../helpers/held-upload';

const vehicle = { licensePlate: 'M-AB 42', fuel: 'petrol' };
const badge = { type: 'green' };
const sha256 = (content: string): string => createHash('sha256').update(content).digest('hex');

/** Writes `count` distinct PDFs and returns an order over them. */
function orderWithDocuments(stack: TestStack, orderRef: string, count: number): BadgeOrderInput {
  const documents = Array.from({ length: count }, (_, index) => ({
    path: stack.writeDocument(`${orderRef}/doc-${index}.pdf`, `%PDF ${orderRef} document ${index}`),
  }));
  return {
    orderRef,
    vehicle,
    badge,
    documents,
    // One upload at a time, so a crash lands in one document's; a dead worker's upload is retried soon.
    options: { maxParallelUploads: 1, uploadHeartbeatTimeoutMs: 3_000 },
  };
}

/** The platform holds one order, and every document of it exactly once. */
async function expectExactlyOnce(
  stack: TestStack,
  orderRef: string,
  count: number,
  orderId: string,
): Promise<void> {
  const state = await stack.sandbox.control.state();
  expect(state.orders.map((order) => order.id)).toEqual([orderId]);
  const hashes = state.documents.map((document) => document.sha256).sort();
  const expected = Array.from({ length: count }, (_, index) =>
    sha256(`%PDF ${orderRef} document ${index}`),
  ).sort();
  expect(hashes).toEqual(expected);
  expect(state.documents.every((document) => document.document_type_id === orderId)).toBe(true);
}

describe('badgeOrder under crashes and faults', () => {
  let stack: TestStack;

  beforeAll(async () => {
    // A database file in the stack's scratch folder, which the restart needs and the teardown removes.
    stack = await startTestStack({ temporal: { persistent: true } });
  });

  afterAll(async () => {
    await stack?.teardown();
  });

  beforeEach(async () => {
    await stack.sandbox.control.reset();
    await stack.sandbox.control.setFaults({});
  });

  it('completes after the worker process is killed with SIGKILL in the middle of the uploads', async () => {
    // The first upload is held by the platform until long after the kill, and has ended (storing nothing)
    // before a second worker sends it again, answered at once.
    const held = await holdUploads(stack.sandbox.control, 10_000);
    const first = stack.startWorkerProcess();
    const input = orderWithDocuments(stack, 'sigkill-1', 4);
    const started = await stack.orders.startOrder(input);
    const killed = await uploadInFlight(started.handle, stack.sandbox.control, held);
    await first.kill('SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    await killedUploadEnded(stack.sandbox.control);

    const second = stack.startWorkerProcess();
    const result = await started.handle.result();
    await second.kill('SIGTERM');
    expect(result.documents).toHaveLength(4);
    await expectExactlyOnce(stack, 'sigkill-1', 4, result.orderId);
    // The kill landed mid-upload: the upload it interrupted was sent again by a later attempt, and flagged.
    expect(await startedAttemptOf(started.handle, killed)).toBeGreaterThan(1);
    expect(result.documents.filter((document) => document.possibleDuplicate)).toHaveLength(1);
  });

  it('lets an order creation in flight finish when its worker is stopped with SIGTERM: the order is not held', async () => {
    const heldBefore = (await stack.sandbox.control.stats()).faults.latency ?? 0;
    // The platform answers the creation after 3 s; the worker is told to stop while it waits.
    await stack.sandbox.control.setFaults({ latencyMs: 3_000, routes: ['orders'] });
    const first = stack.startWorkerProcess();
    const started = await stack.orders.startOrder(orderWithDocuments(stack, 'sigterm-create', 1));
    await pollUntil(
      async () => (await stack.sandbox.control.stats()).faults.latency ?? 0,
      (held) => held > heldBefore,
      { what: 'the order creation held by the platform' },
    );
    await first.kill('SIGTERM');
    expect(first.child.exitCode).toBe(0);
    await stack.sandbox.control.setFaults({});

    const second = stack.startWorkerProcess();
    try {
      const settled = await pollUntil(
        () => stack.orders.status('sigterm-create'),
        (view) => view.phase === 'completed' || view.phase === 'awaiting-reconciliation',
        { what: 'sigterm-create to complete or wait for a person' },
      );
      expect(settled.phase).toBe('completed');
    } finally {
      await second.kill('SIGTERM');
    }
    const result = await started.handle.result();
    await expectExactlyOnce(stack, 'sigterm-create', 1, result.orderId);
    // The stopping worker finished the creation's one attempt itself.
    const events = (await started.handle.fetchHistory()).events ?? [];
    expect(events.filter((event) => event.activityTaskCompletedEventAttributes)).not.toHaveLength(0);
    expect(events.filter((event) => event.activityTaskFailedEventAttributes)).toEqual([]);
  });

  it('creates one order and one copy of each document when a platform that honours keys stores and then fails', async () => {
    await stack.sandbox.control.setFaults({
      failNext: [
        { route: 'orders', kind: 'commit-then-drop', count: 1 },
        { route: 'documents', kind: 'commit-then-503', count: 2 },
      ],
    });
    // The sandbox's reference platform honours Idempotency-Key, and this worker is told so: a creation of
    // unknown outcome is sent again with the same key instead of waiting for reconciliation.
    const worker = stack.startWorkerProcess({ BADGE_IDEMPOTENCY_KEYS: 'honoured' });
    try {
      const started = await stack.orders.startOrder(orderWithDocuments(stack, 'commit-fail-1', 3));
      const result = await started.handle.result();
      await expectExactlyOnce(stack, 'commit-fail-1', 3, result.orderId);
      const stats = await stack.sandbox.control.stats();
      expect(JSON.stringify(stats)).toMatch(/commit-then/);
      expect(stats.idempotentReplays).toBeGreaterThanOrEqual(3);
      // Uploads run one at a time, so both stored-then-failed attempts were the first document's: it alone is
      // flagged as possibly stored twice (this platform kept one copy, as the key asked).
      expect(
        result.documents.filter((document) => document.possibleDuplicate).map((document) => document.path),
      ).toEqual(['commit-fail-1/doc-0.pdf']);
    } finally {
      await worker.kill('SIGTERM');
    }
  });

  it('completes when the Temporal server restarts in the middle of an order', async () => {
    // Uploads are held 5 s each until the restart is done: the order cannot finish before the server stops.
    const held = await holdUploads(stack.sandbox.control, 5_000);
    const worker = await stack.startWorker();
    try {
      const started = await stack.orders.startOrder(orderWithDocuments(stack, 'restart-1', 4));
      await uploadInFlight(started.handle, stack.sandbox.control, held);
      const restartBegan = Date.now();
      await stack.restartTemporal();
      await stack.sandbox.control.setFaults({});
      // The worker reconnects by itself; the order is read through a client of the restarted server.
      const handle = stack.orders.getHandle('restart-1');
      const result = await handle.result();
      await expectExactlyOnce(stack, 'restart-1', 4, result.orderId);
      // The restart landed mid-order: the order was completed by the restarted server.
      expect(await completedAt(handle)).toBeGreaterThan(restartBegan);
    } finally {
      await worker.stop();
    }
  });
});
