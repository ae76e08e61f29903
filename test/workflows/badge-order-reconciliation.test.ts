/**
 * Orders whose creation may or may not have happened: held in AwaitingReconciliation, never created twice,
 * resolved by an operator's `reconcileOrder`; deadlines, cancellation during creation, and starting again
 * after a run that left an order on the platform. Real dev server, real sandbox over HTTP, real workers.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { BadgeOrderId, BadgeOrderStatus } from '../../src/workflow-contract';
import { OrderMayExistError, ReconcileOrderRejectedError } from '../../src/client/badge-orders-client';
import { useTestStack, type TestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'B-RC 1', fuel: 'petrol' };
const badge = { type: 'green' };

function order(stack: TestStack, orderRef: string, options: Record<string, number> = {}) {
  const path = stack.writeDocument(`${orderRef}/photo.jpg`, `photo of ${orderRef}`);
  return { orderRef, vehicle, badge, documents: [{ path }], options };
}

async function awaitingReconciliation(stack: TestStack, orderRef: string) {
  return pollUntil(
    () => stack.orders.status(orderRef),
    (status) => status.searchStatus === 'AwaitingReconciliation',
    { what: `${orderRef} awaiting reconciliation` },
  );
}

describe('badgeOrder with an unknown creation outcome', () => {
  const stack = useTestStack({ worker: true, resetSandbox: true });

  it('holds an order the platform stored before failing, and continues with the id an operator gives', async () => {
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'commit-then-500' }] });
    const started = await stack.orders.startOrder(order(stack, 'rc-stored'));
    const held = await awaitingReconciliation(stack, 'rc-stored');

    expect(held).toMatchObject({ phase: 'awaiting-reconciliation', orderId: null });
    expect(held.reconciliation?.idempotencyKey).toBe('badge-order-rc-stored:create:without-stock');
    expect(held.reconciliation?.reason).toMatch(/SERVER_ERROR/);
    expect(held.reconciliationDeadline).not.toBeNull();
    // Nothing was sent again: the platform holds the one order the failed attempt created.
    const platform = await stack.sandbox.control.state();
    expect(platform.orders).toHaveLength(1);
    const createdId = platform.orders[0]?.id as string;
    expect((await started.handle.describe()).searchAttributes[BadgeOrderStatus.name]).toEqual([
      'AwaitingReconciliation',
    ]);

    const answered = await stack.orders.reconcileOrder('rc-stored', { orderId: createdId });
    expect(answered.orderId).toBe(createdId);
    const result = await started.handle.result();

    expect(result.orderId).toBe(createdId);
    const after = await stack.sandbox.control.state();
    expect(after.orders).toHaveLength(1);
    expect(after.documents.map((document) => document.document_type_id)).toEqual([createdId]);
    expect((await started.handle.describe()).searchAttributes[BadgeOrderId.name]).toEqual([
      String(createdId),
    ]);
  });

  it.each([
    ['500', 'error-500', /^SERVER_ERROR: [^;]*$/],
    ['429', 'rate-limit', /^SERVER_ERROR: .*; then RATE_LIMITED: /],
  ] as const)(
    'holds, never rejects, an order that a platform honouring keys may hold, answering %s until the retry window passes',
    async (_status, kind, reason) => {
      const orderRef = `rc-honoured-window-${kind}`;
      // The platform stores the order and answers 500, then `kind` to every attempt with the same key.
      await stack.sandbox.control.setFaults({
        failNext: [
          { route: 'orders', kind: 'commit-then-500' },
          { route: 'orders', kind, count: 50 },
        ],
      });
      await stack.withWorkerProcess({ BADGE_IDEMPOTENCY_KEYS: 'honoured' }, async () => {
        const started = await stack.orders.startOrder(
          order(stack, orderRef, { platformRetryWindowMs: 3_000 }),
        );
        const held = await awaitingReconciliation(stack, orderRef);

        const platform = await stack.sandbox.control.state();
        expect(platform.orders).toHaveLength(1);
        const createdId = platform.orders[0]?.id as string;
        expect(held.reconciliation?.idempotencyKey).toBe(`badge-order-${orderRef}:create:without-stock`);
        // The attempt that may have created it, and what the platform answered after it.
        expect(held.reconciliation?.reason).toMatch(reason);
        expect((await stack.sandbox.control.stats()).faults[kind]).toBeGreaterThanOrEqual(1);

        await stack.orders.reconcileOrder(orderRef, { orderId: createdId });
        expect((await started.handle.result()).orderId).toBe(createdId);
        expect((await stack.sandbox.control.state()).orders).toHaveLength(1);
      });
    },
  );

  it('creates the order once an operator says the platform holds none', async () => {
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'drop' }] });
    const started = await stack.orders.startOrder(order(stack, 'rc-absent'));
    await awaitingReconciliation(stack, 'rc-absent');
    expect((await stack.sandbox.control.state()).orders).toHaveLength(0);

    await stack.orders.reconcileOrder('rc-absent', { notCreated: true });
    const result = await started.handle.result();

    const platform = await stack.sandbox.control.state();
    expect(platform.orders.map((created) => created.id)).toEqual([result.orderId]);
    expect(platform.documents).toHaveLength(1);
  });

  it('retries creation within a new retry window once an operator says no order was created, however late', async () => {
    const orderRef = 'rc-absent-late';
    const windowMs = 5_000;
    // The platform is slow, then drops the connection: the attempt that may have created the order outlasts the
    // retry window (as an operator's answer after a day does with the default window).
    await stack.sandbox.control.setFaults({
      latencyMs: windowMs + 500,
      routes: ['orders'],
      failNext: [{ route: 'orders', kind: 'drop' }],
    });
    const startedAt = Date.now();
    const started = await stack.orders.startOrder(
      order(stack, orderRef, { platformRetryWindowMs: windowMs }),
    );
    const held = await awaitingReconciliation(stack, orderRef);
    expect(Date.parse(held.reconciliation?.since ?? '') - startedAt).toBeGreaterThanOrEqual(windowMs);
    expect((await stack.sandbox.control.state()).orders).toHaveLength(0);

    // The first attempt after the answer is refused without being sent: retried, not a reason to reject.
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'rate-limit' }] });
    await stack.orders.reconcileOrder(orderRef, { notCreated: true });
    const result = await started.handle.result();

    expect((await stack.sandbox.control.stats()).faults['rate-limit']).toBe(1);
    const platform = await stack.sandbox.control.state();
    expect(platform.orders.map((created) => created.id)).toEqual([result.orderId]);
    expect(platform.documents.map((document) => document.document_type_id)).toEqual([result.orderId]);
  });

  it('retries by itself what was surely not sent: 429 answers create nothing', async () => {
    await stack.sandbox.control.setFaults({
      failNext: [{ route: 'orders', kind: 'rate-limit', count: 2 }],
    });
    const result = await (await stack.orders.startOrder(order(stack, 'rc-ratelimited'))).handle.result();
    const platform = await stack.sandbox.control.state();
    expect(platform.orders.map((created) => created.id)).toEqual([result.orderId]);
  });

  it('refuses a reconcileOrder that does not apply, naming why', async () => {
    const started = await stack.orders.startOrder(order(stack, 'rc-refused'));
    await started.handle.result();
    await expect(stack.orders.reconcileOrder('rc-refused', { orderId: 1 })).rejects.toThrow(
      ReconcileOrderRejectedError,
    );

    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'commit-then-500' }] });
    await stack.orders.startOrder(order(stack, 'rc-invalid'));
    await awaitingReconciliation(stack, 'rc-invalid');
    await expect(stack.orders.reconcileOrder('rc-invalid', { orderId: -3 })).rejects.toThrow(
      /orderId: must not be negative/,
    );
    // A number JSON.parse has rounded cannot name the order: the refusal says to send the digits as a string.
    await expect(stack.orders.reconcileOrder('rc-invalid', { orderId: 2 ** 60 })).rejects.toThrow(
      /orderId: is beyond 2\^53 and cannot arrive intact as a JSON number: send it as a string/,
    );
    await expect(stack.orders.reconcileOrder('rc-invalid', { orderId: '12a' })).rejects.toThrow(
      /orderId: must be the platform's order id: 1 to 64 digits/,
    );
    await expect(
      stack.orders.reconcileOrder('rc-invalid', {} as unknown as { orderId: string }),
    ).rejects.toThrow(/must be \{ "orderId": "<digits>" \} or \{ "notCreated": true \}/);
    // Still waiting after the refusals; answer it so the run ends. Callers of earlier releases send a number:
    // taken as its digits.
    const createdId = (await stack.sandbox.control.state()).orders[0]?.id as string;
    const answered = await stack.orders.reconcileOrder('rc-invalid', { orderId: Number(createdId) });
    expect(answered.orderId).toBe(createdId);
    expect((await stack.orders.getHandle('rc-invalid').result()).orderId).toBe(createdId);
  });

  it('fails at the reconciliation deadline, and refuses to start the order again while it may exist', async () => {
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'commit-then-500' }] });
    const started = await stack.orders.startOrder(
      order(stack, 'rc-deadline', { reconciliationWindowMs: 1_000 }),
    );
    const failure = await started.handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('RECONCILIATION_DEADLINE_PASSED');
    expect(cause?.message).toMatch(/badge-order-rc-deadline:create/);
    const description = await started.handle.describe();
    expect(description.searchAttributes[BadgeOrderStatus.name]).toEqual(['Failed']);

    const again = stack.orders.startOrder(order(stack, 'rc-deadline'));
    await expect(again).rejects.toThrow(OrderMayExistError);
    // The key the creation was sent with, from the failure (the order has no stock).
    await expect(again).rejects.toThrow('(Idempotency-Key badge-order-rc-deadline:create:without-stock)');
    expect((await stack.sandbox.control.state()).orders).toHaveLength(1);
  });

  it('refuses to start again an order whose failed run had created it, naming the order id', async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    const started = await stack.orders.startOrder(
      order(stack, 'rc-repair-expired', { repairWindowMs: 1_000 }),
    );
    await expect(started.handle.result()).rejects.toThrow(WorkflowFailedError);
    const createdId = (await stack.sandbox.control.state()).orders[0]?.id as string;

    const again = stack.orders.startOrder(order(stack, 'rc-repair-expired'));
    await expect(again).rejects.toThrow(OrderMayExistError);
    await expect(again).rejects.toThrow(new RegExp(`order ${createdId}`));
    expect((await stack.sandbox.control.state()).orders).toHaveLength(1);
  });

  it('ends Cancelled while awaiting reconciliation, still naming the key to check, and is not started again', async () => {
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'commit-then-500' }] });
    const started = await stack.orders.startOrder(order(stack, 'rc-cancel-held'));
    await awaitingReconciliation(stack, 'rc-cancel-held');
    await started.handle.cancel();
    const failure = await started.handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );

    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const view = await stack.orders.status('rc-cancel-held');
    expect(view).toMatchObject({ phase: 'cancelled', searchStatus: 'Cancelled', orderId: null });
    expect(view.reconciliation?.idempotencyKey).toBe('badge-order-rc-cancel-held:create:without-stock');
    const again = stack.orders.startOrder(order(stack, 'rc-cancel-held'));
    await expect(again).rejects.toThrow(OrderMayExistError);
    await expect(again).rejects.toThrow(
      "ended CANCELLED while its creation's outcome was unknown " +
        '(Idempotency-Key badge-order-rc-cancel-held:create:without-stock)',
    );

    // With no worker to answer the closed run's status query, nothing says the outcome was known: refused too.
    await stack.stopWorker();
    try {
      const unanswered = stack.orders.startOrder(order(stack, 'rc-cancel-held'));
      await expect(unanswered).rejects.toThrow(OrderMayExistError);
      await expect(unanswered).rejects.toThrow(
        "ended CANCELLED and no worker answered whether its creation's outcome was known (start one and try " +
          'again) (Idempotency-Key badge-order-rc-cancel-held:create or badge-order-rc-cancel-held:create:without-stock)',
      );
    } finally {
      await stack.resumeWorker();
    }
    expect(await stack.sandbox.control.listOrders()).toHaveLength(1);
  });

  it('keeps the id of an order created while the run was being cancelled', async () => {
    const heldBefore = (await stack.sandbox.control.stats()).faults.latency ?? 0;
    await stack.sandbox.control.setFaults({
      latencyMs: 3_000,
      routes: ['orders'],
      // Uploads fail and are tried again: a cancellation that lands after the creation still finds the order
      // running.
      failNext: [{ route: 'documents', kind: 'error-500', count: 1_000 }],
    });
    const started = await stack.orders.startOrder(order(stack, 'rc-cancelled'));
    await pollUntil(
      () => stack.sandbox.control.stats(),
      (stats) => (stats.faults.latency ?? 0) > heldBefore,
      { what: 'the creation held at the platform' },
    );
    await started.handle.cancel();
    const failure = await started.handle.result().then(
      () => undefined,
      (error: unknown) => error,
    );

    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const platform = await stack.sandbox.control.state();
    expect(platform.orders).toHaveLength(1);
    const status = await started.handle.query('status');
    expect(status).toMatchObject({
      phase: 'cancelled',
      searchStatus: 'Cancelled',
      orderId: platform.orders[0]?.id,
    });
    const description = await started.handle.describe();
    expect(description.searchAttributes[BadgeOrderId.name]).toEqual([String(platform.orders[0]?.id)]);
    expect(description.searchAttributes[BadgeOrderStatus.name]).toEqual(['Cancelled']);
  });
});
