/**
 * Step: deliver one webhook event of an order to its `callbackUrl`, signed with the secret of the client that
 * placed the order (docs/webhooks.md). The secret is looked up here, in the worker: it never enters history.
 * A receiver that is down or answers 408/425/429/5xx is retried by the activity's retry policy with the same
 * event id, so receivers drop repeats by `id`; any other answer that is not 2xx refuses the event for good.
 */
import { createHmac } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { callbackUrlProblem, type WebhookEvent } from '../contract';
import { urlOrigin, webhookConfigSchema, type WebhookConfig } from '../config';

/** Header names of a delivery. */
export const WEBHOOK_HEADERS = {
  /** The event's id (also in the body): the same on every delivery of one event. */
  id: 'badge-webhook-id',
  /** Unix time in seconds when this delivery was signed; receivers refuse old ones (replay window). */
  timestamp: 'badge-webhook-timestamp',
  /** `v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`. */
  signature: 'badge-webhook-signature',
} as const;

/** Failure types of a delivery that no retry can fix. */
export const WEBHOOK_FAILURE_TYPES = {
  /** No secret for the order's client (and no `default`), or the URL is not allowed by this worker. */
  notConfigured: 'WEBHOOK_NOT_CONFIGURED',
  /** The receiver answered with a status that says "do not send this again" (3xx, most 4xx). */
  refused: 'WEBHOOK_REFUSED',
} as const;

/** Statuses after which the same delivery may succeed later. */
const RETRYABLE_STATUSES = new Set([408, 425, 429]);
/** One attempt's time limit: a receiver that hangs is tried again, not waited for. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** Input of `deliverWebhook`. */
export interface DeliverWebhookInput {
  readonly callbackUrl: string;
  /** Whose secret signs: the order's `clientId`, or the `default` secret when absent. */
  readonly clientId?: string;
  readonly event: WebhookEvent;
}

/** What a delivery answered. */
export interface DeliverWebhookResult {
  readonly status: number;
}

/** The signature header's value for `body` signed at `timestamp` (seconds) with `secret`. */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The activity's dependencies: the worker's webhook settings. */
export interface WebhookDependencies {
  readonly webhooks?: WebhookConfig;
}

/** Creates the `deliverWebhook` activity. */
export function deliverWebhookActivity(
  deps: WebhookDependencies,
): (input: DeliverWebhookInput) => Promise<DeliverWebhookResult> {
  const settings = deps.webhooks ?? webhookConfigSchema.parse({});
  return async function deliverWebhook({ callbackUrl, clientId, event }) {
    const problem = callbackUrlProblem(callbackUrl, settings);
    if (problem !== null) {
      throw ApplicationFailure.create({
        type: WEBHOOK_FAILURE_TYPES.notConfigured,
        message: `callbackUrl ${problem}`,
        nonRetryable: true,
      });
    }
    const secret =
      (clientId === undefined ? undefined : settings.secrets[clientId]) ?? settings.secrets.default;
    if (secret === undefined) {
      throw ApplicationFailure.create({
        type: WEBHOOK_FAILURE_TYPES.notConfigured,
        message: `no webhook secret for client ${clientId ?? '(none)'} and no default secret (WEBHOOK_SECRETS_FILE)`,
        nonRetryable: true,
      });
    }
    const body = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    const origin = urlOrigin(callbackUrl);
    let response: Response;
    try {
      response = await fetch(callbackUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'badge-orders-webhooks/1',
          [WEBHOOK_HEADERS.id]: event.id,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: webhookSignature(secret, timestamp, body),
        },
        body,
        // A redirect could lead the signed event anywhere; receivers give their final URL.
        redirect: 'manual',
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      // The answer's body is not read: only the status counts.
      await response.body?.cancel();
    } catch (error) {
      // Retried: the receiver may be back soon. Only the origin is named (a path or query may hold a token).
      throw new Error(`webhook ${event.type} to ${origin} was not delivered: ${(error as Error).name}`);
    }
    if (response.status >= 200 && response.status < 300) return { status: response.status };
    const message = `webhook ${event.type} to ${origin} answered ${response.status}`;
    if (response.status >= 500 || RETRYABLE_STATUSES.has(response.status)) throw new Error(message);
    throw ApplicationFailure.create({ type: WEBHOOK_FAILURE_TYPES.refused, message, nonRetryable: true });
  };
}
