/**
 * A webhook receiver for tests: HTTP on 127.0.0.1, port 0, recording every delivery with the result of its
 * check as docs/webhooks.md tells receivers to do it: the timestamp within the replay window (5 minutes), then
 * `v1=` + hex HMAC-SHA256 over `<timestamp>.<body>` compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_HEADERS } from '../../src/activities/deliver-webhook';
import type { WebhookEvent } from '../../src/contract';
import type { LocalStack } from '../../tools/stack';

const REPLAY_WINDOW_S = 300;

/** Which of `secrets` (by name) signed the delivery; null when none did or it is outside the replay window. */
function webhookSigner(
  secrets: Readonly<Record<string, string>>,
  headers: IncomingHttpHeaders,
  body: string,
): string | null {
  const timestamp = Number(headers[WEBHOOK_HEADERS.timestamp]);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > REPLAY_WINDOW_S) return null;
  const given = Buffer.from(String(headers[WEBHOOK_HEADERS.signature] ?? ''));
  for (const [name, secret] of Object.entries(secrets)) {
    const expected = Buffer.from(
      `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`,
    );
    if (given.length === expected.length && timingSafeEqual(given, expected)) return name;
  }
  return null;
}

/** One delivery as the receiver saw it. */
interface WebhookDelivery {
  /** The request's path (and query). */
  readonly path: string;
  /** The event id header. */
  readonly id: string;
  /** Which secret (by name) signed it; null when none did or it is outside the replay window. */
  readonly signer: string | null;
  readonly event: WebhookEvent;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`, to which callback paths are added. */
  readonly baseUrl: string;
  /** Every delivery so far, in arrival order. */
  readonly deliveries: readonly WebhookDelivery[];
}

/**
 * Starts a receiver that answers each delivery with the status `answer` gives (default 204); `stack` stops it,
 * after whatever it starts later (the workers that deliver).
 */
export async function startWebhookReceiver(
  stack: Pick<LocalStack, 'onStop'>,
  options: {
    readonly secrets: Readonly<Record<string, string>>;
    readonly answer?: (delivery: WebhookDelivery) => number;
  },
): Promise<WebhookReceiver> {
  const deliveries: WebhookDelivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const delivery: WebhookDelivery = {
        path: request.url ?? '',
        id: String(request.headers[WEBHOOK_HEADERS.id]),
        signer: webhookSigner(options.secrets, request.headers, body),
        event: JSON.parse(body) as WebhookEvent,
      };
      deliveries.push(delivery);
      response.writeHead(options.answer?.(delivery) ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stack.onStop('the webhook receiver', () => new Promise<void>((resolve) => server.close(() => resolve())));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, deliveries };
}
