/**
 * A webhook receiver's check of a delivery, as docs/webhooks.md tells receivers to do it: the timestamp within
 * the replay window (5 minutes), then `v1=` + hex HMAC-SHA256 over `<timestamp>.<body>` compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { WEBHOOK_HEADERS } from '../../src/activities/deliver-webhook';

const REPLAY_WINDOW_S = 300;

/** Which of `secrets` (by name) signed the delivery; null when none did or it is outside the replay window. */
export function webhookSigner(
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
