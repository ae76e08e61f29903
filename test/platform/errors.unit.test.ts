import { inspect } from 'node:util';
import { FAILURE_TABLE } from '../../src/failure-types';
import { createPlatformClient } from '../../src/platform';
import { PlatformError } from '../../src/platform/errors';
import { TokenCache } from '../../src/platform/token-cache';
import type { PlatformClient } from '../../src/platform';
import { isPlatformError } from '../../src/platform/errors';
import { redactText } from '../../src/platform/http';
import type { FakeReply, Harness, RecordedRequest } from './fake-http';
import { BASE_URL, fakeHttp, harness, PASSWORD, rejectionOf, transportError, USERNAME } from './fake-http';

const ORDER = {
  payload: { vehicle: { plate: 'B-XY 123' }, badge: { colour: 'green' } },
  idempotencyKey: 'k-1',
};
const ORDER_WITH_STOCK = { ...ORDER, payload: { ...ORDER.payload, stock_id: '1001' } };

function errorBody(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): unknown {
  return { error: { status, code, message, ...extra } };
}

/** A harness whose non-token calls all get `reply` (or throw). */
function answering(reply: (request: RecordedRequest) => FakeReply): Harness {
  return harness(reply);
}

describe('error mapping', () => {
  it('maps 403 to FORBIDDEN with the scope named in the body', async () => {
    const h = answering(() => ({
      status: 403,
      body: errorBody(403, 'forbidden', 'token lacks the document scope', { scope: 'document' }),
    }));
    const error = await rejectionOf(h.client.listStocks());
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({
      name: 'ForbiddenError',
      code: 'FORBIDDEN',
      status: 403,
      scope: 'document',
      method: 'GET',
      path: '/badge/v2/api/v1/stocks',
      platformCode: 'forbidden',
      platformMessage: 'token lacks the document scope',
    });
    expect((error as Error).message).toBe(
      'GET /badge/v2/api/v1/stocks failed with 403 (Forbidden): token lacks the document scope',
    );
  });

  it('maps 403 without a named scope', async () => {
    const h = answering(() => ({ status: 403, body: '' }));
    const error = (await rejectionOf(h.client.listStocks())) as PlatformError;
    expect(error).toMatchObject({ code: 'FORBIDDEN' });
    expect(error.scope).toBeUndefined();
    expect(error.message).toBe('GET /badge/v2/api/v1/stocks failed with 403 (Forbidden)');
  });

  it('maps 404 on order creation with a stock id to STOCK_NOT_FOUND, other 404s to NOT_FOUND', async () => {
    const h = answering(() => ({
      status: 404,
      body: errorBody(404, 'stock_not_found', 'stock 1001 not found'),
    }));
    const withStock = await rejectionOf(h.client.createOrder(ORDER_WITH_STOCK));
    expect(withStock).toBeInstanceOf(PlatformError);
    expect(withStock).toMatchObject({ code: 'STOCK_NOT_FOUND', stockId: '1001', status: 404 });

    const plain = answering(() => ({ status: 404, body: errorBody(404, 'not_found', 'no such route') }));
    const withoutStock = await rejectionOf(plain.client.createOrder(ORDER));
    expect(withoutStock).toBeInstanceOf(PlatformError);
    expect(withoutStock).toMatchObject({ code: 'NOT_FOUND' });
    expect(await rejectionOf(plain.client.listStocks())).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('maps 422 to VALIDATION with the platform message, field and details', async () => {
    const body = errorBody(422, 'validation_failed', 'vehicle.plate is required', { field: 'vehicle.plate' });
    const h = answering(() => ({ status: 422, body }));
    const error = (await rejectionOf(h.client.createOrder(ORDER))) as PlatformError;
    expect(error).toMatchObject({ code: 'VALIDATION' });
    expect(error.message).toBe(
      'POST /badge/v2/api/v1/orders failed with 422 (Unprocessable Entity): vehicle.plate is required',
    );
    expect(error).toMatchObject({
      code: 'VALIDATION',
      field: 'vehicle.plate',
      platformCode: 'validation_failed',
    });
    expect(error.details).toEqual((body as { error: unknown }).error);

    const withDetails = answering(() => ({
      status: 422,
      body: { message: 'invalid', details: [{ path: 'badge.colour', issue: 'unknown colour' }] },
    }));
    expect(((await rejectionOf(withDetails.client.createOrder(ORDER))) as PlatformError).details).toEqual([
      { path: 'badge.colour', issue: 'unknown colour' },
    ]);
  });

  it.each([400, 413, 415])('maps %i to VALIDATION too', async (status) => {
    const h = answering(() => ({ status, body: { message: 'nope' } }));
    expect(await rejectionOf(h.client.createOrder(ORDER))).toMatchObject({ code: 'VALIDATION' });
  });

  it('maps 409 to CONFLICT', async () => {
    const h = answering(() => ({
      status: 409,
      body: errorBody(409, 'idempotency_conflict', 'a request with this key is in flight'),
    }));
    const error = await rejectionOf(h.client.createOrder(ORDER));
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'CONFLICT', platformCode: 'idempotency_conflict' });
  });

  it('maps 429 to RATE_LIMITED with Retry-After in seconds or as an HTTP date', async () => {
    const seconds = answering(() => ({
      status: 429,
      headers: { 'Retry-After': '7' },
      body: errorBody(429, 'rate_limited', 'slow down'),
    }));
    const error = (await rejectionOf(seconds.client.listStocks())) as PlatformError;
    expect(error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(error.retryAfterMs).toBe(7000);
    expect(error.message).toBe('GET /badge/v2/api/v1/stocks failed with 429 (Too Many Requests): slow down');

    const date = new Date(Date.now() + 120_000).toUTCString();
    const dated = answering(() => ({ status: 429, headers: { 'retry-after': date } }));
    const datedError = (await rejectionOf(dated.client.listStocks())) as PlatformError;
    expect(datedError.retryAfterMs).toBeGreaterThan(110_000);
    expect(datedError.retryAfterMs).toBeLessThanOrEqual(120_000);

    const none = answering(() => ({ status: 429 }));
    expect(((await rejectionOf(none.client.listStocks())) as PlatformError).retryAfterMs).toBeUndefined();
  });

  it('parses Retry-After values', async () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0);
    const parseRetryAfter = async (value: string | undefined): Promise<number | undefined> => {
      const h = answering(() => ({
        status: 429,
        ...(value !== undefined && { headers: { 'retry-after': value } }),
      }));
      return ((await rejectionOf(h.client.listStocks())) as PlatformError).retryAfterMs;
    };
    jest.spyOn(Date, 'now').mockReturnValue(now);
    try {
      expect(await parseRetryAfter('0')).toBe(0);
      expect(await parseRetryAfter('30')).toBe(30_000);
      expect(await parseRetryAfter('1.5')).toBe(1500);
      expect(await parseRetryAfter('Tue, 01 Jan 2030 12:01:00 GMT')).toBe(60_000);
      expect(await parseRetryAfter('Tue, 01 Jan 2030 11:00:00 GMT')).toBe(0);
      expect(await parseRetryAfter('soon')).toBeUndefined();
      expect(await parseRetryAfter('-5')).toBeUndefined();
      expect(await parseRetryAfter(undefined)).toBeUndefined();
    } finally {
      jest.restoreAllMocks();
    }
  });

  it.each([500, 502, 503, 504])('maps %i to SERVER_ERROR', async (status) => {
    const h = answering(() => ({ status, body: status === 502 ? '<html>Bad Gateway</html>' : undefined }));
    const error = await rejectionOf(h.client.createOrder(ORDER));
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'SERVER_ERROR', status });
  });

  it('maps an unexpected status (a redirect, a 405) to UNEXPECTED_RESPONSE', async () => {
    const h = answering(() => ({ status: 405, body: undefined }));
    const error = await rejectionOf(h.client.createOrder(ORDER));
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
    expect((error as Error).message).toBe(
      'POST /badge/v2/api/v1/orders failed with 405 (Method Not Allowed): unexpected status 405',
    );
  });

  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:443'],
    ['ECONNRESET', 'socket hang up'],
    ['ERR_NETWORK', 'Network Error'],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND platform.test'],
  ])('maps a transport failure %s to NETWORK', async (code, message) => {
    const h = answering((request) => transportError(code, message, request));
    const error = (await rejectionOf(h.client.listStocks())) as PlatformError;
    expect(error).toMatchObject({ code: 'NETWORK' });
    expect(error.message).toBe(`GET /badge/v2/api/v1/stocks failed: network error: ${code}`);
    expect(error.cause).toEqual({
      name: 'AxiosError',
      code,
      message,
      method: 'GET',
      path: '/badge/v2/api/v1/stocks',
    });
    expect(h.events.at(-1)).toMatchObject({ route: 'stocks', method: 'GET', status: 'network-error' });
  });

  it.each(['ETIMEDOUT', 'ECONNABORTED'])('maps %s to TIMEOUT', async (code) => {
    const h = harness((request) => transportError(code, 'timeout of 1234ms exceeded', request), {
      timeouts: { requestMs: 1234 },
    });
    const error = (await rejectionOf(h.client.listStocks())) as PlatformError;
    expect(error).toMatchObject({ code: 'TIMEOUT' });
    expect(error.message).toBe('GET /badge/v2/api/v1/stocks timed out after 1234 ms');
    expect(error.timeoutMs).toBe(1234);
    expect(h.events.at(-1)).toMatchObject({ status: 'timeout' });
  });

  it('maps a 408 to TIMEOUT', async () => {
    const h = answering(() => ({ status: 408 }));
    expect(await rejectionOf(h.client.listStocks())).toMatchObject({ code: 'TIMEOUT' });
  });

  it('maps 401 on the token call to BAD_CREDENTIALS, without retrying', async () => {
    const { http, requests } = fakeHttp(() => ({
      status: 401,
      body: errorBody(401, 'unauthorized', 'invalid username or password'),
    }));
    const client = createPlatformClient({
      baseUrl: BASE_URL,
      credentials: { username: USERNAME, password: PASSWORD },
      http,
      tokenCache: new TokenCache(),
    });
    const error = await rejectionOf(client.listStocks());
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'BAD_CREDENTIALS', status: 401, path: '/iam/api/v1/auth/jwt' });
    expect((error as Error).message).toBe(
      'POST /iam/api/v1/auth/jwt failed with 401 (Unauthorized): invalid username or password',
    );
    expect((error as PlatformError).retryable).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('maps other failures of the token call like any other call', async () => {
    const { http } = fakeHttp(() => ({ status: 503 }));
    const client = createPlatformClient({
      baseUrl: BASE_URL,
      credentials: { username: USERNAME, password: PASSWORD },
      http,
      tokenCache: new TokenCache(),
    });
    const error = await rejectionOf(client.authenticate());
    expect(error).toMatchObject({ code: 'SERVER_ERROR' });
    expect((error as Error).message).toBe('POST /iam/api/v1/auth/jwt failed with 503 (Service Unavailable)');
  });
});

