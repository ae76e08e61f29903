/**
 * Failures: the one table. Every failure an activity or a workflow of this service raises has a code from
 * {@link FAILURE_TABLE}. The code is the `type` of its `ApplicationFailure` and is recorded in workflow
 * histories, so a code is never renamed. Each row says:
 *
 * - `retryable`: whether trying the step again can succeed. The activity boundary (`toApplicationFailure`) and
 *   the workflow's own failures ({@link applicationFailure}) set `nonRetryable` from it; Temporal then retries with the
 *   step's backoff or fails the step at once. No retry policy lists codes.
 * - `outcome`: what the failed platform call may have done, which the workflow reacts to:
 *   `not-sent` (the platform cannot have acted on it), `rejected` (it answered with a definite refusal) or
 *   `maybe-applied` (it may have taken effect: an order creation is then held for reconciliation unless the
 *   platform honours `Idempotency-Key`, an upload is flagged as a possible duplicate). Retryability and outcome
 *   are separate facts: a 5xx is retried and may have been applied; an unreadable 2xx is final and may have
 *   been applied. Rows without an outcome are about no platform call (invalid input, a deadline).
 * - `statuses` / `transport`: the HTTP statuses and transport error codes that map to the code, read by
 *   {@link codeForStatus} and {@link codeForTransport}; `on` narrows a status to one call.
 * - `meaning`: what happened, and why it is retried or not.
 *
 * Three facts override a row's outcome ({@link outcomeOf}): a transport failure that proves the request never
 * left is `not-sent`, and so is a 503 that carries `Retry-After`; any failure while reading the result a 303 See
 * Other pointed at is `maybe-applied`, because the 303 said the call was processed.
 *
 * Is a 413 retried, and why? 413 is in the `statuses` of `VALIDATION`: not retried, because the platform
 * refused the payload (too large) and the same bytes get the same answer; the order is rejected, or the
 * document waits for repair.
 *
 * Free of Node imports: workflow code imports this module.
 */
import { ApplicationFailure } from '@temporalio/common';

/** What a failed platform call may have done; see the module comment. */
export type CallOutcome = 'not-sent' | 'rejected' | 'maybe-applied';

/** One row of {@link FAILURE_TABLE}; the module comment says what each field means. */
interface FailureRow {
  readonly retryable: boolean;
  readonly outcome?: CallOutcome;
  /** Single statuses or `[from, to]` ranges. */
  readonly statuses?: readonly (number | readonly [number, number])[];
  /** The call these statuses mean this code on: the token call, or a call about a stock. */
  readonly on?: 'token' | 'stock';
  readonly transport?: readonly string[];
  readonly meaning: string;
}

