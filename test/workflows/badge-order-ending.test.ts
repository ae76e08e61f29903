/**
 * The end of a run while something else still runs: an operator's update that arrives while the run waits for
 * its webhook deliveries before it continues as new, or after the order has ended; and a first step that fails
 * for another reason than the order's input. The webhook receiver holds every delivery unanswered until the test
 * lets it answer, so the run waits for its deliveries exactly as long as the test needs. Real dev server, real
 * sandbox over HTTP, real workers.
 */
import { createHash } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import pino from 'pino';
import {
  ReconcileOrderRejectedError,
  ReplaceDocumentRejectedError,
  SetDocumentOwnerRejectedError,
} from '../../src/client/badge-orders-client';
import type { BadgeOrderInput } from '../../src/contract';
import { createBadgeOrderWorker } from '../../src/worker/create-worker';
import { BadgeOrderStatus } from '../../src/workflow-contract';
import { useTestStack } from '../helpers/stack';
import { holdingReceiver, type HoldingReceiver } from '../../tools/dev/holding-receiver';
import { pollUntil } from '../../tools/dev/poll';
import type { LocalStack } from '../../tools/stack';

const SECRETS = { default: 'default-secret-0123456789' };
const vehicle = { licensePlate: 'E-ND 1', fuel: 'petrol' };
const badge = { type: 'green' };
const sha256 = (content: string): string => createHash('sha256').update(content).digest('hex');

/** A holding receiver ({@link holdingReceiver}) that the stack closes when it stops. */
async function heldReceiver(stack: Pick<LocalStack, 'onStop'>): Promise<HoldingReceiver> {
  const receiver = await holdingReceiver();
  stack.onStop('the holding webhook receiver', () => receiver.close());
  return receiver;
}

/** The updates history accepted: a validator's refusal leaves none. */
function acceptedUpdates(history: temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? []).flatMap((event) => {
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
    return accepted ? [accepted.acceptedRequest?.input?.name ?? ''] : [];
  });
}

