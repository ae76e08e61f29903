/**
 * The order workflow against a platform that takes only client credentials (the sandbox's `strict-client`
 * profile) when the document owner is not configured: configured as docs/platform-client.md says ("Client
 * credentials") but without BADGE_DOCUMENT_OWNER, a worker says so at start, and an order with documents fails
 * before anything is placed, naming BADGE_DOCUMENT_OWNER. (With it, the profile matrix,
 * badge-order-profiles.test.ts, runs every scenario against this platform.) Real dev server, real sandbox over
 * HTTP, a real worker process.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { DEMO_CLIENT } from '../../src/sandbox';
import { documentedPlatformSettings } from '../helpers/documented-settings';
import { useTestStack } from '../helpers/stack';

describe('badgeOrder with client credentials', () => {
  const stack = useTestStack({ sandbox: { profile: 'strict-client' } });

  it('warns at start without BADGE_DOCUMENT_OWNER, and fails an order with documents naming it, placing nothing', async () => {
    const { BADGE_DOCUMENT_OWNER: _owner, ...documented } = documentedPlatformSettings('strict-client') ?? {};
    const worker = stack.startWorkerProcess({ ...documented, BADGE_CLIENT_AUTH: 'body' });
    try {
      const started = await stack.orders.startOrder({
        orderRef: 'client-no-owner',
        vehicle: { licensePlate: 'C-CC 57', fuel: 'electric' },
        badge: { type: 'green' },
        documents: [{ path: stack.writeDocument('client-no-owner/photo.jpg', 'a photo') }],
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
