import { decodeJwt } from 'jose';
import { BADGE_ONLY_USER, DEMO_USER, DOCUMENT_ONLY_USER, PLATFORM_PATHS } from '../../src/sandbox';
import { useSandbox } from './fixture';
import {
  authHeaders,
  createOrder,
  errorOf,
  http,
  orderPayload,
  requestToken,
  smallFile,
  tokenFor,
  uploadDocument,
} from './helpers';

const START = Date.parse('2030-01-01T00:00:00Z');
let clock = START;
const sandbox = useSandbox({ now: () => clock, tokenTtlSeconds: 60 });
const other = useSandbox();

beforeEach(() => {
  clock = START;
});

function stocks(token: string | undefined, baseUrl = sandbox.baseUrl) {
  return http.get(`${baseUrl}${PLATFORM_PATHS.stocks}`, {
    headers: token === undefined ? {} : authHeaders(token),
  });
}

describe('token call', () => {
  it('issues a signed JWT with sub, scope, iat, exp and iss', async () => {
    const response = await requestToken(sandbox.baseUrl, { username: 'demo', password: 'demo-password' });
    expect(response.status).toBe(200);
    expect(response.data).toEqual({
      access_token: expect.any(String) as string,
      token_type: 'Bearer',
      expires_in: 60,
    });
    const claims = decodeJwt(response.data.access_token);
    expect(claims).toEqual({
      sub: '4711',
      scope: 'badge document',
      iss: 'badge-sandbox',
      iat: START / 1000,
      exp: START / 1000 + 60,
    });
  });

  it('answers 401 for a wrong password or an unknown user', async () => {
    for (const body of [
      { username: 'demo', password: 'wrong' },
      { username: 'nobody', password: 'demo-password' },
    ]) {
      const response = await requestToken(sandbox.baseUrl, body);
      expect(response.status).toBe(401);
      expect(errorOf(response)).toMatchObject({ status: 401, code: 'unauthorized' });
    }
  });

  it.each([
    ['a missing password', { username: 'demo' }, 'password'],
    ['a non-string username', { username: 42, password: 'x' }, 'username'],
    ['an array', [], 'body'],
  ])('answers 422 for %s, naming the field', async (_case, body, field) => {
    const response = await requestToken(sandbox.baseUrl, body);
    expect(response.status).toBe(422);
    expect(errorOf(response)).toMatchObject({ status: 422, code: 'validation_failed', field });
  });

  it('answers 422 for a body that is not JSON', async () => {
    const response = await http.post(`${sandbox.baseUrl}${PLATFORM_PATHS.token}`, '{"username":', {
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(422);
    expect(errorOf(response)).toMatchObject({ code: 'validation_failed', field: 'body' });
  });
});

describe('bearer tokens', () => {
  it('accepts a fresh token', async () => {
    const token = await tokenFor(sandbox.baseUrl, DEMO_USER);
    expect((await stocks(token)).status).toBe(200);
  });

  it('answers 401 without a token or with another scheme', async () => {
    const missing = await stocks(undefined);
    expect(missing.status).toBe(401);
    expect(errorOf(missing)).toMatchObject({
      status: 401,
      code: 'unauthorized',
      message: 'missing bearer token',
    });
    const basic = await http.get(`${sandbox.baseUrl}${PLATFORM_PATHS.stocks}`, {
      headers: { authorization: 'Basic ZGVtbzpkZW1vLXBhc3N3b3Jk' },
    });
    expect(basic.status).toBe(401);
  });

  it('answers 401 once the token has expired (injected clock, no sleeping)', async () => {
    const token = await tokenFor(sandbox.baseUrl, DEMO_USER);
    clock = START + 59_999;
    expect((await stocks(token)).status).toBe(200);
    clock = START + 60_000;
    const expired = await stocks(token);
    expect(expired.status).toBe(401);
    expect(errorOf(expired)).toMatchObject({ code: 'unauthorized', message: 'token expired' });
  });

  it('honours a changed lifetime for new tokens, including sub-second ones', async () => {
    await sandbox.control.setRules({ tokenTtlSeconds: 0.5 });
    try {
      const response = await requestToken(sandbox.baseUrl, { username: 'demo', password: 'demo-password' });
      expect(response.data.expires_in).toBe(0.5);
      clock = START + 499;
      expect((await stocks(response.data.access_token)).status).toBe(200);
      clock = START + 500;
      expect((await stocks(response.data.access_token)).status).toBe(401);
    } finally {
      await sandbox.control.setRules({ tokenTtlSeconds: 60 });
    }
  });

  it('answers 401 for a tampered token', async () => {
    const token = await tokenFor(sandbox.baseUrl, BADGE_ONLY_USER);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, scope: 'badge document' })).toString('base64url');
    const response = await stocks(`${header}.${forged}.${signature}`);
    expect(response.status).toBe(401);
    expect(errorOf(response)).toMatchObject({ code: 'unauthorized', message: 'invalid token' });
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    expect((await stocks(unsigned)).status).toBe(401);
    expect((await stocks('not-a-jwt')).status).toBe(401);
  });

  it("answers 401 for another sandbox instance's token (per-instance secret)", async () => {
    const foreign = await tokenFor(other.baseUrl, DEMO_USER);
    expect((await stocks(foreign, other.baseUrl)).status).toBe(200);
    expect((await stocks(foreign)).status).toBe(401);
  });
});