describe('badgeOrder at the end of a run', () => {
  const stack = useTestStack({ resetSandbox: true });

  beforeAll(async () => {
    // The receivers listen on 127.0.0.1, on ports of their own, which the worker allows for webhooks here.
    await stack.local.startWorker({
      config: { webhooks: { secrets: SECRETS, allowHttpLoopback: true, allowedHosts: ['127.0.0.1:*'] } },
    });
  });

  afterEach(async () => {
    await stack.sandbox.control.setFaults({});
  });

  /** An order of one .gif, which the sandbox refuses (the order awaits repair), announced to `callbackUrl`. */
  function gifOrder(
    orderRef: string,
    callbackUrl: string,
    options: BadgeOrderInput['options'] = {},
  ): BadgeOrderInput & { documents: [{ path: string }] } {
    const path = stack.writeDocument(`${orderRef}/scan.gif`, `GIF89a ${orderRef}`);
    return { orderRef, vehicle, badge, documents: [{ path }], callbackUrl, options };
  }

  it('uploads a replacement sent while the run waits for its webhooks before continuing as new, and completes', async () => {
    const receiver = await heldReceiver(stack.local);
    const orderRef = 'end-replaced-while-continuing';
    const input = gifOrder(orderRef, receiver.callbackUrl, { historyBudgetEvents: 100 });
    const path = input.documents[0].path;
    const newPath = stack.writeDocument(`${orderRef}/scan.pdf`, `%PDF-1.4 ${orderRef}`);
    const started = await stack.orders.startOrder(input);
    // Each retry fails the .gif again and grows the history. The first round that ends past the budget leaves
    // the run `uploading`, waiting for its webhooks (held) before it continues as new, where an order under
    // the budget awaits repair.
    let view = await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.phase === 'awaiting-repair',
      { what: `${orderRef} awaiting repair` },
    );
    for (let cycle = 1; view.phase === 'awaiting-repair'; cycle += 1) {
      expect(cycle).toBeLessThanOrEqual(20);
      const attempts = view.documents[0]?.attempts ?? 0;
      await stack.orders.retryUploads(orderRef);
      view = await pollUntil(
        () => stack.orders.status(orderRef),
        (status) =>
          status.documents[0]?.status === 'failed' && (status.documents[0]?.attempts ?? 0) > attempts,
        { what: `repair cycle ${cycle} of ${orderRef}` },
      );
    }
    expect(view).toMatchObject({ phase: 'uploading', searchStatus: 'Running' });
    expect(view.webhooks?.pending).toBeGreaterThan(0);

    const replaced = stack.orders.replaceDocument(orderRef, { path, newPath });
    // Checked and queued while the run still waits for its deliveries; only the run's own loop uploads it.
    await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.documents[0]?.sourcePath === newPath && status.documents[0]?.status === 'pending',
      { what: `the replacement of ${path} queued` },
    );
    receiver.release();

    expect(await replaced).toMatchObject({ path, sourcePath: newPath, status: 'uploaded' });
    const result = await started.handle.result();
    expect(result.documents).toMatchObject([{ path, status: 'uploaded' }]);
    const description = await started.handle.describe();
    // Completed in the run that was about to continue: nothing was left for a next one.
    expect(description.runId).toBe(started.runId);
    expect(description.searchAttributes[BadgeOrderStatus.name]).toEqual(['Completed']);
    const stored = await stack.sandbox.control.listDocuments({ orderId: result.orderId });
    expect(stored.map((document) => [document.id, document.sha256])).toEqual([
      [result.documents[0]?.documentId, sha256(`%PDF-1.4 ${orderRef}`)],
    ]);
  });

  it('refuses updates once the order is cancelled, while its run still delivers the last webhooks', async () => {
    const receiver = await heldReceiver(stack.local);
    const orderRef = 'end-cancelled';
    const input = gifOrder(orderRef, receiver.callbackUrl);
    const path = input.documents[0].path;
    const newPath = stack.writeDocument(`${orderRef}/scan.pdf`, `%PDF-1.4 ${orderRef}`);
    const started = await stack.orders.startOrder(input);
    await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.phase === 'awaiting-repair',
      { what: `${orderRef} awaiting repair` },
    );
    await started.handle.cancel();
    await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.phase === 'cancelled',
      { what: `${orderRef} cancelled` },
    );

    const replacing = stack.orders.replaceDocument(orderRef, { path, newPath });
    await expect(replacing).rejects.toThrow(ReplaceDocumentRejectedError);
    await expect(replacing).rejects.toThrow('replaceDocument refused: the order has ended (Cancelled)');
    const correcting = stack.orders.setDocumentOwner(orderRef, { documentOwner: '4711' });
    await expect(correcting).rejects.toThrow(SetDocumentOwnerRejectedError);
    await expect(correcting).rejects.toThrow('setDocumentOwner refused: the order has ended (Cancelled)');
    // The order refused them, not a closed run: the run still waits for its deliveries.
    expect((await started.handle.describe()).status.name).toBe('RUNNING');

    receiver.release();
    const failure = await started.handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(acceptedUpdates(await started.handle.fetchHistory())).toEqual([]);
    const view = await stack.orders.status(orderRef);
    expect(view.documents).toMatchObject([{ path, sourcePath: path, status: 'failed' }]);
    expect(await stack.sandbox.control.listDocuments({ orderId: view.orderId ?? '-1' })).toEqual([]);
  });

  it('refuses reconcileOrder once the reconciliation deadline failed the order, while its last webhook is delivered', async () => {
    const receiver = await heldReceiver(stack.local);
    const orderRef = 'end-reconciliation-deadline';
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'commit-then-500' }] });
    const started = await stack.orders.startOrder({
      orderRef,
      vehicle,
      badge,
      documents: [],
      callbackUrl: receiver.callbackUrl,
      options: { reconciliationWindowMs: 1_000 },
    });
    const failed = await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.phase === 'failed',
      { what: `${orderRef} failed` },
    );
    expect(failed.failure).toMatch(/Reconciliation deadline passed/);
    const createdId = (await stack.sandbox.control.state()).orders[0]?.id as string;

    const answering = stack.orders.reconcileOrder(orderRef, { orderId: createdId });
    await expect(answering).rejects.toThrow(ReconcileOrderRejectedError);
    await expect(answering).rejects.toThrow('reconcileOrder refused: the order has ended (Failed)');
    expect((await started.handle.describe()).status.name).toBe('RUNNING');

    receiver.release();
    const failure = await started.handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('RECONCILIATION_DEADLINE_PASSED');
    expect(acceptedUpdates(await started.handle.fetchHistory())).toEqual([]);
    // The answer was not taken: the failed order names no order id, and the platform holds the one it had.
    expect((await stack.orders.status(orderRef)).orderId).toBeNull();
    expect((await stack.sandbox.control.state()).orders.map((order) => order.id)).toEqual([createdId]);
  });

  it('ends Failed when its first step fails for another reason than the input, and says so in BadgeOrderStatus', async () => {
    const taskQueue = `${stack.taskQueue}-first-step-fails`;
    // A worker whose first step cannot run (its attempts all fail), whatever the order's input.
    const { worker, connection, client } = await createBadgeOrderWorker(
      {
        ...stack.workerConfig,
        temporal: { ...stack.workerConfig.temporal, address: stack.temporal.server.address, taskQueue },
      },
      pino({ level: 'silent' }),
      {
        workflowBundle: stack.local.workflowBundle.bundle,
        activities: {
          resolveInputAndSignIn: () => Promise.reject(new Error('the worker cannot read its settings')),
        },
      },
    );
    try {
      await worker.runUntil(async () => {
        const started = await stack.local
          .orders(taskQueue)
          .startOrder({ orderRef: 'end-first-step', vehicle, badge, documents: [] });
        const failure = await started.handle.result().then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(WorkflowFailedError);
        const cause = (failure as WorkflowFailedError).cause;
        // The local activity's failure, as its last attempt failed.
        expect(cause).toBeInstanceOf(ApplicationFailure);
        expect(cause?.message).toBe('the worker cannot read its settings');
        const description = await started.handle.describe();
        expect(description.status.name).toBe('FAILED');
        expect(description.searchAttributes[BadgeOrderStatus.name]).toEqual(['Failed']);
      });
    } finally {
      await client.connection.close();
      await connection.close();
    }
  });
});
