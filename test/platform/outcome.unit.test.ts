/**
 * The outcome rule: every row of the table in docs/platform-client.md, through the failure table's
 * `codeForStatus`, `codeForTransport` and `outcomeOf`, and through the errors the HTTP layer builds from real
 * answers.
 */
import { codeForStatus, codeForTransport, outcomeOf } from '../../src/failure-types';
import type { CallOutcome } from '../../src/failure-types';
import { PlatformError } from '../../src/platform/errors';
import { fakeHttp, makeJwt, PASSWORD, USERNAME } from './fake-http';
import { createPlatformClient } from '../../src/platform';
import { TokenCache } from '../../src/platform/token-cache';

const where = { method: 'POST', path: '/badge/v2/api/v1/orders' };

/** What is known about a failed call. */
type OutcomeFacts =
  | { readonly kind: 'answered'; readonly status: number; readonly retryAfter?: boolean }
  | { readonly kind: 'transport'; readonly code?: string; readonly handshakeCompleted?: boolean }
  | { readonly kind: 'deadline' }
  | { readonly kind: 'local' }
  | { readonly kind: 'bad-credentials' };

/** The outcome the failure table gives these facts, as the HTTP layer asks it. */
function classifyOutcome(facts: OutcomeFacts): CallOutcome {
  switch (facts.kind) {
    case 'answered':
      return outcomeOf(codeForStatus(facts.status), facts);
    case 'transport':
      return outcomeOf(
        codeForTransport(facts.code),
        facts.code === undefined
          ? {}
          : { transportCode: facts.code, handshakeCompleted: facts.handshakeCompleted === true },
      );
    case 'deadline':
      return outcomeOf('TIMEOUT', { transportCode: 'EDEADLINE' });
    case 'local':
      return outcomeOf('FILE_ERROR');
    case 'bad-credentials':
      return outcomeOf(codeForStatus(401, { token: true }), { status: 401 });
  }
}

describe('classifyOutcome', () => {
  const rows: readonly [string, OutcomeFacts, CallOutcome][] = [
    ['connection refused', { kind: 'transport', code: 'ECONNREFUSED' }, 'not-sent'],
    ['DNS failure', { kind: 'transport', code: 'ENOTFOUND' }, 'not-sent'],
    ['DNS temporary failure', { kind: 'transport', code: 'EAI_AGAIN' }, 'not-sent'],
    ['TLS handshake (certificate)', { kind: 'transport', code: 'CERT_HAS_EXPIRED' }, 'not-sent'],
    ['TLS handshake (protocol)', { kind: 'transport', code: 'ERR_SSL_WRONG_VERSION_NUMBER' }, 'not-sent'],
    ['TLS handshake (EPROTO)', { kind: 'transport', code: 'EPROTO' }, 'not-sent'],
    ['connect timeout', { kind: 'transport', code: 'ECONNECTTIMEOUT' }, 'not-sent'],
    ['429', { kind: 'answered', status: 429 }, 'not-sent'],
    ['503 with Retry-After (maintenance)', { kind: 'answered', status: 503, retryAfter: true }, 'not-sent'],
    ['local file error', { kind: 'local' }, 'not-sent'],
    ['301 or 302 after a POST', { kind: 'answered', status: 302 }, 'not-sent'],
    ['307 or 308 not followed (another origin)', { kind: 'answered', status: 307 }, 'not-sent'],
    ['bad credentials on the token call', { kind: 'bad-credentials' }, 'not-sent'],
    ['400', { kind: 'answered', status: 400 }, 'rejected'],
    ['401 after re-authentication', { kind: 'answered', status: 401 }, 'rejected'],
    ['403', { kind: 'answered', status: 403 }, 'rejected'],
    ['404', { kind: 'answered', status: 404 }, 'rejected'],
    ['409', { kind: 'answered', status: 409 }, 'rejected'],
    ['413', { kind: 'answered', status: 413 }, 'rejected'],
    ['415', { kind: 'answered', status: 415 }, 'rejected'],
    ['422', { kind: 'answered', status: 422 }, 'rejected'],
    ['timeout after sending', { kind: 'transport', code: 'ETIMEDOUT' }, 'maybe-applied'],
    ['reset after sending', { kind: 'transport', code: 'ECONNRESET' }, 'maybe-applied'],
    [
      'TLS protocol failure after the handshake',
      { kind: 'transport', code: 'ERR_SSL_WRONG_VERSION_NUMBER', handshakeCompleted: true },
      'maybe-applied',
    ],
    [
      'EPROTO after the handshake',
      { kind: 'transport', code: 'EPROTO', handshakeCompleted: true },
      'maybe-applied',
    ],
    ['socket hang up (no code)', { kind: 'transport' }, 'maybe-applied'],
    ['total or stall deadline', { kind: 'deadline' }, 'maybe-applied'],
    ['500', { kind: 'answered', status: 500 }, 'maybe-applied'],
    ['502', { kind: 'answered', status: 502 }, 'maybe-applied'],
    ['503 without Retry-After', { kind: 'answered', status: 503 }, 'maybe-applied'],
    ['503 with retryAfter false', { kind: 'answered', status: 503, retryAfter: false }, 'maybe-applied'],
    ['504', { kind: 'answered', status: 504 }, 'maybe-applied'],
    ['408', { kind: 'answered', status: 408 }, 'maybe-applied'],
    ['unreadable 2xx', { kind: 'answered', status: 201 }, 'maybe-applied'],
    ['303 See Other that cannot be followed (processed)', { kind: 'answered', status: 303 }, 'maybe-applied'],
    ['an unknown 4xx', { kind: 'answered', status: 418 }, 'maybe-applied'],
  ];
  it.each(rows)('%s → %s', (_name, facts, expected) => {
    expect(classifyOutcome(facts)).toBe(expected);
  });
});

