/**
 * The order workflow against a platform that takes only client credentials (the sandbox's `strict-client`
 * profile), with worker processes configured only as docs/platform-client.md says ("Client credentials"): orders
 * complete, placed once, their documents owned by BADGE_DOCUMENT_OWNER; a worker without it says so at start,
 * and an order with documents fails before anything is placed, naming BADGE_DOCUMENT_OWNER. Real dev server,
 * real sandbox over HTTP, real worker processes.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { createHash } from 'node:crypto';
import { DEMO_CLIENT, DEMO_USER } from '../../src/sandbox';
import { useTestStack } from '../helpers/stack';

const vehicle = { licensePlate: 'C-CC 57', fuel: 'electric' };
const badge = { type: 'green' };
const sha256 = (content: string): string => createHash('sha256').update(content).digest('hex');

/** The worker's platform settings for client credentials: user credentials unset. */
const CLIENT_ENV = {
  BADGE_USERNAME: '',
  BADGE_PASSWORD: '',
  BADGE_CLIENT_ID: DEMO_CLIENT.clientId,
  BADGE_CLIENT_SECRET: DEMO_CLIENT.clientSecret,
} as const;

describe('badgeOrder with client credentials', () => {
  const stack = useTestStack({ sandbox: { profile: 'strict-client' }, resetSandbox: true });

  function documents(orderRef: string, names: readonly string[]): { path: string }[] {
    return names.map((name) => ({
      path: stack.writeDocument(`${orderRef}/${name}`, `content of ${orderRef}/${name}`),
    }));
  }

  it('places the order once and stores every document owned by BADGE_DOCUMENT_OWNER (HTTP Basic)', async () => {
    await stack.withWorkerProcess({ ...CLIENT_ENV, BADGE_DOCUMENT_OWNER: DEMO_USER.id }, async () => {
      const orderRef = 'client-basic';
      const started = await stack.orders.startOrder({
        orderRef,
        vehicle,
        badge,
        stockId: 1001,
        documents: documents(orderRef, ['photo.jpg', 'form.pdf']),
      });
      const result = await started.handle.result();
      expect(result).toMatchObject({ stockId: '1001', stockFallback: false });
      const state = await stack.sandbox.control.state();
      expect(state.orders.map((order) => [order.id, order.user_id])).toEqual([
        [result.orderId, DEMO_USER.id],
      ]);
      const stored = state.documents.filter((document) => document.document_type_id === result.orderId);
      expect(stored.map((document) => document.document_owner)).toEqual([DEMO_USER.id, DEMO_USER.id]);
      expect(new Set(stored.map((document) => document.sha256))).toEqual(
        new Set(['photo.jpg', 'form.pdf'].map((name) => sha256(`content of ${orderRef}/${name}`))),
      );
      const stats = await stack.sandbox.control.stats();
      expect(stats.clientAuth).toEqual({ basic: stats.authCalls.issued });
    });
  });

  it('warns at start without BADGE_DOCUMENT_OWNER, and fails an order with documents naming it, placing nothing', async () => {
    // The in-process worker (user credentials, which this platform refuses) stops: this process is the only one.
    await stack.stopWorker();
    const worker = stack.startWorkerProcess({ ...CLIENT_ENV, BADGE_CLIENT_AUTH: 'body' });
    try {
      const started = await stack.orders.startOrder({
        orderRef: 'client-no-owner',
        vehicle,
        badge,
        documents: documents('client-no-owner', ['photo.jpg']),
      });
      const failure = await started.handle.result().then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).cause?.message).toMatch(
        /documentOwner: required.*client credentials name no user: set BADGE_DOCUMENT_OWNER/,
      );
      expect((await stack.sandbox.control.state()).orders).toEqual([]);
      expect((await stack.sandbox.control.stats()).clientAuth).toEqual({ body: 1 });
      // The worker said so when it started, before any order (its log is read once the order has run).
      expect(worker.output()).toMatch(/"level":40.*BADGE_DOCUMENT_OWNER is not set/);
      expect(worker.output()).not.toContain(DEMO_CLIENT.clientSecret);
    } finally {
      await worker.stop();
    }
  });
});