describe('scopes', () => {
  it('answers 403 naming the document scope when a badge-only user uploads', async () => {
    const token = await tokenFor(sandbox.baseUrl, BADGE_ONLY_USER);
    const response = await uploadDocument(sandbox.baseUrl, token, {
      document_type: 'badge',
      document_type_id: 5001,
      document_owner: '4712',
      file: smallFile(),
    });
    expect(response.status).toBe(403);
    expect(errorOf(response)).toMatchObject({ status: 403, code: 'forbidden', scope: 'document' });
    expect(errorOf(response).message).toContain('document');
  });

  it('answers 403 naming the badge scope when a document-only user reads stocks or orders', async () => {
    const token = await tokenFor(sandbox.baseUrl, DOCUMENT_ONLY_USER);
    const stockResponse = await stocks(token);
    expect(stockResponse.status).toBe(403);
    expect(errorOf(stockResponse)).toMatchObject({ code: 'forbidden', scope: 'badge' });
    const orderResponse = await createOrder(sandbox.baseUrl, token, orderPayload());
    expect(orderResponse.status).toBe(403);
    expect(errorOf(orderResponse)).toMatchObject({ code: 'forbidden', scope: 'badge' });
  });

  it('checks the token before the scope: no token is 401, not 403', async () => {
    const response = await createOrder(sandbox.baseUrl, '', orderPayload());
    expect(response.status).toBe(401);
  });
});

describe('a platform whose clock runs behind, with sign-ins limited (strict-clock)', () => {
  const behind = useSandbox({ profile: 'strict-clock', now: () => clock, resetEach: 'state' });
  const platformNowSeconds = (START - 600_000) / 1000;

  it('issues tokens in its own time, exp without iat, that live their whole lifetime', async () => {
    const response = await requestToken(behind.baseUrl, { username: 'demo', password: 'demo-password' });
    expect(response.status).toBe(200);
    const body = response.data as unknown as Record<string, unknown>;
    expect(body).not.toHaveProperty('expires_in');
    expect(body.expires_at).toBe(platformNowSeconds + 900);
    const claims = decodeJwt(response.data.access_token);
    expect(claims).not.toHaveProperty('iat');
    expect(claims.exp).toBe(platformNowSeconds + 900);
    clock = START + 899_999;
    expect((await stocks(response.data.access_token, behind.baseUrl)).status).toBe(200);
    clock = START + 900_000;
    expect((await stocks(response.data.access_token, behind.baseUrl)).status).toBe(401);
  });

  it('answers 429 with Retry-After beyond 20 sign-ins a minute, and signs in again once the minute has passed', async () => {
    for (let call = 0; call < 20; call += 1) {
      clock = START + call * 1000;
      await tokenFor(behind.baseUrl, DEMO_USER);
    }
    const refused = await requestToken(behind.baseUrl, { username: 'demo', password: 'demo-password' });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('41'); // the first sign-in leaves the window at START + 60 s
    expect(refused.data).toMatchObject({ status: 429, detail: 'too many sign-ins: at most 20 in 60 s' });
    clock = START + 60_000;
    expect((await requestToken(behind.baseUrl, DEMO_USER)).status).toBe(200);
    const stats = await behind.control.stats();
    expect(stats.authCalls.issued).toBe(21);
    expect(stats.requests.auth).toEqual({ '200': 21, '429': 1 });
  });
});
