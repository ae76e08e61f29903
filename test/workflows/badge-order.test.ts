/**
 * The badge order workflow end to end: a real dev server, the real sandbox over HTTP, real workers.
 * Assertions look at what the platform holds, not only at return values.
 */
import { createHash } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { EncryptionCodec, payloadKeyId } from '../../src/codec/encryption-codec';
import { BadgeOrderId, BadgeOrderStatus, WORKFLOW_TYPES } from '../../src/workflow-contract';
import { badgeOrderWorkflowId, InvalidOrderInputError } from '../../src/contract';
import { DEMO_USER, DOCUMENT_ONLY_USER } from '../../src/sandbox';
import { startTestStack, useTestStack } from '../helpers/stack';
import { historyText, stepSummaries } from '../helpers/history';
import { completedOrder, expectLaterStartsAttach, orderAwaitingRepair } from '../helpers/orders';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'B-XY 1234', vin: 'WVWZZZ1JZXW000001', fuel: 'diesel' };
const badge = { type: 'green', validFrom: '2027-01-01' };
const sha256 = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');

describe('badgeOrder', () => {
  const stack = useTestStack({ worker: true, resetSandbox: true });
  const completed = (orderRef: string, stockId: number | string) =>
    completedOrder(stack, { orderRef, stockId, vehicle, badge });

  it('places the order with its stock and uploads every document linked to the order id', async () => {
    const photo = Buffer.alloc(256 * 1024, 7);
    stack.writeDocument('happy/photo.jpg', photo);
    stack.writeDocument('happy/form.pdf', '%PDF-1.4 application form');
    const started = await stack.orders.startOrder({
      orderRef: 'happy-1',
      stockId: 1001,
      vehicle,
      badge,
      documents: [{ path: 'happy/photo.jpg' }, { path: 'happy/form.pdf', filename: 'application.pdf' }],
    });
    const result = await started.handle.result();

    expect(result).toMatchObject({ orderRef: 'happy-1', stockId: '1001', stockFallback: false });
    expect(result.documents.map((document) => document.status)).toEqual(['uploaded', 'uploaded']);
    expect(result.documents[0]?.links.original).toMatch(/^http/);

    const state = await stack.sandbox.control.state();
    expect(state.orders).toHaveLength(1);
    expect(state.orders[0]).toMatchObject({ id: result.orderId, stock_id: 1001, vehicle, badge });
    expect(state.documents).toHaveLength(2);
    const byName = new Map(state.documents.map((document) => [document.filename, document]));
    expect(byName.get('photo.jpg')).toMatchObject({
      document_type: 'badge',
      document_type_id: result.orderId,
      document_owner: DEMO_USER.id,
      content_type: 'image/jpeg',
      size: photo.length,
      sha256: sha256(photo),
    });
    expect(byName.get('application.pdf')?.sha256).toBe(sha256('%PDF-1.4 application form'));

    const description = await started.handle.describe();
    expect(description.typedSearchAttributes.get(BadgeOrderStatus)).toBe('Completed');
    expect(description.typedSearchAttributes.get(BadgeOrderId)).toBe(String(result.orderId));

    // Every step has a summary in the Web UI's timeline (encrypted like any payload); the platform reads are
    // one local activity at the start, whose summary is on its marker.
    const summaries = await stepSummaries(started.handle, stack.payloadKeys);
    expect(summaries).toEqual([
      'Validate the order input, resolve its options, sign in and look up stock 1001',
      'Create order with stock 1001',
      `Upload document 1/2 to order ${result.orderId}`,
      `Upload document 2/2 to order ${result.orderId}`,
    ]);
  });

  it('orders with a stock the user’s list lacks when the platform accepts it: the lookup only advises', async () => {
    // 1004 is not among the user's three listed stocks, but the platform takes it (a shared stock).
    const { handle, result } = await completed('shared-stock', 1004);
    expect(result).toMatchObject({ stockId: '1004', stockFallback: false, stockFallbackReason: null });
    const state = await stack.sandbox.control.state();
    expect(state.orders).toEqual([expect.objectContaining({ id: result.orderId, stock_id: 1004 })]);
    // The lookup read the whole list and said so; nobody acted on it.
    expect((await stack.orders.status('shared-stock')).stockAdvice).toEqual({
      verdict: 'unlisted',
      stockCount: 3,
    });
    const summaries = await stepSummaries(handle, stack.payloadKeys);
    expect(summaries.slice(0, 2)).toEqual([
      'Validate the order input, resolve its options, sign in and look up stock 1004',
      'Create order with stock 1004',
    ]);
  });

  it('orders without a stock only once the platform answers 404 for it', async () => {
    const { handle, result } = await completed('unlisted-stock', 999);
    expect(result).toMatchObject({ stockId: null, stockFallback: true });
    expect(result.stockFallbackReason).toMatch(/404 for stock 999/);
    const state = await stack.sandbox.control.state();
    expect(state.orders).toHaveLength(1);
    expect(state.orders[0]?.stock_id).toBeNull();
    const summaries = await stepSummaries(handle, stack.payloadKeys);
    expect(summaries.slice(0, 3)).toEqual([
      'Validate the order input, resolve its options, sign in and look up stock 999',
      'Create order with stock 999',
      'Create order without stock',
    ]);
  });

  it('orders again without the stock when the platform answers 404 for a listed stock', async () => {
    const { result } = await completed('retired-stock', '1003');
    expect(result).toMatchObject({ stockId: null, stockFallback: true });
    expect(result.stockFallbackReason).toMatch(/404 for stock 1003/);
    const state = await stack.sandbox.control.state();
    expect(state.orders).toHaveLength(1);
    expect(state.orders[0]).toMatchObject({ id: result.orderId, stock_id: null });
    expect(state.documents[0]?.document_type_id).toBe(result.orderId);
  });

  it('fails with a clear error when the platform forbids the order, and creates nothing', async () => {
    const other = await startTestStack({ user: DOCUMENT_ONLY_USER });
    const otherWorker = await other.startWorker();
    try {
      const started = await other.orders.startOrder({
        orderRef: 'forbidden-1',
        vehicle,
        badge,
        documents: [],
      });
      const failure = await started.handle.result().then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      const top = (failure as WorkflowFailedError).cause;
      expect(top).toBeInstanceOf(ApplicationFailure);
      expect((top as ApplicationFailure).type).toBe('ORDER_REJECTED');
      const activityFailure = (top as ApplicationFailure).cause as ActivityFailure;
      expect(activityFailure).toBeInstanceOf(ActivityFailure);
      expect((activityFailure.cause as ApplicationFailure).type).toBe('FORBIDDEN');
      expect(top?.message).toMatch(/403/);
      expect((await other.sandbox.control.state()).orders).toHaveLength(0);
      const description = await started.handle.describe();
      expect(description.typedSearchAttributes.get(BadgeOrderStatus)).toBe('Failed');
    } finally {
      await otherWorker.stop();
      await other.teardown();
    }
  });

  it('waits in AwaitingRepair for a rejected document, and completes after replaceDocument', async () => {
    stack.writeDocument('repair/photo.jpg', Buffer.alloc(1024, 1));
    stack.writeDocument('repair/notes.txt', 'not an accepted type');
    stack.writeDocument('repair/notes.pdf', '%PDF fixed notes');
    const started = await stack.orders.startOrder({
      orderRef: 'repair-1',
      vehicle,
      badge,
      documents: [{ path: 'repair/photo.jpg' }, { path: 'repair/notes.txt' }],
    });
    const awaiting = await pollUntil(
      () => stack.orders.status('repair-1'),
      (status) => status.phase === 'awaiting-repair',
    );
    const failed = awaiting.documents.find((document) => document.path === 'repair/notes.txt');
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed?.lastError).toMatch(/VALIDATION.*422/);
    expect(awaiting.documents.find((document) => document.path === 'repair/photo.jpg')?.status).toBe(
      'uploaded',
    );
    expect((await started.handle.describe()).typedSearchAttributes.get(BadgeOrderStatus)).toBe(
      'AwaitingRepair',
    );

    await expect(
      stack.orders.replaceDocument('repair-1', { path: 'repair/photo.jpg', newPath: 'repair/notes.pdf' }),
    ).rejects.toThrow(/only a failed one can be replaced/);
    await expect(
      stack.orders.replaceDocument('repair-1', { path: 'repair/notes.txt', newPath: 'repair/missing.pdf' }),
    ).rejects.toThrow(/no such file/);

    const replaced = await stack.orders.replaceDocument('repair-1', {
      path: 'repair/notes.txt',
      newPath: 'repair/notes.pdf',
    });
    expect(replaced).toMatchObject({ status: 'uploaded', sourcePath: 'repair/notes.pdf' });
    const result = await started.handle.result();
    expect(result.documents.map((document) => document.status)).toEqual(['uploaded', 'uploaded']);
    const state = await stack.sandbox.control.state();
    expect(state.documents.map((document) => document.sha256).sort()).toEqual(
      [sha256(Buffer.alloc(1024, 1)), sha256('%PDF fixed notes')].sort(),
    );
  });

  it('retries failed documents on retryUploads once the platform accepts them', async () => {
    const handle = await orderAwaitingRepair(stack, 'retry-1', vehicle);
    await stack.sandbox.control.setRules({
      acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf', 'image/gif'],
    });
    try {
      await stack.orders.retryUploads('retry-1');
      const result = await handle.result();
      expect(result.documents[0]?.status).toBe('uploaded');
      expect((await stack.sandbox.control.state()).documents).toHaveLength(1);
    } finally {
      await stack.sandbox.control.setRules({
        acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf'],
      });
    }
  });

  it('attaches a second start with the same orderRef to the running order', async () => {
    stack.writeDocument('twice/form.pdf', '%PDF twice');
    const input = { orderRef: 'twice-1', vehicle, badge, documents: [{ path: 'twice/form.pdf' }] };
    await stack.sandbox.control.setFaults({ latencyMs: 300, routes: ['documents'] });
    try {
      await expectLaterStartsAttach(stack, input);
      expect((await stack.sandbox.control.state()).orders).toHaveLength(1);
    } finally {
      await stack.sandbox.control.setFaults({});
    }
  });

  it('refuses invalid input with an error naming the field, before anything starts', async () => {
    await expect(
      stack.orders.startOrder({
        orderRef: 'bad input',
        vehicle: [],
        badge,
        documents: [{ path: '../etc/passwd' }],
      }),
    ).rejects.toThrow(InvalidOrderInputError);
    await expect(
      stack.orders.startOrder({ orderRef: 'x', vehicle, badge, documents: [{ path: '/abs.pdf' }] }),
    ).rejects.toThrow(/documents\.0\.path/);
  });

  it('fails a run started with invalid input directly, naming the field', async () => {
    const handle = await stack.temporal.client.workflow.start(WORKFLOW_TYPES.badgeOrder, {
      taskQueue: stack.taskQueue,
      workflowId: 'badge-order-direct-invalid',
      args: [{ orderRef: 'direct-invalid', vehicle, documents: [] }],
    });
    const failure = await handle.result().then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const cause = (failure as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('INVALID_INPUT');
    expect(cause.message).toMatch(/badge: /);
    expect((await handle.describe()).typedSearchAttributes.get(BadgeOrderStatus)).toBe('Failed');

    // A failed order may be started again with the same orderRef: a new run, not an attachment.
    const again = await stack.orders.startOrder({
      orderRef: 'direct-invalid',
      vehicle,
      badge,
      documents: [],
    });
    expect(again.attached).toBe(false);
    expect(again.runId).not.toBe(handle.firstExecutionRunId);
    expect((await again.handle.result()).orderRef).toBe('direct-invalid');
  });

  it('keeps the password, access tokens, vehicle and badge data out of workflow history', async () => {
    // Runs of its own: an order placed with a stock and a document, one whose refused document is sent again
    // after retryUploads, and one started directly with invalid input (its failure message names the input).
    stack.writeDocument('secrets/form.pdf', '%PDF-1.4 secrets');
    const placed = await stack.orders.startOrder({
      orderRef: 'secrets-1',
      stockId: 1001,
      vehicle,
      badge,
      documents: [{ path: 'secrets/form.pdf' }],
    });
    expect((await placed.handle.result()).documents).toHaveLength(1);
    const repaired = await orderAwaitingRepair(stack, 'secrets-repair', vehicle);
    await stack.sandbox.control.setRules({
      acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf', 'image/gif'],
    });
    try {
      await stack.orders.retryUploads('secrets-repair');
      expect((await repaired.result()).documents.map((document) => document.status)).toEqual(['uploaded']);
    } finally {
      await stack.sandbox.control.setRules({
        acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf'],
      });
    }
    const invalid = await stack.temporal.client.workflow.start(WORKFLOW_TYPES.badgeOrder, {
      taskQueue: stack.taskQueue,
      workflowId: 'badge-order-secrets-invalid',
      args: [{ orderRef: 'secrets-invalid', vehicle, documents: [] }],
    });
    const failure = await invalid.result().then(
      () => null,
      (error: unknown) => error,
    );
    // Read through the codec, the failure says what was wrong.
    expect((failure as WorkflowFailedError).cause?.message).toMatch(/Invalid badge order input/);

    // The raw client has no codec: it sees what the server stores.
    const workflowIds = [
      badgeOrderWorkflowId('secrets-1'),
      badgeOrderWorkflowId('secrets-repair'),
      'badge-order-secrets-invalid',
    ];
    const histories = await Promise.all(
      workflowIds.map(async (workflowId) =>
        historyText(await stack.temporal.rawClient.workflow.getHandle(workflowId).fetchHistory()),
      ),
    );
    const all = histories.join('\n');
    expect(all).not.toContain(vehicle.licensePlate);
    expect(all).not.toContain(vehicle.vin);
    expect(all).not.toContain(badge.validFrom);
    expect(all).not.toContain('"type":"green"');
    // Failure messages are encoded (and so encrypted) too.
    expect(all).not.toContain('Invalid badge order input');
    expect(all).not.toContain(DEMO_USER.password);
    expect(all).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
    expect(all.toLowerCase()).not.toContain('bearer');

    // Control: the order data is in the history, encrypted with the stack's key, and the codec reads it.
    const raw = await stack.temporal.rawClient.workflow
      .getHandle(badgeOrderWorkflowId('secrets-1'))
      .fetchHistory();
    const input = raw.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
    expect(input).toHaveLength(1);
    expect(input.map(payloadKeyId)).toEqual([stack.payloadKeys.encryptKeyId]);
    const decoded = await new EncryptionCodec(stack.payloadKeys).decode(input);
    expect(historyText(decoded)).toContain(vehicle.licensePlate);
  });
});
