/** The order's state and its rules, without a server: statuses, fallbacks, reconciliation, the status view. */
import type { BadgeOrderStatusValue } from '../../src/workflow-contract';
import { resolveBadgeOrderInput } from '../../src/activities/resolve-order-input';
import type { ResolvedBadgeOrderInput } from '../../src/order-options';
import { startingView } from '../../src/workflows/order-input';
import { OrderState } from '../../src/workflows/order-state';

const baseInput = {
  orderRef: 'ref-1',
  stockId: 1001,
  vehicle: { plate: 'B-AB 123' },
  badge: { colour: 'green' },
  documents: [{ path: 'a.jpg' }, { path: 'b.jpg' }],
};

function newState(overrides: Record<string, unknown> = {}) {
  const published: BadgeOrderStatusValue[] = [];
  const input = resolveBadgeOrderInput({ ...baseInput, ...overrides });
  const state = new OrderState(input, 'badge-order-ref-1', (status) => published.push(status));
  return { state, published };
}

describe('OrderState', () => {
  it('publishes only changes of the status, in order', () => {
    const { state, published } = newState();
    state.setStatus('Running');
    state.setStatus('AwaitingRepair');
    state.setStatus('AwaitingRepair');
    state.setStatus('Running');
    expect(published).toEqual(['AwaitingRepair', 'Running']);
  });

  it('falls back from the stock and says why in the view', () => {
    const { state } = newState();
    expect(state.stockId).toBe('1001');
    state.fallBackFromStock('the platform answered 404 for stock 1001');
    expect(state.stockId).toBeNull();
    expect(state.view()).toMatchObject({
      stockFallback: true,
      stockFallbackReason: 'the platform answered 404 for stock 1001',
    });
  });

  it('takes a corrected owner only once the order exists, and sends each failed document again under a new key', () => {
    const { state } = newState();
    state.documentOwner = { id: '8f14e45f-ceea-467a-9575-5d6e4b2c1a90', source: 'claim sub (default chain)' };
    expect(state.ownerCorrectable()).toMatch(/once the order exists/);
    state.orderCreated('5001');
    state.phase = 'awaiting-repair';
    for (const job of state.documents.pendingJobs()) state.documents.markUploading(job.path);
    state.documents.markFailed('a.jpg', {
      error: 'VALIDATION: document_owner',
      attempts: 1,
      mayHaveBeenStored: false,
      held: false,
    });
    state.documents.markUploaded('b.jpg', {
      documentId: 'doc-2',
      links: { original: null, thumbnail: null },
      attempts: 1,
      possibleDuplicate: false,
    });
    state.documentOwnerRefused = 'The platform refused document_owner …';
    expect(state.ownerCorrectable()).toBeNull();
    expect(state.correctDocumentOwner('4711', { keepHeld: true })).toBe(1);
    expect(state.documents.pendingJobs()).toEqual([
      expect.objectContaining({ path: 'a.jpg', idempotencyKey: 'badge-order-ref-1:doc:0:r1' }),
    ]);
    expect(state.view().documentOwner).toEqual({ id: '4711', source: 'operator', refused: null });
    // A continued run keeps the owner and where it came from.
    const next = new OrderState(
      state.input,
      'badge-order-ref-1',
      () => undefined,
      state.continuation({
        keysHonoured: false,
        runs: 1,
      }),
    );
    expect(next.view().documentOwner).toEqual({ id: '4711', source: 'operator', refused: null });
  });

  it('holds an unknown creation for reconciliation and takes exactly one answer', () => {
    const { state, published } = newState();
    expect(state.reconcilable()).toMatch(/not awaiting reconciliation/);
    const since = '2026-11-23T10:00:00.000Z';
    state.awaitReconciliation(
      { reason: 'SERVER_ERROR: 502', idempotencyKey: 'badge-order-ref-1:create', stockId: '1001', since },
      Date.parse('2026-11-30T10:00:00.000Z'),
    );
    expect(published).toEqual(['AwaitingReconciliation']);
    expect(state.view()).toMatchObject({
      phase: 'awaiting-reconciliation',
      searchStatus: 'AwaitingReconciliation',
      reconciliation: { reason: 'SERVER_ERROR: 502', idempotencyKey: 'badge-order-ref-1:create', since },
      reconciliationDeadline: '2026-11-30T10:00:00.000Z',
    });
    expect(state.reconcilable()).toBeNull();
    state.answerReconciliation({ orderId: '9223372036854770001' });
    expect(state.reconciliationAnswer).toEqual({ orderId: '9223372036854770001' });
    expect(state.view().orderId).toBe('9223372036854770001');
    expect(state.reconcilable()).toMatch(/already given/);
    state.orderCreated('9223372036854770001');
    expect(state.view()).toMatchObject({
      orderId: '9223372036854770001',
      reconciliation: null,
      reconciliationDeadline: null,
    });
  });

  it('takes the numbers that runs before 0.4.0 recorded as their digits', () => {
    // The resolved input as a 0.3.0 marker holds it: the stock id a number.
    const recorded = {
      ...resolveBadgeOrderInput(baseInput),
      stockId: 1001,
    } as unknown as ResolvedBadgeOrderInput;
    const fresh = new OrderState(recorded, 'badge-order-ref-1', () => undefined);
    expect(fresh.stockId).toBe('1001');
    const continued = new OrderState(recorded, 'badge-order-ref-1', () => undefined, {
      orderId: 5001,
      stockId: 1001,
      stockFallbackReason: null,
      repairDeadline: null,
      documentOwner: 4711,
      keysHonoured: false,
      documents: [],
      runs: 1,
    });
    expect(continued.view()).toMatchObject({ orderId: '5001', phase: 'uploading' });
    expect(continued.stockId).toBe('1001');
  });

  it('goes back to creating after a "not created" answer', () => {
    const { state, published } = newState();
    state.awaitReconciliation(
      { reason: 'TIMEOUT', idempotencyKey: 'k', stockId: null, since: '2026-11-23T10:00:00.000Z' },
      0,
    );
    state.answerReconciliation({ notCreated: true });
    state.resumeCreating();
    expect(state.view()).toMatchObject({
      phase: 'creating-order',
      searchStatus: 'Running',
      reconciliation: null,
    });
    expect(published).toEqual(['AwaitingReconciliation', 'Running']);
  });

  it('shows a deadline beyond what a date can hold as null instead of throwing', () => {
    const { state } = newState();
    state.repairDeadline = Number.MAX_SAFE_INTEGER;
    expect(state.view().repairDeadline).toBeNull();
  });

  it('leaves a held document held when the owner is corrected (orders since 0.7.0), and sends it on 0.6.0', () => {
    const held = (keepHeld: boolean) => {
      const { state } = newState();
      state.orderCreated('5001');
      for (const job of state.documents.pendingJobs()) state.documents.markUploading(job.path);
      state.documents.markFailed('a.jpg', {
        error: 'SERVER_ERROR: 500',
        attempts: 1,
        mayHaveBeenStored: true,
        held: true,
      });
      state.documents.markFailed('b.jpg', {
        error: 'VALIDATION: document_owner',
        attempts: 1,
        mayHaveBeenStored: false,
        held: false,
      });
      const queued = state.correctDocumentOwner('4711', { keepHeld });
      return { queued, pending: state.documents.pendingJobs().map((job) => job.path) };
    };
    expect(held(true)).toEqual({ queued: 1, pending: ['b.jpg'] });
    expect(held(false)).toEqual({ queued: 2, pending: ['a.jpg', 'b.jpg'] });
  });

  it('refuses operators once the order has ended, naming the status', () => {
    const { state } = newState();
    expect(state.endedRefusal()).toBeNull();
    state.phase = 'awaiting-repair';
    expect(state.endedRefusal()).toBeNull();
    state.ended('Failed', 'REPAIR_DEADLINE_PASSED: …');
    expect(state.endedRefusal()).toBe('the order has ended (Failed)');
    const completed = newState().state;
    completed.phase = 'completed';
    completed.setStatus('Completed');
    expect(completed.endedRefusal()).toBe('the order has ended (Completed)');
  });

  it('ends as Failed or Cancelled with the reason', () => {
    const failed = newState();
    failed.state.ended('Failed', 'ORDER_REJECTED: 422');
    expect(failed.state.view()).toMatchObject({
      phase: 'failed',
      searchStatus: 'Failed',
      failure: 'ORDER_REJECTED: 422',
    });
    const cancelled = newState();
    cancelled.state.ended('Cancelled', 'cancelled');
    expect(cancelled.state.view()).toMatchObject({ phase: 'cancelled', searchStatus: 'Cancelled' });
    expect(cancelled.published).toEqual(['Cancelled']);
  });
});

describe('startingView', () => {
  it('shows what an unvalidated input names, and never throws on a malformed one', () => {
    expect(
      startingView({ orderRef: 'ref-9', documents: [{ path: 'a.pdf' }, { path: 3 }, null] }),
    ).toMatchObject({
      orderRef: 'ref-9',
      phase: 'authenticating',
      searchStatus: 'Running',
      documents: [{ path: 'a.pdf', status: 'pending', attempts: 0, sourcePath: 'a.pdf' }],
    });
    for (const input of [null, 42, 'text', { documents: 'none' }, []]) {
      expect(startingView(input)).toMatchObject({ orderRef: '', documents: [] });
    }
  });
});
