import { TokenCache } from '../../src/platform/token-cache';
import { createPlatformClient } from '../../src/platform';
import { PlatformError } from '../../src/platform/errors';
import type { FakeReply } from './fake-http';
import {
  BASE_URL,
  fakeHttp,
  FakeClock,
  harness,
  makeJwt,
  PASSWORD,
  rejectionOf,
  USERNAME,
} from './fake-http';

const STOCKS: FakeReply = { status: 200, body: { data: [{ stock_id: 1001 }] } };

/** The token a cache makes of what the token call returned, received at `nowMs`. */
async function fromIssued(issued: { accessToken: string; expiresInSeconds?: number }, nowMs: number) {
  const cache = new TokenCache({ now: () => nowMs });
  return (await cache.get('key', 0, () => Promise.resolve(issued))).token;
}

describe('token reuse', () => {
  it('shares one token across calls until shortly before exp', async () => {
    const h = harness(() => STOCKS, { ttlSeconds: 900, tokenRefreshMarginMs: 60_000 });
    const first = await h.client.authenticate();
    expect(first).toMatchObject({
      userId: '4711',
      documentOwner: { id: '4711', source: 'claim sub (default chain)' },
      expiresAt: new Date(h.clock.nowMs + 900_000),
      fromCache: false,
    });
    await h.client.listStocks();
    await h.client.listStocks();
    expect(await h.client.authenticate()).toMatchObject({ fromCache: true });
    expect(h.authCalls()).toBe(1);

    h.clock.advance(900_000 - 60_000 - 1); // still just inside the margin
    await h.client.listStocks();
    expect(h.authCalls()).toBe(1);

    h.clock.advance(1); // now within a minute of exp
    await h.client.listStocks();
    expect(h.authCalls()).toBe(2);
    const apiTokens = h.apiRequests().map((request) => request.headers.authorization);
    expect(apiTokens).toEqual([
      `Bearer ${h.tokens[0]}`,
      `Bearer ${h.tokens[0]}`,
      `Bearer ${h.tokens[0]}`,
      `Bearer ${h.tokens[1]}`,
    ]);
  });

  it('caps the margin at half the lifetime so short-lived tokens are still reused', async () => {
    const h = harness(() => STOCKS, { ttlSeconds: 60, tokenRefreshMarginMs: 60_000 });
    await h.client.listStocks();
    h.clock.advance(29_000);
    await h.client.listStocks();
    expect(h.authCalls()).toBe(1);
    h.clock.advance(1_000);
    await h.client.listStocks();
    expect(h.authCalls()).toBe(2);
  });

  it('counts the lifetime (exp - iat) from receipt, so platform clock skew does not matter', async () => {
    const receivedAt = Date.UTC(2030, 0, 1);
    // The platform's clock is an hour behind: taken literally, exp would already be past.
    const iat = Math.floor(receivedAt / 1000) - 3600;
    const token = await fromIssued({ accessToken: makeJwt({ sub: '1', iat, exp: iat + 900 }) }, receivedAt);
    expect(token.expiresAt).toEqual(new Date(receivedAt + 900_000));
    expect(token.isUsable(receivedAt + 800_000, 60_000)).toBe(true);
    expect(token.isUsable(receivedAt + 840_000, 60_000)).toBe(false);
  });

  it('takes a numeric sub beyond 2^53 as the digits the platform wrote', async () => {
    const part = (text: string): string => Buffer.from(text).toString('base64url');
    const token = `${part('{"alg":"HS256"}')}.${part('{"sub":9223372036854775807}')}.c2ln`;
    expect((await fromIssued({ accessToken: token }, Date.UTC(2030, 0, 1))).userId).toBe(
      '9223372036854775807',
    );
  });

  describe("lifetime, whatever the platform's clock says", () => {
    const now = Date.UTC(2030, 0, 1);
    const ours = Math.floor(now / 1000);
    /** The platform's clock, in epoch seconds, when it runs `offsetSeconds` ahead of ours (negative: behind). */
    const platform = (offsetSeconds: number): number => ours + offsetSeconds;
    const minutes = (count: number): number => count * 60;

    it.each([
      [
        'exp and iat, clocks agreeing',
        { iat: platform(0), exp: platform(0) + 900 },
        undefined,
        now + 900_000,
      ],
      // Today's tokens: expires_in first, counted from receipt; exp − iat the same way; a credible exp as is.
      [
        'exp and iat, platform an hour behind (exp long past)',
        { iat: platform(-minutes(60)), exp: platform(-minutes(60)) + 900 },
        undefined,
        now + 900_000,
      ],
      ['exp only, clocks agreeing', { exp: platform(0) + 300 }, undefined, now + 300_000],
      [
        'exp only, platform 10 minutes behind, longer-lived token (exp still ahead)',
        { exp: platform(-minutes(10)) + 3600 },
        undefined,
        now + 3_000_000,
      ],
      [
        'exp only, platform 10 minutes behind, 5-minute token (exp past on arrival)',
        { exp: platform(-minutes(10)) + 300 },
        undefined,
        null,
      ],
      [
        'exp only, platform 10 minutes ahead (exp believed; a 401 corrects it)',
        { exp: platform(minutes(10)) + 300 },
        undefined,
        now + 900_000,
      ],
      ['exp only, seconds away on arrival', { exp: platform(0) + 10 }, undefined, null],
      ['expires_in only', { sub: 'u' }, 120, now + 120_000],
      [
        'expires_in and exp − iat disagreeing: expires_in',
        { iat: ours, exp: ours + 900 },
        300,
        now + 300_000,
      ],
      [
        'expires_in and an exp past on arrival: expires_in',
        { exp: platform(-minutes(10)) + 300 },
        300,
        now + 300_000,
      ],
      ['neither exp nor expires_in', { sub: 'u' }, undefined, null],
    ] as const)('%s', async (_case, claims, expiresInSeconds, expected) => {
      const token = await fromIssued(
        { accessToken: makeJwt(claims), ...(expiresInSeconds !== undefined && { expiresInSeconds }) },
        now,
      );
      expect(token.expiresAt).toEqual(expected === null ? null : new Date(expected));
      if (expected === null) expect(token.isUsable(now + 365 * 86_400_000, 60_000)).toBe(true);
    });

    it('reuses an opaque token without expires_in forever (until a 401)', async () => {
      const opaque = await fromIssued({ accessToken: 'opaque-token-value' }, now);
      expect(opaque).toMatchObject({ userId: null, expiresAt: null });
      expect(opaque.isUsable(now + 365 * 86_400_000, 60_000)).toBe(true);
    });
  });

  it('signs in once per token lifetime against a platform 10 minutes behind, with exp but no iat', async () => {
    const clock = new FakeClock();
    const platformNow = (): number => Math.floor(clock.nowMs / 1000) - 600;
    let issued = 0;
    const { http } = fakeHttp((request) => {
      if (request.path === '/iam/api/v1/auth/jwt') {
        issued += 1;
        // A 5-minute token by the platform's clock: its exp is five minutes before our now.
        return {
          status: 200,
          body: { access_token: makeJwt({ sub: '4711', n: issued, exp: platformNow() + 300 }) },
        };
      }
      const claims = JSON.parse(
        Buffer.from(request.headers.authorization?.split('.')[1] ?? '', 'base64url').toString(),
      ) as { exp: number };
      return platformNow() < claims.exp ? STOCKS : { status: 401 };
    });
    const client = createPlatformClient({
      baseUrl: BASE_URL,
      credentials: { username: USERNAME, password: PASSWORD },
      http,
      tokenCache: new TokenCache({ now: clock.now }),
    });
    // 24 calls a minute apart: the platform refuses each token after its five minutes, at 5, 10, 15 and 20.
    for (let call = 0; call < 24; call += 1) {
      await client.listStocks();
      clock.advance(60_000);
    }
    expect(issued).toBe(5);
  });

  it('paces sign-ins whatever the claims say, except after a 401', async () => {
    const platform = { rejected: undefined as string | undefined };
    const h = harness(
      (request) =>
        request.headers.authorization === `Bearer ${platform.rejected}` ? { status: 401 } : STOCKS,
      { ttlSeconds: 1 },
    );
    // Tokens living one second (expires_in and exp − iat agree), used every 100 ms for ten seconds.
    for (let call = 0; call < 100; call += 1) {
      await h.client.listStocks();
      h.clock.advance(100);
    }
    expect(h.authCalls()).toBe(5); // at 0, 2, 4, 6 and 8 s
    // A refused token is replaced at once, however young.
    await h.client.listStocks();
    expect(h.authCalls()).toBe(6);
    platform.rejected = h.tokens.at(-1);
    await h.client.listStocks();
    expect(h.authCalls()).toBe(7);
  });

  it('reuses a token without exp until the platform answers 401', async () => {
    const clock = new FakeClock();
    let issued = 0;
    const platform = { rejectToken: undefined as string | undefined };
    const { http, requests } = fakeHttp((request) => {
      if (request.path === '/iam/api/v1/auth/jwt') {
        issued += 1;
        return { status: 200, body: { access_token: makeJwt({ sub: '4711', n: issued }) } };
      }
      return request.headers.authorization === `Bearer ${platform.rejectToken}` ? { status: 401 } : STOCKS;
    });
    const client = createPlatformClient({
      baseUrl: BASE_URL,
      credentials: { username: USERNAME, password: PASSWORD },
      http,
      tokenCache: new TokenCache({ now: clock.now }),
    });
    expect(await client.authenticate()).toMatchObject({ userId: '4711', expiresAt: null, fromCache: false });
    for (let day = 0; day < 5; day += 1) {
      clock.advance(86_400_000);
      await client.listStocks();
    }
    expect(issued).toBe(1);
    platform.rejectToken = makeJwt({ sub: '4711', n: 1 });
    await client.listStocks();
    expect(issued).toBe(2);
    expect(requests.map((request) => request.path.split('/').pop())).toEqual([
      'jwt',
      ...Array<string>(5).fill('stocks'),
      'stocks',
      'jwt',
      'stocks',
    ]);
  });

  it('keys the cache by base URL and username', async () => {
    const cache = new TokenCache();
    let issued = 0;
    const { http } = fakeHttp((request) => {
      if (request.path.endsWith('/auth/jwt')) {
        issued += 1;
        return { status: 200, body: { access_token: makeJwt({ sub: String(issued) }) } };
      }
      return STOCKS;
    });
    const make = (baseUrl: string, username: string): ReturnType<typeof createPlatformClient> =>
      createPlatformClient({
        baseUrl,
        credentials: { username, password: PASSWORD },
        http,
        tokenCache: cache,
      });
    await make(BASE_URL, 'a').authenticate();
    await make(`${BASE_URL}/`, 'a').authenticate(); // same key: trailing slash does not matter
    await make(BASE_URL, 'b').authenticate();
    await make('https://other.test', 'a').authenticate();
    expect(issued).toBe(3);
    expect(cache.size).toBe(3);
  });
});

