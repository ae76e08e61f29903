/**
 * The token request of each kind of credentials as it leaves the client (a fake HTTP layer records it), and the
 * token cache keeping a client's token apart from a user's of the same name on the same platform.
 */
import { createPlatformClient } from '../../src/platform';
import { TokenCache } from '../../src/platform/token-cache';
import { BASE_URL, fakeHttp, makeJwt } from './fake-http';
import type { RecordedRequest } from './fake-http';

/** A platform that issues a token naming who asked (the form's or Basic's client, or the JSON's user). */
function platform(): ReturnType<typeof fakeHttp> {
  return fakeHttp((request: RecordedRequest) => {
    if (request.method === 'POST' && request.path.endsWith('/token')) {
      const who =
        typeof request.body === 'string'
          ? 'client'
          : `user ${(request.body as { username: string }).username}`;
      return { status: 200, body: { access_token: makeJwt({ sub: who }), expires_in: 900 } };
    }
    return { status: 200, body: { data: [] } };
  });
}

describe('the token request of client credentials', () => {
  it('is the client credentials grant, the client in HTTP Basic (form-encoded first) or in the form', async () => {
    const fake = platform();
    const options = { baseUrl: BASE_URL, http: fake.http, tokenPath: '/oauth/token' };
    const secret = 'p+ss:w/rd é';
    await createPlatformClient({
      ...options,
      credentials: { clientId: 'partner app', clientSecret: secret },
      tokenCache: new TokenCache(),
    }).authenticate();
    await createPlatformClient({
      ...options,
      credentials: { clientId: 'partner app', clientSecret: secret, clientAuth: 'body' },
      tokenCache: new TokenCache(),
    }).authenticate();
    const [basic, body] = fake.requests;
    expect(basic).toMatchObject({
      method: 'POST',
      path: '/oauth/token',
      body: 'grant_type=client_credentials',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('partner+app:p%2Bss%3Aw%2Frd+%C3%A9').toString('base64')}`,
      },
    });
    expect(body?.headers.authorization).toBeUndefined();
    expect(new URLSearchParams(String(body?.body))).toEqual(
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'partner app',
        client_secret: secret,
      }),
    );
  });

  it('caches a client’s token apart from the token of a user of the same name', async () => {
    const fake = platform();
    const cache = new TokenCache();
    const options = { baseUrl: BASE_URL, http: fake.http, tokenPath: '/auth/token', tokenCache: cache };
    const user = createPlatformClient({
      ...options,
      credentials: { username: 'demo', password: 'pw-of-demo' },
    });
    const client = createPlatformClient({
      ...options,
      credentials: { clientId: 'demo', clientSecret: 'secret-of-demo' },
    });
    expect((await user.authenticate()).userId).toBe('user demo');
    expect((await client.authenticate()).userId).toBe('client');
    expect(await user.authenticate()).toMatchObject({ userId: 'user demo', fromCache: true });
    expect(await client.authenticate()).toMatchObject({ userId: 'client', fromCache: true });
    expect(fake.requests).toHaveLength(2);
  });
});
