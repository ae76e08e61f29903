/**
 * Webhooks against a real receiver (HTTP on port 0) that checks every signature and the replay window, keeps
 * each event once by its id, and answers the first delivery of every event with a 500 after taking it, so each
 * event is delivered again with the same id. Real dev server, real sandbox, a worker with webhook secrets.
 */
import type { WorkflowFailedError } from '@temporalio/client';
import type { OrderKey } from '../../src/client/badge-orders-client';
import type { BadgeOrderInput, WebhookEvent } from '../../src/contract';
import { useTestStack } from '../helpers/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { activityFailureMessages } from '../helpers/history';
import { pollUntil } from '../../tools/dev/poll';

const SECRETS = { 'client-a': 'client-a-secret-0123456789', default: 'default-secret-0123456789' };
const ALL_TYPES = ['image/jpeg', 'image/png', 'application/pdf'];

describe('badgeOrder webhooks', () => {
  const stack = useTestStack();
  /** Events kept once by id, in arrival order: what a receiver that drops repeats holds. */
  const kept = new Map<string, WebhookEvent>();
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // The stack stops what it started newest first: the worker before the receiver.
    receiver = await startWebhookReceiver(stack.local, {
      secrets: SECRETS,
      answer: ({ path, id, signer, event }) => {
        if (path.startsWith('/refuse')) return 400;
        const seenBefore = kept.has(id);
        if (signer !== null && !seenBefore) kept.set(id, event);
        // Taken, but answered as failed the first time: the same event comes again.
        return seenBefore ? 204 : 500;
      },
    });

    await stack.local.startWorker({
      // Only 127.0.0.1 is listed: the receiver's address, not `localhost`.
      config: { webhooks: { secrets: SECRETS, allowHttpLoopback: true, allowedHosts: ['127.0.0.1:*'] } },
    });
  });

  afterEach(async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ALL_TYPES });
    await stack.sandbox.control.setFaults({});
  });

  function order(
    orderRef: string,
    files: readonly string[],
    fields: Partial<BadgeOrderInput>,
  ): BadgeOrderInput {
    return {
      orderRef,
      vehicle: { licensePlate: 'W-EB 1', owner: 'Erika Mustermann' },
      badge: { type: 'green' },
      documents: files.map((name) => ({
        path: stack.writeDocument(`${orderRef}/${name}`, `bytes of ${name}`),
      })),
      ...fields,
    };
  }

  /** An order placed for `client-a` (its `clientId`), which owns it: addressed by its ref and that client. */
  const ofClientA = (orderRef: string): OrderKey => ({ orderRef, clientId: 'client-a' });

  /**
   * The order's status once it completed with its one event (`order.completed`) failed to deliver after
   * `attempts`: the status shows the count and nothing of the reason, which operators read in history.
   */
  async function completedWithOneFailedDelivery(
    orderRef: string,
    attempts: number,
    reason: RegExp,
  ): Promise<void> {
    const status = await stack.orders.status(ofClientA(orderRef));
    expect(status.searchStatus).toBe('Completed');
    // Exactly this: nothing of the receiver's answer or the worker's reason reaches whoever reads the order.
    expect(status.webhooks).toEqual({
      delivered: 0,
      pending: 0,
      failed: [{ id: expect.stringMatching(/^evt_/) as string, type: 'order.completed', attempts }],
    });
    const handle = stack.orders.getHandle(ofClientA(orderRef));
    const reasons = await activityFailureMessages(handle, stack.payloadKeys, 'deliverWebhook');
    expect(reasons.at(-1)).toMatch(reason);
  }

  it('announces AwaitingRepair and Completed once each, signed with the client secret, redelivered under the same id', async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    const started = await stack.orders.startOrder(
      order('hook-repair', ['form.pdf', 'photo.jpg'], {
        callbackUrl: `${receiver.baseUrl}/hooks/orders?tenant=7`,
        clientId: 'client-a',
      }),
    );
    await pollUntil(
      () => stack.orders.status(ofClientA('hook-repair')),
      (status) => status.webhooks?.delivered === 1,
      { what: 'the AwaitingRepair webhook' },
    );
    await stack.sandbox.control.setRules({ acceptedContentTypes: ALL_TYPES });
    await stack.orders.retryUploads(ofClientA('hook-repair'));
    const result = await started.handle.result();

    const mine = receiver.deliveries.filter((delivery) => delivery.event.orderRef === 'hook-repair');
    expect(mine.every((delivery) => delivery.signer === 'client-a')).toBe(true);
    expect(mine.every((delivery) => delivery.path === '/hooks/orders?tenant=7')).toBe(true);
    const events = [...kept.values()].filter((event) => event.orderRef === 'hook-repair');
    expect(events.map((event) => event.type)).toEqual(['order.awaiting_repair', 'order.completed']);
    // Each event came twice (the first answer was a 500), both times under its one id.
    for (const event of events) {
      expect(mine.filter((delivery) => delivery.id === event.id)).toHaveLength(2);
      expect(mine.filter((delivery) => delivery.id === event.id).map((d) => d.event)).toEqual([event, event]);
    }
    expect(new Set(events.map((event) => event.id)).size).toBe(2);
    expect(events[0]).toMatchObject({
      status: 'AwaitingRepair',
      orderId: result.orderId,
      documents: { total: 2, uploaded: 1, failed: 1 },
      failureType: null,
    });
    expect(events[0]?.repairDeadline).not.toBeNull();
    expect(events[1]).toMatchObject({
      status: 'Completed',
      orderId: result.orderId,
      documents: { total: 2, uploaded: 2, failed: 0 },
    });
    // No personal data, no paths, no links.
    const text = JSON.stringify(events);
    for (const secretive of ['Erika', 'W-EB', 'photo.jpg', 'form.pdf', 'http', 'links']) {
      expect(text).not.toContain(secretive);
    }
    const status = await stack.orders.status(ofClientA('hook-repair'));
    // Exactly this: nothing of the receiver's answer or the worker's reason reaches whoever reads the order.
    expect(status.webhooks).toEqual({ delivered: 2, pending: 0, failed: [] });
  });

  it('signs with the default secret without clientId, and announces Failed with its code', async () => {
    const started = await stack.orders.startOrder(
      order('hook-failed', ['note.gif'], {
        callbackUrl: `${receiver.baseUrl}/hooks/failed`,
        options: { repairWindowMs: 1_000 },
      }),
    );
    const error = await started.handle.result().then(
      () => undefined,
      (failure: unknown) => failure as WorkflowFailedError,
    );
    expect(error?.cause?.message).toMatch(/Repair deadline passed/);
    // Sent in the background, the two may arrive in either order: the id's number orders them.
    const events = [...kept.values()]
      .filter((event) => event.orderRef === 'hook-failed')
      .sort((a, b) => Number(a.id.split('_').at(-1)) - Number(b.id.split('_').at(-1)));
    expect(events.map((event) => [event.type, event.failureType])).toEqual([
      ['order.awaiting_repair', null],
      ['order.failed', 'REPAIR_DEADLINE_PASSED'],
    ]);
    const mine = receiver.deliveries.filter((delivery) => delivery.event.orderRef === 'hook-failed');
    expect(mine.every((delivery) => delivery.signer === 'default')).toBe(true);
  });

  it('announces AwaitingReconciliation, then Cancelled when the held order is cancelled', async () => {
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'commit-then-500' }] });
    const started = await stack.orders.startOrder(
      order('hook-held', ['form.pdf'], {
        callbackUrl: `${receiver.baseUrl}/hooks/held`,
        clientId: 'client-a',
      }),
    );
    await pollUntil(
      () => stack.orders.status(ofClientA('hook-held')),
      (status) => status.webhooks?.delivered === 1,
      { what: 'the AwaitingReconciliation webhook' },
    );
    await started.handle.cancel();
    await started.handle.result().catch(() => undefined);
    const events = [...kept.values()].filter((event) => event.orderRef === 'hook-held');
    expect(events.map((event) => event.type)).toEqual(['order.awaiting_reconciliation', 'order.cancelled']);
    expect(events[0]?.reconciliationDeadline).not.toBeNull();
    expect(events[1]).toMatchObject({ status: 'Cancelled', failureType: null });
    expect((await stack.orders.status(ofClientA('hook-held'))).webhooks).toEqual({
      delivered: 2,
      pending: 0,
      failed: [],
    });
  });

  it('completes the order when the receiver refuses, and shows the failed delivery with its attempts, not the answer', async () => {
    const started = await stack.orders.startOrder(
      order('hook-refused', ['form.pdf'], {
        callbackUrl: `${receiver.baseUrl}/refuse/hooks`,
        clientId: 'client-a',
      }),
    );
    const result = await started.handle.result();
    expect(result.documents).toHaveLength(1);
    await completedWithOneFailedDelivery('hook-refused', 1, /answered 400$/);
    const reasons = await activityFailureMessages(started.handle, stack.payloadKeys, 'deliverWebhook');
    expect(reasons.join(' ')).not.toContain('/refuse');
  });

  it('delivers nothing to a host outside WEBHOOK_ALLOWED_HOSTS, completes the order and shows the failure, not why', async () => {
    const unlisted = receiver.baseUrl.replace('127.0.0.1', 'localhost');
    const started = await stack.orders.startOrder(
      order('hook-unlisted', ['form.pdf'], {
        callbackUrl: `${unlisted}/hooks/unlisted`,
        clientId: 'client-a',
      }),
    );
    await started.handle.result();
    await completedWithOneFailedDelivery('hook-unlisted', 1, /localhost is not one/);
    expect(receiver.deliveries.filter(({ path }) => path.includes('unlisted'))).toEqual([]);
  });
});
