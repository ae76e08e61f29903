/**
 * The error classes, the failure table and the activity boundary must agree: every platform error's code is
 * in the table, its retryability is the table's, and `toApplicationFailure` carries code, retryability and
 * outcome through. Cancellations pass unchanged.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { DocumentUnavailableError, InvalidDocumentError } from '../../src/documents';
import { isCancellation, toApplicationFailure } from '../../src/activities/to-application-failure';
import {
  FAILURE_TABLE,
  NON_RETRYABLE_FAILURE_TYPES,
  PLATFORM_FAILURE_TYPES,
  SERVICE_FAILURE_TYPES,
} from '../../src/failure-types';
import {
  BadCredentialsError,
  ConflictError,
  FileUnavailableError,
  FileError,
  ForbiddenError,
  isRetryable,
  NetworkError,
  NON_RETRYABLE_PLATFORM_ERROR_CODES,
  NotFoundError,
  PLATFORM_ERROR_CODES,
  RateLimitedError,
  ServerError,
  StockNotFoundError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
  ValidationError,
} from '../../src/platform';
import type { PlatformError } from '../../src/platform';

const where = { method: 'POST', path: '/badge/v2/api/v1/orders' };

/** One instance of every PlatformError class. */
const ALL_PLATFORM_ERRORS: readonly PlatformError[] = [
  new BadCredentialsError({ ...where, status: 401 }),
  new UnauthorizedError({ ...where, status: 401 }),
  new ForbiddenError({ ...where, status: 403 }),
  new StockNotFoundError({ ...where, status: 404, stockId: '1' }),
  new NotFoundError({ ...where, status: 404 }),
  new ValidationError({ ...where, status: 422 }),
  new ConflictError({ ...where, status: 409 }),
  new RateLimitedError({ ...where, status: 429, retryAfterMs: 2_000 }),
  new ServerError({ ...where, status: 500 }),
  new NetworkError({ ...where, cause: { name: 'Error', code: 'ECONNRESET' } }),
  new TimeoutError({ ...where, timeoutMs: 10 }),
  new UnexpectedResponseError({ ...where, status: 201 }),
  new FileError({ ...where, filePath: '/x' }),
];

function details(failure: Error): Record<string, unknown> {
  expect(failure).toBeInstanceOf(ApplicationFailure);
  return (failure as ApplicationFailure).details?.[0] as Record<string, unknown>;
}

describe('the failure table, the error classes and the boundary agree', () => {
  it('has one class per platform code and every code in the table', () => {
    expect(new Set(ALL_PLATFORM_ERRORS.map((error) => error.code))).toEqual(
      new Set(Object.values(PLATFORM_ERROR_CODES)),
    );
    expect(new Set(Object.values(PLATFORM_FAILURE_TYPES))).toEqual(
      new Set(Object.values(PLATFORM_ERROR_CODES)),
    );
    for (const type of [...Object.values(PLATFORM_FAILURE_TYPES), ...Object.values(SERVICE_FAILURE_TYPES)]) {
      expect(FAILURE_TABLE).toHaveProperty(type);
    }
    expect(Object.keys(FAILURE_TABLE).sort()).toEqual(
      [...Object.values(PLATFORM_FAILURE_TYPES), ...Object.values(SERVICE_FAILURE_TYPES)].sort(),
    );
  });

  it.each(ALL_PLATFORM_ERRORS.map((error) => [error.code, error] as const))('%s', (code, error) => {
    const retryable = FAILURE_TABLE[code].retryable;
    expect(error.retryable).toBe(retryable);
    expect(isRetryable(error)).toBe(retryable);
    expect(NON_RETRYABLE_FAILURE_TYPES.includes(code)).toBe(!retryable);
    expect(NON_RETRYABLE_PLATFORM_ERROR_CODES.includes(code)).toBe(!retryable);
    const failure = toApplicationFailure(error, 3) as ApplicationFailure;
    expect(failure.type).toBe(code);
    expect(failure.nonRetryable).toBe(!retryable);
    expect(details(failure)).toMatchObject({ attempt: 3, outcome: error.outcome });
  });

  it('derives the non-retryable list from the table', () => {
    expect([...NON_RETRYABLE_FAILURE_TYPES].sort()).toEqual(
      Object.entries(FAILURE_TABLE)
        .filter(([, row]) => !row.retryable)
        .map(([type]) => type)
        .sort(),
    );
    expect(NON_RETRYABLE_FAILURE_TYPES).toContain('RECONCILIATION_DEADLINE_PASSED');
    expect(NON_RETRYABLE_FAILURE_TYPES).not.toContain('DOCUMENT_UNAVAILABLE');
  });
});

