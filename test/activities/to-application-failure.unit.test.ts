/**
 * The error type, the failure table and the activity boundary must agree: every platform error's code is in
 * the table, its retryability is the table's, and `toApplicationFailure` carries code, retryability and
 * outcome through. Cancellations pass unchanged.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { DocumentUnavailableError, InvalidDocumentError } from '../../src/documents';
import { toApplicationFailure } from '../../src/activities/to-application-failure';
import { FAILURE_TABLE, applicationFailure, type FailureCode } from '../../src/failure-types';
import {
  CREATE_ORDER_OPTIONS,
  INSPECT_DOCUMENT_OPTIONS,
  platformCallOptions,
  uploadOptions,
} from '../../src/workflows/activity-options';
import { PlatformError } from '../../src/platform/errors';

const where = { method: 'POST', path: '/badge/v2/api/v1/orders' };

/** One platform error of every code the client throws for a call. */
const ALL_PLATFORM_ERRORS: readonly PlatformError[] = [
  new PlatformError({ code: 'BAD_CREDENTIALS', ...where, status: 401 }),
  new PlatformError({ code: 'UNAUTHORIZED', ...where, status: 401 }),
  new PlatformError({ code: 'FORBIDDEN', ...where, status: 403 }),
  new PlatformError({ code: 'STOCK_NOT_FOUND', ...where, status: 404, stockId: '1' }),
  new PlatformError({ code: 'NOT_FOUND', ...where, status: 404 }),
  new PlatformError({ code: 'VALIDATION', ...where, status: 422 }),
  new PlatformError({ code: 'CONFLICT', ...where, status: 409 }),
  new PlatformError({ code: 'RATE_LIMITED', ...where, status: 429, retryAfterMs: 2_000 }),
  new PlatformError({ code: 'SERVER_ERROR', ...where, status: 500 }),
  new PlatformError({ code: 'NETWORK', ...where, cause: { name: 'Error', code: 'ECONNRESET' } }),
  new PlatformError({ code: 'TIMEOUT', ...where, timeoutMs: 10 }),
  new PlatformError({ code: 'UNEXPECTED_RESPONSE', ...where, status: 201 }),
  new PlatformError({ code: 'FILE_ERROR', ...where, filePath: '/x' }),
];

function details(failure: Error): Record<string, unknown> {
  expect(failure).toBeInstanceOf(ApplicationFailure);
  return (failure as ApplicationFailure).details?.[0] as Record<string, unknown>;
}

describe('the failure table, the error type and the boundary agree', () => {
  it('has every code in the table', () => {
    for (const error of ALL_PLATFORM_ERRORS) expect(FAILURE_TABLE).toHaveProperty(error.code);
  });

  it.each(ALL_PLATFORM_ERRORS.map((error) => [error.code, error] as const))('%s', (code, error) => {
    const retryable = FAILURE_TABLE[code].retryable;
    expect(error.retryable).toBe(retryable);
    const failure = toApplicationFailure(error, 3) as ApplicationFailure;
    expect(failure.type).toBe(code);
    expect(failure.nonRetryable).toBe(!retryable);
    expect(details(failure)).toMatchObject({ attempt: 3, outcome: error.outcome });
  });

  it('derives every failure’s finality from the table, and no retry policy restates it', () => {
    for (const [code, row] of Object.entries(FAILURE_TABLE)) {
      expect(applicationFailure(code as FailureCode, 'x').nonRetryable).toBe(!row.retryable);
    }
    expect(applicationFailure('RECONCILIATION_DEADLINE_PASSED', 'x').nonRetryable).toBe(true);
    expect(applicationFailure('DOCUMENT_UNAVAILABLE', 'x').nonRetryable).toBe(false);
    const policies = [
      platformCallOptions(60_000),
      uploadOptions({ retryWindowMs: 60_000, heartbeatTimeoutMs: 1_000 }),
      CREATE_ORDER_OPTIONS,
      INSPECT_DOCUMENT_OPTIONS,
    ].map((options) => options.retry);
    for (const policy of policies) expect(policy?.nonRetryableErrorTypes).toBeUndefined();
  });
});

describe('toApplicationFailure', () => {
  it('carries the platform’s delay for 429 and maintenance', () => {
    const limited = toApplicationFailure(
      new PlatformError({ code: 'RATE_LIMITED', ...where, status: 429, retryAfterMs: 2_000 }),
      1,
    );
    expect(details(limited)).toMatchObject({ outcome: 'not-sent', retryAfterMs: 2_000, status: 429 });
    expect((limited as ApplicationFailure).nextRetryDelay).toBe(2_000);
    const maintenance = toApplicationFailure(
      new PlatformError({ code: 'SERVER_ERROR', ...where, status: 503, retryAfterMs: 60_000 }),
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
    const fromClient = toApplicationFailure(
      new PlatformError({
        code: 'DOCUMENT_UNAVAILABLE',
        method: 'POST',
        path: '/document/api/v1/documents',
        message: 'POST /document/api/v1/documents not sent: cannot read local file /docs/a.pdf now (EIO)',
      }),
      2,
    );
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
    const timeout = new PlatformError({ code: 'TIMEOUT', ...where, timeoutMs: 10 });
    expect(toApplicationFailure(timeout, 1)).toMatchObject({ nonRetryable: false });
    expect(toApplicationFailure(timeout, 1, { holdWhenMaybeApplied: true })).toMatchObject({
      nonRetryable: true,
    });
    const limited = new PlatformError({ code: 'RATE_LIMITED', ...where, status: 429 });
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
