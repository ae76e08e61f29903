/**
 * The `deliverWebhook` activity against a listener on loopback that counts the connections it gets: internal
 * destinations, in every spelling and behind a name, are refused before any connection, and a name is resolved
 * once per delivery and connected to at the address that was checked (DNS rebinding gains nothing). Only
 * loopback is ever connected to. Signing is checked by a receiver that verifies as docs/webhooks.md says.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { deliverWebhookActivity, type DeliverWebhookInput } from '../../src/activities/deliver-webhook';
import type { WebhookEvent } from '../../src/contract';
import { answering } from '../helpers/host-resolver';
import { startWebhookReceiver } from '../helpers/webhook-receiver';

const event = {
  id: 'evt_test_1',
  type: 'order.completed',
  orderRef: 'hook-1',
} as WebhookEvent;
const secrets = { default: 'default-secret-0123456789', 'client-a': 'client-a-secret-0123456789' };

describe('deliverWebhook', () => {
  let listener: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    listener = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  async function applicationFailure(delivery: Promise<unknown>): Promise<ApplicationFailure> {
    const error = await delivery.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ApplicationFailure);
    return error as ApplicationFailure;
  }

  it.each([
    '127.0.0.1',
    '127.1',
    '0x7f000001',
    '2130706433',
    '0177.0.0.1',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '0.0.0.0',
    '[::]',
  ])('refuses https://%s before connecting: a final failure with its attempt', async (host) => {
    const deliver = deliverWebhookActivity({
      webhooks: { secrets, allowHttpLoopback: false, allowedHosts: [] },
    });
    const before = connections;
    const failure = await applicationFailure(
      deliver({ callbackUrl: `https://${host}:${port}/hooks`, event }),
    );
    expect(failure).toMatchObject({
      type: 'WEBHOOK_DESTINATION_REFUSED',
      nonRetryable: true,
      details: [{ attempt: 1 }],
    });
    expect(failure.message).toMatch(/^callbackUrl must lead to a public address/);
    expect(connections).toBe(before);
  });

  it.each([['127.0.0.1'], ['::ffff:127.0.0.1'], ['0.0.0.0'], ['::1']])(
    'refuses a name that resolves to %s, before connecting',
    async (address) => {
      const resolver = answering([{ address, family: address.includes(':') ? 6 : 4 }]);
      const deliver = deliverWebhookActivity({
        webhooks: { secrets, allowHttpLoopback: false, allowedHosts: [] },
        resolveHost: resolver,
      });
      const before = connections;
      const failure = await applicationFailure(
        deliver({ callbackUrl: `https://hooks.internal.test:${port}/hooks`, event }),
      );
      expect(failure).toMatchObject({ type: 'WEBHOOK_DESTINATION_REFUSED', nonRetryable: true });
      expect(failure.message).toMatch(/^hooks\.internal\.test resolves to .* address; internal receivers/);
      expect(resolver.calls).toBe(1);
      expect(connections).toBe(before);
    },
  );

  it('connects to the address it checked, and refuses when the name rebinds to an internal one', async () => {
    // This machine is allowed here (WEBHOOK_ALLOW_HTTP_LOOPBACK), the unspecified address never is; 0.0.0.0
    // would reach the listener too, so a connection there would be counted.
    const resolver = answering([{ address: '127.0.0.1', family: 4 }], [{ address: '0.0.0.0', family: 4 }]);
    const deliver = deliverWebhookActivity({
      webhooks: { secrets, allowHttpLoopback: true, allowedHosts: [] },
      resolveHost: resolver,
    });
    const input: DeliverWebhookInput = { callbackUrl: `https://hooks.rebind.test:${port}/hooks`, event };
    const before = connections;

    // The name exists only for our resolver: reaching the listener proves the connection used its answer.
    const first = await applicationFailure(deliver(input));
    expect(first).toMatchObject({ type: 'WEBHOOK_UNDELIVERED', nonRetryable: false });
    expect(resolver.calls).toBe(1);
    expect(connections).toBe(before + 1);

    const second = await applicationFailure(deliver(input));
    expect(second).toMatchObject({ type: 'WEBHOOK_DESTINATION_REFUSED', nonRetryable: true });
    expect(second.message).toContain('hooks.rebind.test resolves to 0.0.0.0 is the unspecified address');
    expect(resolver.calls).toBe(2);
    expect(connections).toBe(before + 1);
  });

  it('reaches an internal receiver the operators listed, at the address its name resolved to', async () => {
    const resolver = answering([{ address: '127.0.0.1', family: 4 }]);
    const deliver = deliverWebhookActivity({
      // Listed on the listener's port: a listed host receives webhooks on the port its entry names only.
      webhooks: { secrets, allowHttpLoopback: false, allowedHosts: [`billing.internal.test:${port}`] },
      resolveHost: resolver,
    });
    const before = connections;
    const failure = await applicationFailure(
      deliver({ callbackUrl: `https://billing.internal.test:${port}/hooks`, event }),
    );
    // The listener is no TLS server: the attempt fails after connecting, and will be retried.
    expect(failure.type).toBe('WEBHOOK_UNDELIVERED');
    expect(connections).toBe(before + 1);
  });

  it('signs with default only orders without a client: a client the secrets file does not name gets nothing', async () => {
    const stops: (() => Promise<void> | void)[] = [];
    // Client B's receiver, which holds `default` too: it must never accept another client's events.
    const receiver = await startWebhookReceiver(
      { onStop: (_name, stop) => void stops.push(stop) },
      { secrets },
    );
    try {
      const deliver = deliverWebhookActivity({
        webhooks: { secrets, allowHttpLoopback: true, allowedHosts: [] },
      });
      const to = (path: string): string => `${receiver.baseUrl}/${path}`;
      await deliver({ callbackUrl: to('no-client'), event });
      await deliver({ callbackUrl: to('client-a'), clientId: 'client-a', event });
      for (const clientId of ['client-b', 'constructor']) {
        const failure = await applicationFailure(deliver({ callbackUrl: to(clientId), clientId, event }));
        expect(failure).toMatchObject({ type: 'WEBHOOK_NOT_CONFIGURED', nonRetryable: true });
        expect(failure.message).toBe(`no webhook secret named ${clientId} (WEBHOOK_SECRETS_FILE)`);
      }
      expect(receiver.deliveries.map(({ path, signer }) => [path, signer])).toEqual([
        ['/no-client', 'default'],
        ['/client-a', 'client-a'],
      ]);
    } finally {
      for (const stop of stops) await stop();
    }
  });
});