describe('toApplicationFailure', () => {
  it('carries the platform’s delay for 429 and maintenance', () => {
    const limited = toApplicationFailure(
      new RateLimitedError({ ...where, status: 429, retryAfterMs: 2_000 }),
      1,
    );
    expect(details(limited)).toMatchObject({ outcome: 'not-sent', retryAfterMs: 2_000, status: 429 });
    expect((limited as ApplicationFailure).nextRetryDelay).toBe(2_000);
    const maintenance = toApplicationFailure(
      new ServerError({ ...where, status: 503, retryAfterMs: 60_000 }),
      1,
    );
    expect(details(maintenance)).toMatchObject({ outcome: 'not-sent', retryAfterMs: 60_000 });
  });

  it('uses the code of our own errors that are in the table; an unreadable document was never sent', () => {
    const invalid = toApplicationFailure(
      new InvalidDocumentError({ relativePath: 'a.pdf', message: 'a.pdf: is empty' }),
      1,
    ) as ApplicationFailure;
    expect(invalid).toMatchObject({ type: 'INVALID_DOCUMENT', nonRetryable: true });
    expect(details(invalid)).toEqual({ attempt: 1, outcome: 'not-sent' });
    const unavailable = toApplicationFailure(
      new DocumentUnavailableError({ relativePath: 'a.pdf', message: 'a.pdf: EIO', fsCode: 'EIO' }),
      2,
    ) as ApplicationFailure;
    expect(unavailable).toMatchObject({ type: 'DOCUMENT_UNAVAILABLE', nonRetryable: false });
    expect(details(unavailable)).toEqual({ attempt: 2, outcome: 'not-sent' });
    const fromClient = toApplicationFailure(new FileUnavailableError('/docs/a.pdf', 'EIO'), 2);
    expect(fromClient).toMatchObject({ type: 'DOCUMENT_UNAVAILABLE', nonRetryable: false });
    expect(details(fromClient)).toEqual({ attempt: 2, outcome: 'not-sent' });
  });

  it('turns anything else into a retryable UNEXPECTED_ERROR that may have taken effect', () => {
    const failure = toApplicationFailure(new TypeError('boom'), 1) as ApplicationFailure;
    expect(failure).toMatchObject({ type: 'UNEXPECTED_ERROR', nonRetryable: false, message: 'boom' });
    expect(details(failure)).toEqual({ attempt: 1, outcome: 'maybe-applied' });
    expect(toApplicationFailure('a string', 1)).toMatchObject({ type: 'UNEXPECTED_ERROR' });
  });

  it('keeps tokens out of messages', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI3In0.c2lnbmF0dXJl';
    const failure = toApplicationFailure(new Error(`failed with Bearer ${jwt}`), 1);
    expect(failure.message).not.toContain(jwt);
    expect(failure.message).not.toContain('c2lnbmF0dXJl');
  });

  it('holds a maybe-applied failure when asked', () => {
    const timeout = new TimeoutError({ ...where, timeoutMs: 10 });
    expect(toApplicationFailure(timeout, 1)).toMatchObject({ nonRetryable: false });
    expect(toApplicationFailure(timeout, 1, { holdWhenMaybeApplied: true })).toMatchObject({
      nonRetryable: true,
    });
    const limited = new RateLimitedError({ ...where, status: 429 });
    expect(toApplicationFailure(limited, 1, { holdWhenMaybeApplied: true })).toMatchObject({
      nonRetryable: false,
    });
  });

  it('returns an ApplicationFailure unchanged', () => {
    const failure = ApplicationFailure.create({ type: 'X', message: 'x' });
    expect(toApplicationFailure(failure, 1)).toBe(failure);
  });
});

describe('cancellation passes unchanged', () => {
  it('a CancelledFailure', () => {
    const cancelled = new CancelledFailure('CANCELLED');
    expect(isCancellation(cancelled)).toBe(true);
    expect(toApplicationFailure(cancelled, 1)).toBe(cancelled);
  });

  it('an AbortError', () => {
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(toApplicationFailure(abort, 1)).toBe(abort);
  });

  it('the reason of the activity’s cancellation signal, whatever it is', () => {
    const controller = new AbortController();
    const reason = new Error('activity paused');
    controller.abort(reason);
    expect(toApplicationFailure(reason, 1, { cancellationSignal: controller.signal })).toBe(reason);
    // Without the signal the same error is an ordinary failure.
    expect(toApplicationFailure(reason, 1)).toBeInstanceOf(ApplicationFailure);
  });
});
