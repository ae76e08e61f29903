/**
 * The one error hierarchy of the platform client.
 *
 * Every failure of a platform call surfaces as a {@link PlatformError} subclass with a fixed `name`, a stable
 * `code` (see {@link PLATFORM_ERROR_CODES}), the HTTP `method` and API `path` (never the full URL, never a
 * query string), the `status` when the platform answered, and a sanitised `cause`. Messages read like
 * `POST /badge/v2/api/v1/orders failed with 422 (Unprocessable Entity): <platform message>` and never carry
 * the password, a token or the Authorization header: errors travel into Temporal histories and logs.
 */
import { STATUS_CODES } from 'node:http';
import { FAILURE_TABLE } from '../failure-types';

/**
 * Stable codes of every platform failure mode, keyed by themselves so they read well in a retry-policy table
 * (`nonRetryableErrorTypes: [PLATFORM_ERROR_CODES.VALIDATION, …]`). Use `Object.values` to iterate.
 */
export const PLATFORM_ERROR_CODES = Object.freeze({
  /** The token call was answered with 401: the configured username or password is wrong. */
  BAD_CREDENTIALS: 'BAD_CREDENTIALS',
  /** A badge or document call was answered with 401 twice, even with a freshly issued token. */
  UNAUTHORIZED: 'UNAUTHORIZED',
  /** 403: the user lacks the badge or document scope. */
  FORBIDDEN: 'FORBIDDEN',
  /** 404 on order creation with a `stock_id`: the stock does not exist for this user. */
  STOCK_NOT_FOUND: 'STOCK_NOT_FOUND',
  /** Any other 404. */
  NOT_FOUND: 'NOT_FOUND',
  /** 422 (also 400, 413, 415): the payload or the file was rejected. */
  VALIDATION: 'VALIDATION',
  /** 409: e.g. a request with the same idempotency key is still in flight. */
  CONFLICT: 'CONFLICT',
  /** 429: too many requests; `retryAfterMs` says when to come back. */
  RATE_LIMITED: 'RATE_LIMITED',
  /** 5xx. */
  SERVER_ERROR: 'SERVER_ERROR',
  /** Connection refused, reset or dropped before an answer arrived. */
  NETWORK: 'NETWORK',
  /** No answer in time (connect, idle or total deadline), or a 408 from the platform. */
  TIMEOUT: 'TIMEOUT',
  /** The platform answered, but the body (or the status) cannot be understood. */
  UNEXPECTED_RESPONSE: 'UNEXPECTED_RESPONSE',
  /** The local file to upload is missing, not a regular file or unreadable. */
  FILE_ERROR: 'FILE_ERROR',
} as const);

/** One stable platform error code, e.g. `'VALIDATION'`. */
export type PlatformErrorCode = (typeof PLATFORM_ERROR_CODES)[keyof typeof PLATFORM_ERROR_CODES];

/** Whether a failure mode can succeed when simply tried again: read from the one failure table. */
function retryableCode(code: PlatformErrorCode): boolean {
  return FAILURE_TABLE[code].retryable;
}

/**
 * What a failed call may have done on the platform:
 * - `not-sent`: the platform cannot have acted on it (refused, DNS, TLS, connect timeout, 429, 503 with
 *   Retry-After, a local file error, bad credentials on the token call);
 * - `rejected`: the platform answered with a definite refusal (400, 401 after re-authentication, 403, 404,
 *   409, 413, 415, 422);
 * - `maybe-applied`: it may have taken effect (timeout or reset after sending, 500/502/504, 503 without
 *   Retry-After, 408, an unreadable or id-less 2xx, anything unclassifiable).
 * Order creation after `maybe-applied` must not be repeated blindly when the platform may ignore the key.
 */
export type CallOutcome = 'not-sent' | 'rejected' | 'maybe-applied';

/** Every {@link CallOutcome}, for validation and iteration. */
export const CALL_OUTCOMES: readonly CallOutcome[] = Object.freeze(['not-sent', 'rejected', 'maybe-applied']);