/** Every failure code: retryable or final, outcome, what maps to it, and what it means. */
export const FAILURE_TABLE = Object.freeze({
  // The platform client (PlatformError.code)
  BAD_CREDENTIALS: {
    retryable: false,
    outcome: 'not-sent',
    statuses: [401],
    on: 'token',
    meaning:
      'The token call was answered 401: the configured credentials (username and password, or client id and secret) are wrong; fix the configuration.',
  },
  UNAUTHORIZED: {
    retryable: true,
    outcome: 'rejected',
    statuses: [401],
    meaning:
      'A call was answered 401 again after re-authenticating once; the next attempt starts with a fresh token.',
  },
  FORBIDDEN: {
    retryable: false,
    outcome: 'rejected',
    statuses: [403],
    meaning: '403: the user lacks the badge or document scope; only new rights help.',
  },
  STOCK_NOT_FOUND: {
    retryable: false,
    outcome: 'rejected',
    statuses: [404],
    on: 'stock',
    meaning:
      '404 on order creation with a stock_id (or naming stock_not_found): the order is created without it.',
  },
  NOT_FOUND: { retryable: false, outcome: 'rejected', statuses: [404], meaning: 'Any other 404.' },
  VALIDATION: {
    retryable: false,
    outcome: 'rejected',
    statuses: [400, 413, 415, 422],
    meaning:
      'The platform refused the payload or the file (413: too large, 415: type refused); the same request gets the same answer.',
  },
  CONFLICT: {
    retryable: true,
    outcome: 'rejected',
    statuses: [409],
    meaning: '409: e.g. a request with the same idempotency key is in flight; it is done soon.',
  },
  RATE_LIMITED: {
    retryable: true,
    outcome: 'not-sent',
    statuses: [429],
    meaning: '429: too many requests, nothing done; the next attempt waits for Retry-After.',
  },
  SERVER_ERROR: {
    retryable: true,
    outcome: 'maybe-applied',
    statuses: [[500, 999]],
    meaning:
      'A 5xx: the platform failed, perhaps after doing the work. A 503 with Retry-After is maintenance: not sent, retried after it.',
  },
  NETWORK: {
    retryable: true,
    outcome: 'maybe-applied',
    meaning:
      'No answer: the connection was refused, reset or dropped. Not sent when it never connected (refused, DNS, a failed TLS handshake).',
  },
  TIMEOUT: {
    retryable: true,
    outcome: 'maybe-applied',
    statuses: [408],
    transport: ['ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT', 'ECONNECTTIMEOUT'],
    meaning:
      'No complete answer within a deadline (connect, stall, total), or 408. Not sent when it never connected.',
  },
  REDIRECTED: {
    retryable: false,
    outcome: 'not-sent',
    statuses: [
      [300, 302],
      [304, 399],
    ],
    meaning:
      'A 3xx says the request was not processed, and the client did not follow it: a 301/302 after a POST (RFC 9110 §15.4.2–3 lets clients turn it into a GET), a redirect to another origin or from https to http, more than 5 redirects, no Location. The same call gets the same answer: set BADGE_BASE_URL to where the platform serves its API. A 307/308 on the same origin is followed with the same method and body, and a GET follows 301/302 too (http.ts).',
  },
  UNEXPECTED_RESPONSE: {
    retryable: false,
    outcome: 'maybe-applied',
    statuses: [303],
    meaning:
      'Any other status (405, …), an answer too large, a 2xx that cannot be understood (an order without id), or a 303 See Other whose result cannot be read (another origin, no Location): the same call gets the same answer, and it may have taken effect (a 303 says it did).',
  },
  FILE_ERROR: {
    retryable: false,
    outcome: 'not-sent',
    meaning:
      'The local file to upload is missing, not a regular file or unreadable (ENOENT, ENOTDIR, ELOOP, EISDIR).',
  },
  // Our own code
  INVALID_INPUT: { retryable: false, meaning: 'The workflow input or an update argument is invalid.' },
  INVALID_DOCUMENT: {
    retryable: false,
    outcome: 'not-sent',
    meaning:
      'A document path leaves DOCUMENTS_ROOT, or the file is missing, empty or too large; or a referenced document is missing from the store or no longer matches its reference.',
  },
  DOCUMENT_UNAVAILABLE: {
    retryable: true,
    outcome: 'not-sent',
    meaning:
      'A file-system error other than ENOENT/ENOTDIR/ELOOP while reading a document (e.g. EIO, EMFILE): it may pass.',
  },
  ORDER_REJECTED: {
    retryable: false,
    meaning: 'The order could not be placed (403/422 on creation): fix data or rights and start again.',
  },
  REPAIR_DEADLINE_PASSED: {
    retryable: false,
    meaning: 'Documents were still failing when the repair deadline passed.',
  },
  RECONCILIATION_DEADLINE_PASSED: {
    retryable: false,
    meaning: 'Nobody resolved an order creation of unknown outcome before the reconciliation deadline.',
  },
  UNEXPECTED_ERROR: {
    retryable: true,
    outcome: 'maybe-applied',
    meaning: 'Any other error (a bug, an unclassified failure).',
  },
  // Webhook deliveries to an order's callbackUrl (which receiver answers mean which: deliver-webhook.ts)
  WEBHOOK_NOT_CONFIGURED: {
    retryable: false,
    meaning:
      'No webhook secret for the order’s client (or, for an order without one, no default): an operator configures one.',
  },
  WEBHOOK_DESTINATION_REFUSED: {
    retryable: false,
    meaning: 'The callback URL, or an address its host resolves to, is not one this worker delivers to.',
  },
  WEBHOOK_REFUSED: {
    retryable: false,
    meaning: 'The receiver answered "do not send this again" (3xx, most 4xx).',
  },
  WEBHOOK_UNDELIVERED: {
    retryable: true,
    meaning: 'Not delivered this time (network, timeout, or an answer that asks to try later): retried.',
  },
} as const satisfies Readonly<Record<string, FailureRow>>);

/** One failure code, e.g. `'VALIDATION'`. */
export type FailureCode = keyof typeof FAILURE_TABLE;

const ROWS = Object.entries(FAILURE_TABLE) as [FailureCode, FailureRow][];

/** Whether a value is a code of {@link FAILURE_TABLE}. */
export function isFailureCode(value: unknown): value is FailureCode {
  return typeof value === 'string' && Object.hasOwn(FAILURE_TABLE, value);
}

/**
 * The code of an answer with a failure status: a row listing the status for what the call was (`on`), else
 * the row listing it for any call, else `UNEXPECTED_RESPONSE`.
 * @param status the HTTP status
 * @param on what the call was: the token call (its 401 means bad credentials), about a stock (its 404 means
 * the stock is unknown)
 */
