/**
 * Failure types: the `type` of every `ApplicationFailure` our activities and workflows raise. Retry policy is a
 * table of these names, so they are stable strings shared by workflow and activity code (no imports of either).
 *
 * {@link FAILURE_TABLE} is the one table: code → whether a retry can help, and what it means. The platform
 * client's `PlatformError.code`s, their retryability, {@link NON_RETRYABLE_FAILURE_TYPES} and the activities'
 * conversion to `ApplicationFailure` all derive from it. This module must stay free of Node imports: workflow
 * code imports it.
 */

/** One row of {@link FAILURE_TABLE}. */
export interface FailureTypeInfo {
  /** Whether trying the same step again can succeed (Temporal retries it with backoff). */
  readonly retryable: boolean;
  /** What the failure means, for people reading a history or a retry policy. */
  readonly meaning: string;
}

/** Every failure type, with its retryability and meaning. */
export const FAILURE_TABLE = Object.freeze({
  // Platform client (PlatformError.code)
  BAD_CREDENTIALS: {
    retryable: false,
    meaning: 'The token call was answered 401: wrong username or password.',
  },
  UNAUTHORIZED: { retryable: true, meaning: 'A call was answered 401 again after re-authenticating once.' },
  FORBIDDEN: { retryable: false, meaning: '403: the user lacks the badge or document scope.' },
  STOCK_NOT_FOUND: {
    retryable: false,
    meaning: '404 on order creation with a stock_id: the stock is unusable.',
  },
  NOT_FOUND: { retryable: false, meaning: 'Any other 404.' },
  VALIDATION: { retryable: false, meaning: '400/413/415/422: the payload or the file was rejected.' },
  CONFLICT: { retryable: true, meaning: '409: e.g. a request with the same idempotency key is in flight.' },
  RATE_LIMITED: { retryable: true, meaning: '429: too many requests; Retry-After gives the next delay.' },
  SERVER_ERROR: { retryable: true, meaning: '5xx from the platform (503 with Retry-After: maintenance).' },
  NETWORK: { retryable: true, meaning: 'Connection refused, reset or dropped before an answer arrived.' },
  TIMEOUT: {
    retryable: true,
    meaning: 'No complete answer within the deadline (connect, stall, total), or 408.',
  },
  UNEXPECTED_RESPONSE: {
    retryable: false,
    meaning:
      'The platform answered with a body or status that cannot be understood (e.g. an order without id).',
  },
  FILE_ERROR: {
    retryable: false,
    meaning: 'The local file to upload is missing, not regular or unreadable.',
  },
  // Service (our own code)
  INVALID_INPUT: { retryable: false, meaning: 'The workflow input or an update argument is invalid.' },
  INVALID_DOCUMENT: {
    retryable: false,
    meaning:
      'A document path leaves DOCUMENTS_ROOT, or the file is missing, empty or too large; or a referenced document is missing from the store or no longer matches its reference.',
  },
  DOCUMENT_UNAVAILABLE: {
    retryable: true,
    meaning:
      'A file-system error other than ENOENT/ENOTDIR/ELOOP while reading a document (e.g. EIO, EMFILE).',
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
  UNEXPECTED_ERROR: { retryable: true, meaning: 'Any other error (a bug, an unclassified failure).' },
} as const satisfies Readonly<Record<string, FailureTypeInfo>>);

/** One failure type, e.g. `'VALIDATION'`. */
export type FailureType = keyof typeof FAILURE_TABLE;

/** Whether a string is a failure type of {@link FAILURE_TABLE}. */
export function isFailureType(value: unknown): value is FailureType {
  return typeof value === 'string' && Object.hasOwn(FAILURE_TABLE, value);
}

/** Whether a failure type can succeed when retried (from {@link FAILURE_TABLE}). */
export function isRetryableFailureType(type: FailureType): boolean {
  return FAILURE_TABLE[type].retryable;
}

/** Errors of the Badge Ordering Platform client, by code. */
export const PLATFORM_FAILURE_TYPES = Object.freeze({
  badCredentials: 'BAD_CREDENTIALS',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  stockNotFound: 'STOCK_NOT_FOUND',
  notFound: 'NOT_FOUND',
  validation: 'VALIDATION',
  conflict: 'CONFLICT',
  rateLimited: 'RATE_LIMITED',
  serverError: 'SERVER_ERROR',
  network: 'NETWORK',
  timeout: 'TIMEOUT',
  unexpectedResponse: 'UNEXPECTED_RESPONSE',
  fileError: 'FILE_ERROR',
} as const satisfies Record<string, FailureType>);

/** Failures raised by our own code rather than the platform. */
export const SERVICE_FAILURE_TYPES = Object.freeze({
  /** The workflow input or an update argument is invalid; the message names the field. */
  invalidInput: 'INVALID_INPUT',
  /** A document path leaves DOCUMENTS_ROOT, or the file is missing, empty or too large. */
  invalidDocument: 'INVALID_DOCUMENT',
  /** A transient file-system error while reading a document; retried. */
  documentUnavailable: 'DOCUMENT_UNAVAILABLE',
  /** The order could not be placed (403/422 on creation): the caller fixes data or rights and starts again. */
  orderRejected: 'ORDER_REJECTED',
  /** Some documents were still failing when the repair deadline passed. */
  repairDeadlinePassed: 'REPAIR_DEADLINE_PASSED',
  /** An order creation of unknown outcome was not reconciled before its deadline. */
  reconciliationDeadlinePassed: 'RECONCILIATION_DEADLINE_PASSED',
  /** Anything unclassified. */
  unexpectedError: 'UNEXPECTED_ERROR',
} as const satisfies Record<string, FailureType>);

/**
 * Failure types that no retry can fix, derived from {@link FAILURE_TABLE}. Everything else (network, timeout,
 * 5xx, 429, 409, a 401 that survived re-authentication) is retried with backoff; 429 and a 503 in maintenance
 * use the platform's `Retry-After` as the next delay.
 */
export const NON_RETRYABLE_FAILURE_TYPES: readonly FailureType[] = Object.freeze(
  (Object.keys(FAILURE_TABLE) as FailureType[]).filter((type) => !FAILURE_TABLE[type].retryable),
);