/** The facts {@link classifyOutcome} decides on. */
export type OutcomeFacts =
  /** The platform answered with this status (`retryAfter`: whether a `Retry-After` header came with it). */
  | { readonly kind: 'answered'; readonly status: number; readonly retryAfter?: boolean }
  /** No answer: the transport failed with this low-level code (`ECONNREFUSED`, `ETIMEDOUT`, …). */
  | { readonly kind: 'transport'; readonly code?: string }
  /** The client's own total or stall deadline ended the call after it had started. */
  | { readonly kind: 'deadline' }
  /** A local problem before (or instead of) sending: the file to upload cannot be read. */
  | { readonly kind: 'local' }
  /** The token call was answered 401: nothing was done with the credentials. */
  | { readonly kind: 'bad-credentials' };

/** Transport codes that prove the request never reached the platform. */
const NOT_SENT_TRANSPORT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ECONNECTTIMEOUT',
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_INVALID_URL',
]);

/** Statuses that are a definite refusal of this request. */
const REJECTED_STATUSES = new Set([400, 401, 403, 404, 409, 413, 415, 422]);

/**
 * The one rule that says what a failed call may have done on the platform. Used by the HTTP layer for every
 * error it builds, and as the default of every {@link PlatformError}.
 * @param facts what is known about the failure
 */
export function classifyOutcome(facts: OutcomeFacts): CallOutcome {
  switch (facts.kind) {
    case 'local':
    case 'bad-credentials':
      return 'not-sent';
    case 'deadline':
      return 'maybe-applied';
    case 'transport': {
      const code = facts.code ?? '';
      // TLS handshake failures carry OpenSSL codes such as ERR_SSL_WRONG_VERSION_NUMBER.
      return NOT_SENT_TRANSPORT_CODES.has(code) || code.startsWith('ERR_SSL_') ? 'not-sent' : 'maybe-applied';
    }
    case 'answered': {
      const { status } = facts;
      if (status === 429) return 'not-sent';
      // Maintenance announces its end; a crash after committing does not.
      if (status === 503 && facts.retryAfter === true) return 'not-sent';
      if (REJECTED_STATUSES.has(status)) return 'rejected';
      return 'maybe-applied';
    }
  }
}

/**
 * The codes {@link isRetryable} rejects, derived from the same table; handy for Temporal's
 * `nonRetryableErrorTypes` when activities use the code as the `ApplicationFailure` type.
 */
export const NON_RETRYABLE_PLATFORM_ERROR_CODES: readonly PlatformErrorCode[] = Object.freeze(
  Object.values(PLATFORM_ERROR_CODES).filter((code) => !retryableCode(code)),
);

/**
 * What a {@link PlatformError} keeps as its `cause`: a plain, secret-free summary of the underlying failure
 * (an axios error embeds the request config and its headers, so it is never kept itself).
 */
export interface PlatformErrorCause {
  /** Kind of the underlying error, e.g. `AxiosError`, `ZodError`, `SystemError`. */
  readonly name: string;
  /** Low-level code, e.g. `ECONNREFUSED`, `ETIMEDOUT`, `ENOENT`. */
  readonly code?: string;
  /** A short secret-free description. */
  readonly message?: string;
  /** HTTP status, when there was one. */
  readonly status?: number;
  /** HTTP method of the failed call. */
  readonly method?: string;
  /** API path of the failed call (no host, no query). */
  readonly path?: string;
}

/** Constructor fields common to every {@link PlatformError}. */
export interface PlatformErrorInit {
  /** HTTP method, upper case. */
  readonly method: string;
  /** API path, e.g. `/badge/v2/api/v1/orders` (no host, no query). */
  readonly path: string;
  /** HTTP status, when the platform answered. */
  readonly status?: number;
  /** The full, already sanitised message; when absent one is built from method, path, status and detail. */
  readonly message?: string;
  /** Text appended to the generated message, typically the platform's own error message. */
  readonly detail?: string;
  /** The platform's error code from the body, e.g. `validation_failed`. */
  readonly platformCode?: string;
  /** The platform's error message from the body. */
  readonly platformMessage?: string;
  /** A sanitised cause. */
  readonly cause?: PlatformErrorCause;
  /**
   * What the call may have done on the platform. When absent it is derived by {@link classifyOutcome} from
   * `status` (or, without one, from the error's kind).
   */
  readonly outcome?: CallOutcome;
}

