/**
 * Orders that live long: repair cycles that continue as new with the order's state, cancellation in each
 * phase, the upload retry window, and a replacement pushing the repair deadline out. Each test asserts the
 * final status and what the platform holds. Real dev server, real sandbox over HTTP, a real worker.
 */
import { createHash } from 'node:crypto';
import type { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { BadgeOrderId, BadgeOrderStatus, WORKFLOW_TYPES } from '../../src/workflow-contract';
import { badgeOrderWorkflowId, type BadgeOrderInput, type BadgeOrderResult } from '../../src/contract';
import { createPlatformClient } from '../../src/platform';
import { DEMO_USER } from '../../src/sandbox';
import { resolveBadgeOrderInput } from '../../src/activities/resolve-order-input';
import { badgeOrdersQuery, listRunPage } from '../../src/temporal/visibility';
import type { BadgeOrderHandle } from '../../src/client';
import { useTestStack, type TestStack } from '../helpers/stack';
import { stepSummaries } from '../helpers/history';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'L-ONG 1' };
const badge = { type: 'green' };
const ALL_TYPES = ['image/jpeg', 'image/png', 'application/pdf'];

function order(
  stack: TestStack,
  orderRef: string,
  files: readonly string[],
  options: BadgeOrderInput['options'] = {},
): BadgeOrderInput {
  const documents = files.map((name) => ({
    path: stack.writeDocument(`${orderRef}/${name}`, `bytes of ${orderRef}/${name}`),
  }));
  return { orderRef, vehicle, badge, documents, options };
}

