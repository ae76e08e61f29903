/**
 * The one error type of the platform client: every failure of a platform call (and of reading the file to
 * upload) is a {@link PlatformError} with a code of the failure table (`src/failure-types.ts`). Messages read
 * like `POST /badge/v2/api/v1/orders failed with 422 (Unprocessable Entity): <platform message>` and never carry
 * the password, a token or the Authorization header: errors travel into Temporal histories and logs.
 */
import { STATUS_CODES } from 'node:http';
import { FAILURE_TABLE, isFailureCode, outcomeOf } from '../failure-types';
import type { CallOutcome, FailureCode } from '../failure-types';

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
  /** Set when the connection's TLS handshake had completed: a TLS error then does not prove nothing was sent. */
  readonly handshakeCompleted?: true;
}

/** Constructor input of a {@link PlatformError}: its fields, `code`, `method` and `path` required. */
type PlatformErrorInit = Pick<PlatformError, 'code' | 'method' | 'path'> &
  Partial<Omit<PlatformError, keyof Error | 'code' | 'method' | 'path' | 'retryable' | 'toJSON'>> & {
    /** The full, already sanitised message; when absent one is built from method, path, status and detail. */
    readonly message?: string;
    /** Text appended to the generated message, typically the platform's own error message. */
    readonly detail?: string;
    /** A sanitised cause. */
    readonly cause?: PlatformErrorCause;
  };

/** What a message says after method and path when the platform did not answer. */
function withoutAnswer({ code, timeoutMs }: PlatformErrorInit): string {
  if (code === 'TIMEOUT') return timeoutMs === undefined ? 'timed out' : `timed out after ${timeoutMs} ms`;
  if (code === 'NETWORK') return 'failed: network error';
  return code === 'UNEXPECTED_RESPONSE' ? 'returned an unexpected response' : 'failed';
}

/** `POST /x failed with 422 (Unprocessable Entity): detail`, or without status for failures without one. */
function buildMessage(init: PlatformErrorInit): string {
  if (init.message !== undefined) return init.message;
  const head =
    init.status === undefined
      ? `${init.method} ${init.path} ${withoutAnswer(init)}`
      : `${init.method} ${init.path} failed with ${init.status} (${STATUS_CODES[init.status] ?? 'Unknown Status'})`;
  const detail =
    init.detail ??
    (init.code === 'BAD_CREDENTIALS' ? 'the platform rejected the configured credentials' : '');
  return detail ? `${head}: ${detail}` : head;
}

/**
 * Thrown by every platform call that fails. Match on `code` (stable; see the failure table), never on the class
 * or its `name`. The `name` is the code's, e.g. `ValidationError`, `ServerError`: what logs have always shown.
 */
export class PlatformError extends Error {
  /** Stable code of the failure mode: a row of the failure table. */
  declare readonly code: FailureCode;
  /** HTTP method of the failed call, upper case. */
  declare readonly method: string;
  /** API path of the failed call, e.g. `/badge/v2/api/v1/orders` (no host, no query). */
  declare readonly path: string;
  /** HTTP status, when the platform answered. */
  declare readonly status?: number;
  /** Delay the platform asked for, from `Retry-After` (429, 5xx; seconds or HTTP date). */
  declare readonly retryAfterMs?: number;
  /** The platform's error code from the error body, e.g. `validation_failed`. */
  declare readonly platformCode?: string;
  /** The platform's error message from the error body. */
  declare readonly platformMessage?: string;
  /** `FORBIDDEN`: the missing scope (e.g. `badge`, `document`), when the error body names it. */
  declare readonly scope?: string;
  /** `STOCK_NOT_FOUND`: the stock id that was sent. */
  declare readonly stockId?: string;
  /** `VALIDATION`: the platform's description of the problem, as sent (secrets redacted). */
  declare readonly details?: unknown;
  /** `VALIDATION`: the field or multipart part at fault, when named. */
  declare readonly field?: string;
  /**
   * `VALIDATION`: `field` when the request did not send that name: one the request profile controls, which the
   * platform calls otherwise (docs/platform-client.md "Request profile").
   */
  declare readonly unsent?: string;
  /** `TIMEOUT`: the deadline that was exceeded, when known. */
  declare readonly timeoutMs?: number;
  /**
   * The setting that decides what was refused (`BADGE_REQUEST_PROFILE` for a name the request did not send,
   * `BADGE_BASE_URL` for a redirect not followed): fixed there, the same request can succeed.
   */
  declare readonly setting?: string;
  /** `FILE_ERROR`: the local path that could not be read. */
  declare readonly filePath?: string;
  /** A sanitised summary of the underlying error (never a raw axios error). */
  declare readonly cause?: PlatformErrorCause;
  /**
   * What the call may have done on the platform; when not given, the failure table's rule (`outcomeOf`)
   * decides from the code, the status, `retryAfterMs` and the cause's transport code.
   */
  readonly outcome: CallOutcome;

  /** @param init the code, where the call failed, and what is known about it */
  constructor(init: PlatformErrorInit) {
    super(buildMessage(init), init.cause === undefined ? undefined : { cause: init.cause });
    const { message: _message, detail: _detail, cause: _cause, outcome, ...fields } = init;
    Object.assign(
      this,
      Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
    );
    // Before anything reads `stack`, whose first line V8 builds from the name when it is first read.
    Object.defineProperty(this, 'name', { value: errorName(init.code), enumerable: false });
    this.outcome =
      outcome ??
      outcomeOf(init.code, {
        ...(init.status !== undefined && { status: init.status }),
        retryAfter: init.retryAfterMs !== undefined,
        ...(init.cause?.code !== undefined && { transportCode: init.cause.code }),
        ...(init.cause?.handshakeCompleted === true && { handshakeCompleted: true }),
      });
  }

  /** Whether trying the same call again can succeed, from the failure table. */
  get retryable(): boolean {
    return FAILURE_TABLE[this.code].retryable;
  }

  /** A plain, secret-free representation for structured logs. */
  toJSON(): Record<string, unknown> {
    const { stack: _stack, ...own } = { ...this } as Record<string, unknown>;
    return { name: this.name, code: this.code, message: this.message, ...own, cause: this.cause };
  }
}

/** `VALIDATION` → `ValidationError`, `SERVER_ERROR` → `ServerError`. */
function errorName(code: FailureCode): string {
  const words = code.toLowerCase().split('_');
  if (words.at(-1) === 'error') words.pop();
  return `${words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')}Error`;
}

/** Whether a value is a {@link PlatformError} (also across module copies, by its stable code). */
export function isPlatformError(error: unknown): error is PlatformError {
  if (error instanceof PlatformError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, method, path, message } = error as Record<string, unknown>;
  return (
    isFailureCode(code) &&
    typeof method === 'string' &&
    typeof path === 'string' &&
    typeof message === 'string'
  );
}