/** `POST /x failed with 422 (Unprocessable Entity): detail`, or without status for failures without one. */
function buildMessage(init: PlatformErrorInit, fallback: string): string {
  if (init.message !== undefined) return init.message;
  const head =
    init.status === undefined
      ? `${init.method} ${init.path} ${fallback}`
      : `${init.method} ${init.path} failed with ${init.status} (${STATUS_CODES[init.status] ?? 'Unknown Status'})`;
  return init.detail ? `${head}: ${init.detail}` : head;
}

/**
 * Base class of every platform client error. Thrown only as one of its subclasses; use `code` (stable) rather
 * than the class name (bundlers may rename classes) when classifying, and {@link isRetryable} to decide
 * whether to try again.
 */
export abstract class PlatformError extends Error {
  /** Stable code of the failure mode. */
  abstract readonly code: PlatformErrorCode;
  /** HTTP method of the failed call. */
  readonly method: string;
  /** API path of the failed call (no host, no query). */
  readonly path: string;
  /** HTTP status, when the platform answered. */
  readonly status?: number;
  /** The platform's error code from the error body, e.g. `validation_failed`. */
  readonly platformCode?: string;
  /** The platform's error message from the error body. */
  readonly platformMessage?: string;
  /** A sanitised summary of the underlying error (never a raw axios error). */
  declare readonly cause?: PlatformErrorCause;
  /** What the call may have done on the platform; see {@link CallOutcome}. */
  readonly outcome: CallOutcome;

  protected constructor(init: PlatformErrorInit, fallback = 'failed', kindOutcome?: CallOutcome) {
    super(buildMessage(init, fallback), init.cause === undefined ? undefined : { cause: init.cause });
    this.method = init.method;
    this.path = init.path;
    if (init.status !== undefined) this.status = init.status;
    if (init.platformCode !== undefined) this.platformCode = init.platformCode;
    if (init.platformMessage !== undefined) this.platformMessage = init.platformMessage;
    this.outcome =
      init.outcome ??
      (init.status !== undefined
        ? classifyOutcome({ kind: 'answered', status: init.status })
        : (kindOutcome ??
          classifyOutcome({
            kind: 'transport',
            ...(init.cause?.code !== undefined && { code: init.cause.code }),
          })));
  }

  /** Whether trying the same call again can succeed; same answer as {@link isRetryable}. */
  get retryable(): boolean {
    return retryableCode(this.code);
  }

  /** A plain, secret-free representation for structured logs. */
  toJSON(): Record<string, unknown> {
    const { stack: _stack, ...own } = { ...this } as Record<string, unknown>;
    return { name: this.name, code: this.code, message: this.message, ...own, cause: this.cause };
  }
}

/** Set the class name on the prototype so that `name` is fixed and appears in `stack` and `inspect`. */
function named(ctor: { prototype: Error }, name: string): void {
  Object.defineProperty(ctor.prototype, 'name', { value: name, writable: false, enumerable: false });
}

/** Thrown when the token call is answered with 401: the configured credentials are wrong. Not retryable. */
export class BadCredentialsError extends PlatformError {
  /** Always `BAD_CREDENTIALS`. */
  readonly code = PLATFORM_ERROR_CODES.BAD_CREDENTIALS;
  /** @param init where and how the call failed */
  constructor(init: PlatformErrorInit) {
    super({
      ...init,
      detail: init.detail ?? 'the platform rejected the configured credentials',
      outcome: init.outcome ?? classifyOutcome({ kind: 'bad-credentials' }),
    });
  }
}
named(BadCredentialsError, 'BadCredentialsError');

/**
 * Thrown when a badge or document call is answered with 401 again after the client re-authenticated once.
 * Retryable: a later attempt starts with a fresh token.
 */
