/**
 * Failure types: the `type` of every `ApplicationFailure` our activities and workflows raise. Retry policy is a
 * table of these names, so they are stable strings shared by workflow and activity code (no imports of either).
 * The platform's codes match `PlatformError.code` of the platform client.
 */

/** Errors of the Badge Ordering Platform client, by code. */
export const PLATFORM_FAILURE_TYPES = {
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
} as const;

/** Failures raised by our own code rather than the platform. */
export const SERVICE_FAILURE_TYPES = {
  /** The workflow input or an update argument is invalid; the message names the field. */
  invalidInput: 'INVALID_INPUT',
  /** A document path leaves DOCUMENTS_ROOT, or the file is missing, empty or too large. */
  invalidDocument: 'INVALID_DOCUMENT',
  /** The order could not be placed (403/422 on creation): the caller fixes data or rights and starts again. */
  orderRejected: 'ORDER_REJECTED',
  /** Some documents were still failing when the repair deadline passed. */
  repairDeadlinePassed: 'REPAIR_DEADLINE_PASSED',
} as const;

/**
 * Failure types that no retry can fix. Everything else (network, timeout, 5xx, 429, 409, a 401 that survived
 * re-authentication) is retried with backoff; 429 uses the platform's `Retry-After` as the next delay.
 */
export const NON_RETRYABLE_FAILURE_TYPES: readonly string[] = [
  PLATFORM_FAILURE_TYPES.badCredentials,
  PLATFORM_FAILURE_TYPES.forbidden,
  PLATFORM_FAILURE_TYPES.stockNotFound,
  PLATFORM_FAILURE_TYPES.notFound,
  PLATFORM_FAILURE_TYPES.validation,
  PLATFORM_FAILURE_TYPES.unexpectedResponse,
  PLATFORM_FAILURE_TYPES.fileError,
  SERVICE_FAILURE_TYPES.invalidInput,
  SERVICE_FAILURE_TYPES.invalidDocument,
];