describe('error defaults follow the same rule', () => {
  it('derives outcomes from what each error knows', () => {
    expect(new PlatformError({ code: 'BAD_CREDENTIALS', ...where, status: 401 }).outcome).toBe('not-sent');
    expect(new PlatformError({ code: 'FILE_ERROR', ...where, filePath: '/x' }).outcome).toBe('not-sent');
    expect(new PlatformError({ code: 'RATE_LIMITED', ...where, status: 429 }).outcome).toBe('not-sent');
    expect(
      new PlatformError({ code: 'SERVER_ERROR', ...where, status: 503, retryAfterMs: 1000 }).outcome,
    ).toBe('not-sent');
    expect(new PlatformError({ code: 'SERVER_ERROR', ...where, status: 503 }).outcome).toBe('maybe-applied');
    expect(new PlatformError({ code: 'UNEXPECTED_RESPONSE', ...where, status: 201 }).outcome).toBe(
      'maybe-applied',
    );
    expect(
      new PlatformError({ code: 'NETWORK', ...where, cause: { name: 'Error', code: 'ECONNREFUSED' } })
        .outcome,
    ).toBe('not-sent');
    expect(
      new PlatformError({ code: 'NETWORK', ...where, cause: { name: 'Error', code: 'ECONNRESET' } }).outcome,
    ).toBe('maybe-applied');
    expect(new PlatformError({ code: 'TIMEOUT', ...where }).outcome).toBe('maybe-applied');
    expect(
      new PlatformError({ code: 'SERVER_ERROR', ...where, status: 500, outcome: 'not-sent' }).outcome,
    ).toBe('not-sent');
  });
});

describe('the HTTP layer classifies answers', () => {
  const token = makeJwt({ sub: '7', exp: Math.floor(Date.now() / 1000) + 3600 });
  function clientAnswering(status: number, headers?: Record<string, string>) {
    const { http } = fakeHttp((request) =>
      request.path.endsWith('/auth/jwt')
        ? { status: 200, body: { access_token: token } }
        : { status, body: { error: { message: 'no' } }, ...(headers && { headers }) },
    );
    return createPlatformClient({
      baseUrl: 'https://platform.test',
      credentials: { username: USERNAME, password: PASSWORD },
      http,
      tokenCache: new TokenCache(),
    });
  }
  const order = { payload: { vehicle: {}, badge: {} }, idempotencyKey: 'k' };

  it.each([
    [503, { 'Retry-After': '120' }, 'not-sent'],
    [503, undefined, 'maybe-applied'],
    [500, undefined, 'maybe-applied'],
    [422, undefined, 'rejected'],
    [429, { 'Retry-After': '1' }, 'not-sent'],
    [408, undefined, 'maybe-applied'],
  ] as const)('%i %j → %s', async (status, headers, outcome) => {
    const error = await clientAnswering(status, headers)
      .createOrder(order)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status, outcome });
  });

  it('keeps the maintenance delay on a 503', async () => {
    const error = await clientAnswering(503, { 'Retry-After': '120' })
      .createOrder(order)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SERVER_ERROR' });
    expect((error as PlatformError).retryAfterMs).toBe(120_000);
  });

  it('a refused connection is not sent', async () => {
    const client = createPlatformClient({
      baseUrl: 'http://127.0.0.1:1',
      credentials: { username: USERNAME, password: PASSWORD },
      tokenCache: new TokenCache(),
    });
    await expect(client.authenticate()).rejects.toMatchObject({ code: 'NETWORK', outcome: 'not-sent' });
  });
});