export class UnauthorizedError extends PlatformError {
  /** Always `UNAUTHORIZED`. */
  readonly code = PLATFORM_ERROR_CODES.UNAUTHORIZED;
  /** @param init where and how the call failed */
  constructor(init: PlatformErrorInit) {
    super(init);
  }
}
named(UnauthorizedError, 'UnauthorizedError');

/** Thrown on 403: the user lacks the scope the operation needs (`scope`, when the platform names it). */
export class ForbiddenError extends PlatformError {
  /** Always `FORBIDDEN`. */
  readonly code = PLATFORM_ERROR_CODES.FORBIDDEN;
  /** The missing scope (e.g. `badge`, `document`), when the error body names it. */
  readonly scope?: string;
  /** @param init where and how the call failed, plus the missing scope */
  constructor(init: PlatformErrorInit & { readonly scope?: string }) {
    super(init);
    if (init.scope !== undefined) this.scope = init.scope;
  }
}
named(ForbiddenError, 'ForbiddenError');

/** Thrown on 404 from order creation with a `stock_id`: create the order without it or fix the master data. */
export class StockNotFoundError extends PlatformError {
  /** Always `STOCK_NOT_FOUND`. */
  readonly code = PLATFORM_ERROR_CODES.STOCK_NOT_FOUND;
  /** The stock id that was sent, normalised to a string. */
  readonly stockId?: string;
  /** @param init where and how the call failed, plus the stock id sent */
  constructor(init: PlatformErrorInit & { readonly stockId?: string }) {
    super(init);
    if (init.stockId !== undefined) this.stockId = init.stockId;
  }
}
named(StockNotFoundError, 'StockNotFoundError');

/** Thrown on any other 404. */
export class NotFoundError extends PlatformError {
  /** Always `NOT_FOUND`. */
  readonly code = PLATFORM_ERROR_CODES.NOT_FOUND;
  /** @param init where and how the call failed */
  constructor(init: PlatformErrorInit) {
    super(init);
  }
}
named(NotFoundError, 'NotFoundError');

/**
 * Thrown on 422 (and 400, 413, 415): the platform rejected the payload or the file. `details` holds what the
 * error body says (its `details`, or the error object itself); `field` names the offending field or part.
 */
export class ValidationError extends PlatformError {
  /** Always `VALIDATION`. */
  readonly code = PLATFORM_ERROR_CODES.VALIDATION;
  /** The platform's description of the problem, as sent (secrets redacted). */
  readonly details?: unknown;
  /** The field or multipart part at fault, when named. */
  readonly field?: string;
  /** @param init where and how the call failed, plus the platform's details */
  constructor(init: PlatformErrorInit & { readonly details?: unknown; readonly field?: string }) {
    super(init);
    if (init.details !== undefined) this.details = init.details;
    if (init.field !== undefined) this.field = init.field;
  }
}
named(ValidationError, 'ValidationError');

/** Thrown on 409, e.g. when a request with the same idempotency key is still being processed. Retryable. */
export class ConflictError extends PlatformError {
  /** Always `CONFLICT`. */
  readonly code = PLATFORM_ERROR_CODES.CONFLICT;
  /** @param init where and how the call failed */
  constructor(init: PlatformErrorInit) {
    super(init);
  }
}
named(ConflictError, 'ConflictError');

/** Thrown on 429. Retryable, ideally not before `retryAfterMs` (from the `Retry-After` header). */
export class RateLimitedError extends PlatformError {
  /** Always `RATE_LIMITED`. */
  readonly code = PLATFORM_ERROR_CODES.RATE_LIMITED;
  /** Delay the platform asked for, from `Retry-After` (seconds or HTTP date); absent when not sent. */
  readonly retryAfterMs?: number;
  /** @param init where and how the call failed, plus the requested delay */
  constructor(init: PlatformErrorInit & { readonly retryAfterMs?: number }) {
    super(init);
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }
}
named(RateLimitedError, 'RateLimitedError');

/**
 * Thrown on 5xx. Retryable. A 503 with `Retry-After` is maintenance (outcome `not-sent`, `retryAfterMs` set);
 * any other 5xx may have taken effect.
 */