async function applicationFailure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('badgeOrder over a long life', () => {
  const stack = useTestStack({ worker: true });

  afterEach(async () => {
    await stack.sandbox.control.setFaults({});
    await stack.sandbox.control.setRules({ acceptedContentTypes: ALL_TYPES });
  });

  it('continues as new between repair cycles, keeping its state, status and search attributes', async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    const orderRef = 'life-cycles';
    const started = await stack.orders.startOrder(
      order(stack, orderRef, ['1.jpg', '2.jpg', '3.jpg', 'ok.pdf'], { historyBudgetEvents: 100 }),
    );
    const firstRunId = (await started.handle.describe()).runId;
    let view = await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.searchStatus === 'AwaitingRepair',
      { what: 'the first repair wait' },
    );
    const orderId = view.orderId;
    // Each retry uploads the three refused files again, and fails them again: history grows every cycle.
    for (let cycle = 1; cycle <= 4; cycle += 1) {
      const attemptsBefore = view.documents[0]?.attempts ?? 0;
      await stack.orders.retryUploads(orderRef);
      view = await pollUntil(
        () => stack.orders.status(orderRef),
        (status) =>
          status.searchStatus === 'AwaitingRepair' && (status.documents[0]?.attempts ?? 0) > attemptsBefore,
        { what: `repair cycle ${cycle}` },
      );
    }
    const current = await stack.orders.getHandle(orderRef).describe();
    expect(current.runId).not.toBe(firstRunId);
    expect(view).toMatchObject({ orderId, phase: 'awaiting-repair' });
    expect(view.documents.map((document) => document.status)).toEqual([
      'failed',
      'failed',
      'failed',
      'uploaded',
    ]);
    expect(view.documents[0]?.attempts).toBeGreaterThanOrEqual(5);
    expect(current.searchAttributes[BadgeOrderStatus.name]).toEqual(['AwaitingRepair']);
    expect(current.searchAttributes[BadgeOrderId.name]).toEqual([String(orderId)]);
    // Operators and the nightly replay list the current run, and only it, as awaiting repair.
    const listed = await pollUntil(
      () =>
        listRunPage(stack.temporal.client, {
          query: `${badgeOrdersQuery({ status: 'AwaitingRepair', openOnly: true })} AND BadgeOrderRef = '${orderRef}'`,
          pageSize: 10,
          nextPageToken: null,
        }),
      (page) => page.runs.length === 1 && page.runs[0]?.runId === current.runId,
      { what: 'the current run in the visibility list' },
    );
    expect(listed.runs).toHaveLength(1);

    await stack.sandbox.control.setRules({ acceptedContentTypes: ALL_TYPES });
    await stack.orders.retryUploads(orderRef);
    const result = await stack.orders.getHandle(orderRef).result();
    expect(result.orderId).toBe(orderId);
    const platform = await stack.sandbox.control.state();
    expect(platform.orders.filter((created) => created.id === orderId)).toHaveLength(1);
    expect(platform.documents.filter((document) => document.document_type_id === orderId)).toHaveLength(4);
  });

  it.each([
    ['authenticating', 'auth'],
    ['uploading', 'documents'],
  ] as const)('ends Cancelled when cancelled while %s', async (phase, route) => {
    const orderRef = `life-cancel-${phase}`;
    if (phase === 'authenticating') {
      // Sign-in is answered from the worker's token cache (one per process) once a token is held: a worker
      // process of its own has none, so this order's sign-in reaches the platform, where it is held. It runs
      // in a local activity, whose workflow task stays open while it runs (a status query waits for it), so
      // the platform says when it is there.
      await stack.withWorkerProcess({}, async () => {
        const heldBefore = (await stack.sandbox.control.stats()).faults.latency ?? 0;
        await stack.sandbox.control.setFaults({ latencyMs: 5_000, routes: [route] });
        const started = await stack.orders.startOrder(order(stack, orderRef, ['a.pdf']));
        await pollUntil(
          () => stack.sandbox.control.stats(),
          (stats) => (stats.faults.latency ?? 0) > heldBefore,
          { what: 'the sign-in held at the platform', timeoutMs: 120_000 },
        );
        // The request reaches the code when the sign-in's workflow task ends, which may already have sent the
        // order's creation: then the order ends Cancelled knowing the id the platform gave it.
        await cancelAndCheck(orderRef, started.handle);
      });
      return;
    }
    // Every upload fails and is tried again, so the order stays uploading however late the cancellation lands.
    await stack.sandbox.control.setFaults({ failNext: [{ route, kind: 'error-500', count: 1_000 }] });
    const started = await stack.orders.startOrder(order(stack, orderRef, ['a.pdf']));
    await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.phase === phase,
      { what: `phase ${phase}` },
    );
    await cancelAndCheck(orderRef, started.handle);
    expect((await stack.orders.status(orderRef)).orderId).not.toBeNull();
  });

  it('signs in and looks the stock up in steps of their own when the first sign-in fails', async () => {
    const orderRef = 'life-first-sign-in-fails';
    await stack.withWorkerProcess({}, async () => {
      const before = await stack.sandbox.control.stats();
      await stack.sandbox.control.setFaults({ failNext: [{ route: 'auth', kind: 'error-503' }] });
      const started = await stack.orders.startOrder({
        ...order(stack, orderRef, ['a.pdf']),
        stockId: '1001',
      });
      const result = await started.handle.result();
      const after = await stack.sandbox.control.stats();
      // The first sign-in met the 503, so the start looked nothing up; the authenticate step signed in once
      // more, the stock lookup step asked the platform once, and the order went on with its stock.
      expect((after.faults['error-503'] ?? 0) - (before.faults['error-503'] ?? 0)).toBe(1);
      expect(after.authCalls.issued - before.authCalls.issued).toBe(1);
      const stockLookups = (stats: typeof before): number =>
        Object.values(stats.requests.stocks ?? {}).reduce((sum, count) => sum + count, 0);
      expect(stockLookups(after) - stockLookups(before)).toBe(1);
      expect(result).toMatchObject({ stockId: '1001', stockFallback: false });
      expect((await stack.orders.status(orderRef)).stockAdvice).toEqual({ verdict: 'listed', stockCount: 3 });
      expect(await stack.sandbox.control.listDocuments({ orderId: result.orderId })).toHaveLength(1);
      expect(await stepSummaries(started.handle, stack.payloadKeys)).toEqual([
        'Validate the order input, resolve its options, sign in and look up stock 1001',
        'Authenticate against the platform',
        'Look up stock 1001',
        'Create order with stock 1001',
        `Upload document 1/1 to order ${result.orderId}`,
      ]);
    });
  });

  /** Cancels the order and checks it ended Cancelled, knowing whatever the platform created for it. */
  async function cancelAndCheck(orderRef: string, handle: BadgeOrderHandle): Promise<void> {
    await handle.cancel();
    const failure = await applicationFailure(handle.result());
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const view = await stack.orders.status(orderRef);
    expect(view).toMatchObject({ phase: 'cancelled', searchStatus: 'Cancelled' });
    const description = await handle.describe();
    expect(description.searchAttributes[BadgeOrderStatus.name]).toEqual(['Cancelled']);
    // Whatever the platform created for this order before the cancellation took effect, the order knows.
    const created = (await stack.sandbox.control.listOrders()).filter((record) =>
      record.idempotency_key?.startsWith(`badge-order-${orderRef}:`),
    );
    expect(created.map((record) => record.id)).toEqual(view.orderId === null ? [] : [view.orderId]);
  }

  it('ends Cancelled, keeping the order id, when cancelled while awaiting repair', async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    const orderRef = 'life-cancel-repair';
    const started = await stack.orders.startOrder(order(stack, orderRef, ['a.jpg']));
    const waiting = await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.searchStatus === 'AwaitingRepair',
      { what: 'the repair wait' },
    );
    await started.handle.cancel();
    expect(((await applicationFailure(started.handle.result())) as WorkflowFailedError).cause).toBeInstanceOf(
      CancelledFailure,
    );
    const description = await started.handle.describe();
    expect(description.searchAttributes[BadgeOrderStatus.name]).toEqual(['Cancelled']);
    expect(description.searchAttributes[BadgeOrderId.name]).toEqual([String(waiting.orderId)]);
  });

  it('counts a document as failed when its retry window runs out, and waits for repair', async () => {
    await stack.sandbox.control.setFaults({ errorRate: 1, errorStatuses: [502], routes: ['documents'] });
    const orderRef = 'life-window';
    const started = await stack.orders.startOrder(
      order(stack, orderRef, ['a.pdf'], { uploadRetryWindowMs: 1_000 }),
    );
    const waiting = await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.searchStatus === 'AwaitingRepair',
      { what: 'the repair wait' },
    );
    expect(waiting.documents[0]).toMatchObject({ status: 'failed' });
    expect(waiting.documents[0]?.lastError).toMatch(/retry window exhausted/);
    await stack.sandbox.control.setFaults({});
    await stack.orders.retryUploads(orderRef);
    const result = await started.handle.result();
    // Every failed attempt answered 502 (may have stored it): the stored copy is flagged.
    expect(result.documents[0]?.possibleDuplicate).toBe(true);
    expect(await stack.sandbox.control.listDocuments({ orderId: result.orderId })).toHaveLength(1);
  });

  it('finishes with a replacement, pushing the repair deadline out by the grace', async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    const orderRef = 'life-grace';
    const graceMs = 1_200_000;
    const input = order(stack, orderRef, ['scan.jpg'], {
      // Minutes: the replacement arrives long before the deadline however loaded the machine. The order
      // failing at its deadline is covered by badge-order-webhooks.test.ts (hook-failed) and
      // badge-order-reconciliation.test.ts (rc-repair-expired).
      repairWindowMs: 600_000,
      replacementGraceMs: graceMs,
    });
    const replacement = stack.writeDocument(`${orderRef}/scan.pdf`, `bytes of ${orderRef}/scan.pdf`);
    const started = await stack.orders.startOrder(input);
    const waiting = await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.searchStatus === 'AwaitingRepair',
      { what: 'the repair wait' },
    );
    const deadline = Date.parse(waiting.repairDeadline ?? '');
    const sentAt = Date.now();
    const replaced = await stack.orders.replaceDocument(orderRef, {
      path: input.documents[0]?.path ?? '',
      newPath: replacement,
    });
    expect(replaced.status).toBe('uploaded');
    const result = await started.handle.result();
    expect(result.documents[0]?.status).toBe('uploaded');
    // The platform holds the replacement, once.
    const stored = await stack.sandbox.control.listDocuments({ orderId: result.orderId });
    expect(stored.map((document) => document.sha256)).toEqual([
      createHash('sha256').update(`bytes of ${orderRef}/scan.pdf`).digest('hex'),
    ]);
    // The operator sees the deadline pushed out by the grace from the replacement on, past the original one.
    const extended = Date.parse((await stack.orders.status(orderRef)).repairDeadline ?? '');
    expect(extended).toBeGreaterThanOrEqual(sentAt + graceMs);
    expect(extended).toBeGreaterThan(deadline);
  });

  it('finishes a run that a release before 0.4.0 continued, its ids numbers, with the ids as digits', async () => {
    const orderRef = 'life-numeric-ids';
    const platform = createPlatformClient({
      baseUrl: stack.sandbox.baseUrl,
      credentials: { username: DEMO_USER.username, password: DEMO_USER.password },
    });
    const created = await platform.createOrder({
      payload: { vehicle, badge, stock_id: '1001' },
      idempotencyKey: `${orderRef}:create`,
    });
    const path = stack.writeDocument(`${orderRef}/form.pdf`, `bytes of ${orderRef}`);
    // The continuation and resolved input as 0.3.0 wrote them: every id a number.
    const input = {
      ...resolveBadgeOrderInput(order(stack, orderRef, [])),
      stockId: 1001,
      documentOwner: 4711,
    };
    const continuation = {
      orderId: Number(created.orderId),
      stockId: 1001,
      stockFallbackReason: null,
      repairDeadline: null,
      documentOwner: 4711,
      keysHonoured: false,
      documents: [
        {
          index: 0,
          path,
          sourcePath: path,
          contentType: undefined,
          filename: undefined,
          status: 'failed',
          attempts: 1,
          lastError: 'VALIDATION: refused',
          documentId: null,
          links: null,
          mayHaveBeenStored: false,
          possibleDuplicate: false,
          revision: 0,
        },
      ],
      runs: 1,
      inputResolved: true,
    };
    const handle = await stack.temporal.client.workflow.start(WORKFLOW_TYPES.badgeOrder, {
      args: [{ ...input, documents: [{ path }] }, continuation],
      taskQueue: stack.taskQueue,
      workflowId: badgeOrderWorkflowId(orderRef),
    });
    await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.phase === 'awaiting-repair',
    );
    await stack.orders.retryUploads(orderRef);
    const result = (await handle.result()) as BadgeOrderResult;
    expect(result).toMatchObject({ orderId: created.orderId, stockId: '1001' });
    expect((await stack.orders.status(orderRef)).orderId).toBe(created.orderId);
    expect(await stack.sandbox.control.listDocuments({ orderId: created.orderId })).toEqual([
      expect.objectContaining({ order_id: created.orderId, user_id: DEMO_USER.id }),
    ]);
    const [stored] = (await stack.sandbox.control.state()).documents.filter(
      (document) => document.document_type_id === created.orderId,
    );
    expect(stored?.document_owner).toBe('4711');
  });
});