export function codeForStatus(
  status: number,
  on: { readonly token?: boolean; readonly stock?: boolean } = {},
): FailureCode {
  const lists = ({ statuses = [] }: FailureRow): boolean =>
    statuses.some((entry) =>
      typeof entry === 'number' ? entry === status : status >= entry[0] && status <= entry[1],
    );
  const row =
    ROWS.find(
      ([, candidate]) => candidate.on !== undefined && on[candidate.on] === true && lists(candidate),
    ) ?? ROWS.find(([, candidate]) => candidate.on === undefined && lists(candidate));
  return row?.[0] ?? 'UNEXPECTED_RESPONSE';
}

/** The code of a transport failure (no answer): `TIMEOUT` for the codes its row lists, else `NETWORK`. */
export function codeForTransport(transportCode: string | undefined): 'TIMEOUT' | 'NETWORK' {
  const timeout: FailureRow = FAILURE_TABLE.TIMEOUT;
  return transportCode !== undefined && timeout.transport?.includes(transportCode) === true
    ? 'TIMEOUT'
    : 'NETWORK';
}

/**
 * Transport codes that prove the request never reached the platform: no connection, DNS, the server's
 * certificate refused during the TLS handshake.
 */
const NEVER_SENT_TRANSPORT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ECONNECTTIMEOUT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_INVALID_URL',
]);

/**
 * TLS protocol failures (OpenSSL's codes, such as ERR_SSL_WRONG_VERSION_NUMBER): during the handshake they
 * prove the request never left; on a connection whose handshake had completed (a reused keep-alive one, or a
 * bad record while the answer was read) the request may have been sent.
 */
const isTlsProtocolCode = (code: string): boolean => code === 'EPROTO' || code.startsWith('ERR_SSL_');

/**
 * What a failed call may have done: its row's outcome (`maybe-applied` when the row has none), except that
 * - a call whose platform answered 303 See Other (RFC 9110 §15.4.4: it processed the call and points at the
 *   result) is `maybe-applied` whatever then failed while reading the result;
 * - a call without an answer whose transport code proves it never left (refused, DNS, certificate, connect
 *   timeout, a TLS protocol failure before the handshake completed) is `not-sent`;
 * - a 503 with `Retry-After` is `not-sent`: our one inference. In RFC 9110 (15.6.4) a 503 says the server is
 *   unable to handle the request (overload, maintenance) and may say when to come back; we take a 503 that
 *   does as the platform's own statement that it did not handle this request. A crash after committing
 *   announces no end, so a 503 without Retry-After may have taken effect.
 * @param code the failure code
 * @param facts the answer's status and whether it carried Retry-After, or the transport's error code and
 *   whether the connection's TLS handshake had completed; `processed` when the call was answered 303 before
 */
export function outcomeOf(
  code: FailureCode,
  facts: {
    readonly status?: number;
    readonly retryAfter?: boolean;
    readonly transportCode?: string;
    readonly handshakeCompleted?: boolean;
    readonly processed?: boolean;
  } = {},
): CallOutcome {
  if (facts.processed === true) return 'maybe-applied';
  if (facts.status === 503 && facts.retryAfter === true) return 'not-sent';
  const { transportCode } = facts;
  if (
    facts.status === undefined &&
    transportCode !== undefined &&
    (NEVER_SENT_TRANSPORT_CODES.has(transportCode) ||
      (isTlsProtocolCode(transportCode) && facts.handshakeCompleted !== true))
  ) {
    return 'not-sent';
  }
  const row: FailureRow = FAILURE_TABLE[code];
  return row.outcome ?? 'maybe-applied';
}

/** `details[0]` of every `ApplicationFailure` an activity raises: what the workflow needs to decide. */
export interface FailureDetails {
  /** The activity attempt that failed. */
  readonly attempt: number;
  /** What the failed call may have done on the platform; `maybe-applied` when unknown. */
  readonly outcome: CallOutcome;
  /** The delay the platform asked for (429, 503 in maintenance), when it gave one. */
  readonly retryAfterMs?: number;
  /** The HTTP status, when the platform answered. */
  readonly status?: number;
  /** The field or part the platform named as at fault (a 422's `document_owner`, say), when it named one. */
  readonly field?: string;
  /** The setting that decides what was refused, when one does (`PlatformError.setting`): fixed, it can succeed. */
  readonly setting?: string;
}

/**
 * The `ApplicationFailure` of `code`, final or retryable as the table says: what workflow code (and an
 * activity that fails outside the boundary's conversion) throws for a failure of its own.
 * @param code the failure code, its `type`
 * @param message what happened, for operators
 * @param more its details and cause
 */
export function applicationFailure(
  code: FailureCode,
  message: string,
  more: { readonly details?: unknown[]; readonly cause?: Error } = {},
): ApplicationFailure {
  return ApplicationFailure.create({
    type: code,
    message,
    nonRetryable: !FAILURE_TABLE[code].retryable,
    ...more,
  });
}
