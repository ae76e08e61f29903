/**
 * Step: deliver one webhook event of an order to its `callbackUrl`, signed with the secret of the client that
 * placed the order (docs/webhooks.md). The secret is looked up here, in the worker: it never enters history.
 * The destination is checked again here (`src/webhook-destination.ts`): the URL, then every address its host
 * resolves to, and the connection goes to exactly the address checked. A receiver that is down or answers
 * 408/425/429/5xx is retried by the activity's retry policy with the same event id, so receivers drop repeats by
 * `id`; any other answer that is not 2xx refuses the event for good.
 *
 * Every failure carries the attempt it ended (`details[0].attempt`): the order shows a failed delivery with its
 * attempt count only, never the receiver's status or error text (that would make a port scanner of it); the
 * message, for operators, stays in the activity's failure in history.
 */
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Context } from '@temporalio/activity';
import type { ApplicationFailure } from '@temporalio/common';
import type { WebhookEvent } from '../contract';
import { applicationFailure, type FailureCode } from '../failure-types';
import { webhookConfigSchema, type WebhookConfig } from '../config';
import { urlOrigin } from '../url-policy';
import {
  callbackUrlProblem,
  destinationLookup,
  WebhookDestinationError,
  type HostResolver,
} from '../webhook-destination';

/** Header names of a delivery. */
export const WEBHOOK_HEADERS = {
  /** The event's id (also in the body): the same on every delivery of one event. */
  id: 'badge-webhook-id',
  /** Unix time in seconds when this delivery was signed; receivers refuse old ones (replay window). */
  timestamp: 'badge-webhook-timestamp',
  /** `v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`. */
  signature: 'badge-webhook-signature',
} as const;

/** Statuses after which the same delivery may succeed later (`WEBHOOK_UNDELIVERED`; others: `WEBHOOK_REFUSED`). */
const RETRYABLE_STATUSES = new Set([408, 425, 429]);
/** One attempt's time limit: a receiver that hangs is tried again, not waited for. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** Input of `deliverWebhook`. */
export interface DeliverWebhookInput {
  readonly callbackUrl: string;
  /** Whose secret signs: the order's `clientId` (its own secret only), or the `default` secret when absent. */
  readonly clientId?: string;
  readonly event: WebhookEvent;
}

/** The signature header's value for `body` signed at `timestamp` (seconds) with `secret`. */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The activity's dependencies: the worker's webhook settings. */
export interface WebhookDependencies {
  readonly webhooks?: WebhookConfig;
  /** How callback hosts are resolved. @default `dns.lookup` with every address */
  readonly resolveHost?: HostResolver;
  /** One attempt's time limit. @default 10 s */
  readonly webhookAttemptTimeoutMs?: number;
}

const systemResolver: HostResolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The attempt this activity runs as; 1 outside an activity (a direct call). */
function currentAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/** Sends `body` and answers the status; the answer's body is never read. */
function post(options: {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly lookup: ReturnType<typeof destinationLookup>;
  readonly timeoutMs: number;
}): Promise<number> {
  const send = options.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const request = send(
      options.url,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
        lookup: options.lookup,
        // A fresh connection per delivery: no socket kept from an earlier lookup.
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        response.destroy();
        resolve(response.statusCode ?? 0);
      },
    );
    request.once('error', reject);
    request.end(options.body);
  });
}

/** Creates the `deliverWebhook` activity. */
export function deliverWebhookActivity(
  deps: WebhookDependencies,
): (input: DeliverWebhookInput) => Promise<{ readonly status: number }> {
  const settings = deps.webhooks ?? webhookConfigSchema.parse({});
  const lookup = destinationLookup({ policy: settings, resolve: deps.resolveHost ?? systemResolver });
  const timeoutMs = deps.webhookAttemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
  return async function deliverWebhook({ callbackUrl, clientId, event }) {
    // Every failure's first detail: the attempt that failed (1 for the first).
    const details = { attempt: currentAttempt() };
    const fail = (code: FailureCode, message: string): ApplicationFailure =>
      applicationFailure(code, message, { details: [details] });
    const problem = callbackUrlProblem(callbackUrl, settings);
    if (problem !== null) throw fail('WEBHOOK_DESTINATION_REFUSED', `callbackUrl ${problem}`);
    // `default` signs only orders without a client: were it a fallback, one client's events would verify at
    // another client's receiver, which holds `default` too.
    const name = clientId ?? 'default';
    const secret = Object.hasOwn(settings.secrets, name) ? settings.secrets[name] : undefined;
    if (secret === undefined) {
      throw fail('WEBHOOK_NOT_CONFIGURED', `no webhook secret named ${name} (WEBHOOK_SECRETS_FILE)`);
    }
    const body = JSON.stringify(event);
    const timestamp = Math.floor(Date.now() / 1000);
    // Only the origin is named in messages (a path or query may hold a token).
    const origin = urlOrigin(callbackUrl);
    let status: number;
    try {
      status = await post({
        url: new URL(callbackUrl),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'badge-orders-webhooks/1',
          [WEBHOOK_HEADERS.id]: event.id,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: webhookSignature(secret, timestamp, body),
        },
        body,
        lookup,
        timeoutMs,
      });
    } catch (error) {
      if (error instanceof WebhookDestinationError) throw fail('WEBHOOK_DESTINATION_REFUSED', error.message);
      // Retried: the receiver may be back soon.
      throw fail(
        'WEBHOOK_UNDELIVERED',
        `webhook ${event.type} to ${origin} was not delivered: ${(error as NodeJS.ErrnoException).code ?? (error as Error).name}`,
      );
    }
    if (status >= 200 && status < 300) return { status };
    // Redirects are not followed: a redirect could lead the signed event anywhere.
    const message = `webhook ${event.type} to ${origin} answered ${status}`;
    throw fail(
      status >= 500 || RETRYABLE_STATUSES.has(status) ? 'WEBHOOK_UNDELIVERED' : 'WEBHOOK_REFUSED',
      message,
    );
  };
}