export class ServerError extends PlatformError {
  /** Always `SERVER_ERROR`. */
  readonly code = PLATFORM_ERROR_CODES.SERVER_ERROR;
  /** Delay the platform asked for, from `Retry-After`; absent when not sent or unreadable. */
  readonly retryAfterMs?: number;
  /** @param init where and how the call failed, plus the requested delay */
  constructor(init: PlatformErrorInit & { readonly retryAfterMs?: number }) {
    super({
      ...init,
      ...(init.outcome === undefined &&
        init.status !== undefined && {
          outcome: classifyOutcome({
            kind: 'answered',
            status: init.status,
            retryAfter: init.retryAfterMs !== undefined,
          }),
        }),
    });
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }
}
named(ServerError, 'ServerError');

/** Thrown when the connection is refused, reset or dropped before an answer arrived. Retryable. */
export class NetworkError extends PlatformError {
  /** Always `NETWORK`. */
  readonly code = PLATFORM_ERROR_CODES.NETWORK;
  /** @param init where and how the call failed */
  constructor(init: PlatformErrorInit) {
    super(init, 'failed: network error');
  }
}
named(NetworkError, 'NetworkError');

/** Thrown when no answer arrived in time (connect, idle or total deadline), or on 408. Retryable. */
export class TimeoutError extends PlatformError {
  /** Always `TIMEOUT`. */
  readonly code = PLATFORM_ERROR_CODES.TIMEOUT;
  /** The deadline that was exceeded, when known. */
  readonly timeoutMs?: number;
  /** @param init where and how the call failed, plus the deadline */
  constructor(init: PlatformErrorInit & { readonly timeoutMs?: number }) {
    super(init, init.timeoutMs === undefined ? 'timed out' : `timed out after ${init.timeoutMs} ms`);
    if (init.timeoutMs !== undefined) this.timeoutMs = init.timeoutMs;
  }
}
named(TimeoutError, 'TimeoutError');

/**
 * Thrown when the platform answered but the body (or an unexpected status such as a redirect) cannot be
 * understood; the message names what was missing. Not retryable: the same call returns the same body.
 */
export class UnexpectedResponseError extends PlatformError {
  /** Always `UNEXPECTED_RESPONSE`. */
  readonly code = PLATFORM_ERROR_CODES.UNEXPECTED_RESPONSE;
  /** @param init where and how the call failed */
  constructor(init: PlatformErrorInit) {
    super(init, 'returned an unexpected response');
  }
}
named(UnexpectedResponseError, 'UnexpectedResponseError');

/** Thrown before any byte is sent when the file to upload is missing, not a regular file or unreadable. */
export class FileError extends PlatformError {
  /** Always `FILE_ERROR`. */
  readonly code = PLATFORM_ERROR_CODES.FILE_ERROR;
  /** The local path that could not be read. */
  readonly filePath: string;
  /** @param init where and how the call failed, plus the local file path */
  constructor(init: PlatformErrorInit & { readonly filePath: string }) {
    super({ ...init, outcome: init.outcome ?? classifyOutcome({ kind: 'local' }) });
    this.filePath = init.filePath;
  }
}
named(FileError, 'FileError');

/** Whether a value is a {@link PlatformError} (also across module copies, by its stable code). */
export function isPlatformError(error: unknown): error is PlatformError {
  if (error instanceof PlatformError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return (
    typeof code === 'string' &&
    Object.values<string>(PLATFORM_ERROR_CODES).includes(code) &&
    typeof (error as { method?: unknown }).method === 'string' &&
    typeof (error as { path?: unknown }).path === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/**
 * The one place that decides whether a platform failure is worth retrying: network, timeout, 5xx, 429, 409
 * and a repeated 401 are; bad credentials, 403, unknown stock, other 404, validation, unexpected responses and
 * local file errors are not. Anything that is not a {@link PlatformError} (a bug, an abort) is not retryable.
 */
export function isRetryable(error: unknown): boolean {
  return isPlatformError(error) && retryableCode(error.code);
}