describe('the error type', () => {
  it('has a fixed name per code, stable codes and one retryability table', () => {
    const where = { method: 'GET', path: '/x' };
    const cases: [PlatformError, string, string, boolean][] = [
      [
        new PlatformError({ code: 'BAD_CREDENTIALS', ...where }),
        'BadCredentialsError',
        'BAD_CREDENTIALS',
        false,
      ],
      [new PlatformError({ code: 'UNAUTHORIZED', ...where }), 'UnauthorizedError', 'UNAUTHORIZED', true],
      [new PlatformError({ code: 'FORBIDDEN', ...where }), 'ForbiddenError', 'FORBIDDEN', false],
      [
        new PlatformError({ code: 'STOCK_NOT_FOUND', ...where }),
        'StockNotFoundError',
        'STOCK_NOT_FOUND',
        false,
      ],
      [new PlatformError({ code: 'NOT_FOUND', ...where }), 'NotFoundError', 'NOT_FOUND', false],
      [new PlatformError({ code: 'VALIDATION', ...where }), 'ValidationError', 'VALIDATION', false],
      [new PlatformError({ code: 'CONFLICT', ...where }), 'ConflictError', 'CONFLICT', true],
      [new PlatformError({ code: 'RATE_LIMITED', ...where }), 'RateLimitedError', 'RATE_LIMITED', true],
      [new PlatformError({ code: 'SERVER_ERROR', ...where }), 'ServerError', 'SERVER_ERROR', true],
      [new PlatformError({ code: 'NETWORK', ...where }), 'NetworkError', 'NETWORK', true],
      [new PlatformError({ code: 'TIMEOUT', ...where }), 'TimeoutError', 'TIMEOUT', true],
      [
        new PlatformError({ code: 'UNEXPECTED_RESPONSE', ...where }),
        'UnexpectedResponseError',
        'UNEXPECTED_RESPONSE',
        false,
      ],
      [
        new PlatformError({ code: 'FILE_ERROR', ...where, filePath: '/tmp/x' }),
        'FileError',
        'FILE_ERROR',
        false,
      ],
    ];
    for (const [error] of cases) expect(FAILURE_TABLE).toHaveProperty(error.code);
    for (const [error, name, code, retryable] of cases) {
      expect(error).toBeInstanceOf(PlatformError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(error.retryable).toBe(retryable);
      expect(error.stack?.startsWith(`${name}: `)).toBe(true);
      expect(isPlatformError(error)).toBe(true);
    }
  });
});

describe('secrets never leak', () => {
  const jwtLike = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/;

  function everyRendering(error: unknown): string {
    const e = error as Error;
    return [
      e.message,
      e.stack ?? '',
      JSON.stringify(e),
      inspect(e, { depth: 10, showHidden: true }),
      String(e),
      JSON.stringify((e as { cause?: unknown }).cause ?? null),
    ].join('\n');
  }

  function expectClean(rendered: string, tokens: readonly string[]): void {
    expect(rendered).not.toContain(PASSWORD);
    for (const token of tokens) expect(rendered).not.toContain(token);
    expect(rendered).not.toMatch(jwtLike);
    expect(rendered).not.toMatch(/authorization/i);
    expect(rendered).not.toMatch(/Bearer/);
  }

  it('in network errors, although the axios error carries the request config', async () => {
    let seen: RecordedRequest | undefined;
    const h = harness((request) => {
      seen = request;
      transportError('ECONNRESET', 'socket hang up', request);
    });
    const error = await rejectionOf(h.client.createOrder(ORDER));
    // The raw axios error would leak the token: make sure the test can tell.
    expect(inspect(seen?.config.headers)).toContain(h.tokens[0]);
    expect(error).toMatchObject({ code: 'NETWORK' });
    expectClean(everyRendering(error), h.tokens);
  });

  it('in timeouts and HTTP errors, even when the platform echoes secrets back', async () => {
    const replies: FakeReply[] = [];
    const h = harness((request) => {
      const reply = replies.shift();
      if (!reply) transportError('ETIMEDOUT', 'timeout of 30000ms exceeded', request);
      return reply;
    });
    await h.client.authenticate();
    const token = h.tokens[0] ?? '';
    const echo = `password ${PASSWORD} with Authorization: Bearer ${token} rejected`;
    replies.push(
      {
        status: 422,
        body: { error: { code: 'validation_failed', message: echo, details: { token, echo } } },
      },
      { status: 403, body: { message: echo, scope: 'badge' } },
      { status: 500, body: echo },
      { status: 409, body: { error: echo } },
    );
    const errors = [
      await rejectionOf(h.client.createOrder(ORDER)),
      await rejectionOf(h.client.createOrder(ORDER)),
      await rejectionOf(h.client.createOrder(ORDER)),
      await rejectionOf(h.client.createOrder(ORDER)),
      await rejectionOf(h.client.createOrder(ORDER)),
    ];
    expect(errors.map((error) => (error as PlatformError).code)).toEqual([
      'VALIDATION',
      'FORBIDDEN',
      'SERVER_ERROR',
      'CONFLICT',
      'TIMEOUT',
    ]);
    expect((errors[0] as Error).message).toContain(
      'password [REDACTED] with Authorization: Bearer [REDACTED]',
    );
    for (const error of errors)
      expectClean(everyRendering(error).replace(/Authorization: Bearer \[REDACTED\]/g, ''), h.tokens);
  });

  it('in bad-credential errors and in the client, cache and session objects', async () => {
    const { http } = fakeHttp((request) => ({
      status: 401,
      body: { message: `unknown user ${String((request.body as { password?: string }).password)}` },
    }));
    const client: PlatformClient = createPlatformClient({
      baseUrl: BASE_URL,
      credentials: { username: USERNAME, password: PASSWORD },
      http,
      tokenCache: new TokenCache(),
    });
    const error = await rejectionOf(client.authenticate());
    expect(error).toMatchObject({ code: 'BAD_CREDENTIALS' });
    expectClean(everyRendering(error), []);
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(PASSWORD);

    const h = harness(() => ({ status: 200, body: [] }));
    const session = await h.client.authenticate();
    const token = h.tokens[0] ?? 'missing';
    for (const rendering of [inspect(session), JSON.stringify(session), inspect(h.cache, { depth: 10 })]) {
      expect(rendering).not.toContain(token);
    }
    expect(JSON.stringify(h.cache.peek(`${BASE_URL} ${USERNAME}`))).not.toContain(token);
  });

  it('in option validation errors', () => {
    expect(() =>
      createPlatformClient({
        baseUrl: `not a url ${PASSWORD}`,
        credentials: { username: 'u', password: PASSWORD },
      }),
    ).toThrow(new TypeError('PlatformClientOptions.baseUrl must be an absolute http(s) URL'));
    expect(() =>
      createPlatformClient({ baseUrl: BASE_URL, credentials: { username: 'u', password: '' } }),
    ).toThrow(TypeError);
    expect(() =>
      createPlatformClient({
        baseUrl: BASE_URL,
        credentials: { username: 'u', password: PASSWORD },
        timeouts: { requestMs: -1 },
      }),
    ).toThrow('PlatformClientOptions.timeouts.requestMs must be > 0');
  });

  it('in log lines', async () => {
    const lines: string[] = [];
    const log = (fields: Record<string, unknown>, message?: string): void => {
      lines.push(`${message ?? ''} ${JSON.stringify(fields)}`);
    };
    let calls = 0;
    const h = harness(
      (request) => {
        calls += 1;
        if (calls === 1) return { status: 401 };
        if (calls === 2) return { status: 201, body: { id: 1 } };
        return transportError('ECONNREFUSED', 'connect ECONNREFUSED', request);
      },
      { logger: { debug: log, info: log, warn: log } },
    );
    await h.client.createOrder(ORDER);
    await rejectionOf(h.client.listStocks());
    expect(lines.length).toBeGreaterThan(4);
    expectClean(lines.join('\n'), h.tokens);
  });
});

describe('redaction of a platform’s text', () => {
  it('removes JWTs and bearer tokens exactly, whatever the text: long runs and repeated headers, 64 KiB', () => {
    const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.c2lnbmF0dXJl';
    expect(redactText(`token ${jwt} expired; Bearer abc.def=`, [])).toBe(
      'token [REDACTED] expired; Bearer [REDACTED]',
    );
    // recheck's attack on the pattern before (test/regular-expressions.unit.test.ts), and its neighbours.
    const headers = 'eyJ-'.repeat(16 * 1024);
    expect(redactText(`${headers}J.`, [])).toBe(`${headers}J.`);
    expect(redactText(`${headers}a.b.c`, [])).toBe('[REDACTED]');
    expect(redactText(`eyJ.${headers}`, [])).toBe(`eyJ.${headers}`);
    expect(redactText(`${'a'.repeat(64 * 1024)} ${jwt}`, [])).toBe(`${'a'.repeat(64 * 1024)} [REDACTED]`);
  });
});