describe('concurrent callers', () => {
  it('share exactly one in-flight authentication', async () => {
    let releaseToken: () => void = () => undefined;
    const tokenGate = new Promise<void>((resolve) => {
      releaseToken = resolve;
    });
    const clock = new FakeClock();
    let authCalls = 0;
    const { http, requests } = fakeHttp(async (request) => {
      if (request.path.endsWith('/auth/jwt')) {
        authCalls += 1;
        await tokenGate;
        const iat = Math.floor(clock.nowMs / 1000);
        return { status: 200, body: { access_token: makeJwt({ sub: '4711', iat, exp: iat + 900 }) } };
      }
      return STOCKS;
    });
    const client = createPlatformClient({
      baseUrl: BASE_URL,
      credentials: { username: USERNAME, password: PASSWORD },
      http,
      tokenCache: new TokenCache({ now: clock.now }),
    });
    const calls = [
      ...Array.from({ length: 20 }, () => client.listStocks()),
      client.authenticate(),
      client.createOrder({ payload: { vehicle: {}, badge: {} }, idempotencyKey: 'k' }).catch(() => 'no id'),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    releaseToken();
    await Promise.all(calls);
    expect(authCalls).toBe(1);
    expect(requests).toHaveLength(22); // 1 token call, 20 stock lists, 1 order
  });

  it('all get the error when the shared authentication fails, and the next call tries again', async () => {
    let fail = true;
    let authCalls = 0;
    const { http } = fakeHttp((request) => {
      if (request.path.endsWith('/auth/jwt')) {
        authCalls += 1;
        return fail ? { status: 503 } : { status: 200, body: { access_token: makeJwt({ sub: '1' }) } };
      }
      return STOCKS;
    });
    const client = createPlatformClient({
      baseUrl: BASE_URL,
      credentials: { username: USERNAME, password: PASSWORD },
      http,
      tokenCache: new TokenCache(),
    });
    const results = await Promise.allSettled([
      client.listStocks(),
      client.listStocks(),
      client.authenticate(),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(authCalls).toBe(1);
    fail = false;
    await client.listStocks();
    expect(authCalls).toBe(2);
  });
});

describe('401 handling', () => {
  it('invalidates the token, re-authenticates once and repeats the request', async () => {
    let first = true;
    const h = harness(() => {
      if (first) {
        first = false;
        return { status: 401, body: { error: { code: 'unauthorized', message: 'token expired' } } };
      }
      return { status: 201, body: { id: 5001 } };
    });
    const order = await h.client.createOrder({
      payload: { vehicle: {}, badge: {} },
      idempotencyKey: 'key-1',
    });
    expect(order.orderId).toBe('5001');
    expect(h.authCalls()).toBe(2);
    const [rejected, repeated] = h.apiRequests();
    expect(rejected?.headers.authorization).toBe(`Bearer ${h.tokens[0]}`);
    expect(repeated?.headers.authorization).toBe(`Bearer ${h.tokens[1]}`);
    // The repeat is the same request: same body, same idempotency key.
    expect(repeated?.body).toEqual(rejected?.body);
    expect(repeated?.headers['idempotency-key']).toBe('key-1');
    expect(h.events.map((event) => `${event.route}:${event.status}`)).toEqual([
      'auth:200',
      'orders:401',
      'auth:200',
      'orders:201',
    ]);
  });

  it('throws UNAUTHORIZED on a second 401, and the next call starts afresh', async () => {
    const h = harness(() => ({ status: 401, body: { error: { message: 'token revoked' } } }));
    const error = await rejectionOf(h.client.listStocks());
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect((error as Error).message).toBe(
      'GET /badge/v2/api/v1/stocks failed with 401 (Unauthorized): token revoked',
    );
    expect(h.authCalls()).toBe(2);
    expect(h.apiRequests()).toHaveLength(2);
  });

  it('does not drop a token another caller has just refreshed', async () => {
    const h = harness(() => STOCKS);
    await h.client.authenticate();
    const key = TokenCache.key(BASE_URL, USERNAME);
    const stale = h.cache.peek(key);
    h.cache.invalidate(key);
    await h.client.authenticate();
    const fresh = h.cache.peek(key);
    expect(fresh).not.toBe(stale);
    expect(h.cache.invalidate(key, stale)).toBe(false);
    expect(h.cache.peek(key)).toBe(fresh);
    expect(h.cache.invalidate(key, fresh)).toBe(true);
  });
});
