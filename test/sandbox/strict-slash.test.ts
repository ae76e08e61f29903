/**
 * `strictSlash`: the platform routes only at their path with a trailing slash, and a 307 with a relative Location
 * (nothing looked at, nothing stored) without it, as Starlette and FastAPI answer. Real sandbox over HTTP.
 */
import { DEMO_USER, PLATFORM_PATHS } from '../../src/sandbox';
import { useSandbox } from './fixture';
import { authHeaders, http, orderPayload } from './helpers';

const sandbox = useSandbox({ strictSlash: true, resetEach: 'state' });
const credentials = { username: DEMO_USER.username, password: DEMO_USER.password };

it('answers every platform path without its slash with 307 and a relative Location, before anything else', async () => {
  const calls = [
    ['post', PLATFORM_PATHS.token, credentials],
    ['get', `${PLATFORM_PATHS.stocks}?page=2`, undefined],
    ['post', PLATFORM_PATHS.orders, orderPayload()],
    ['post', PLATFORM_PATHS.documents, undefined],
  ] as const;
  for (const [method, path, body] of calls) {
    // No token at all: the redirect comes first.
    const response = await http.request({
      method,
      url: `${sandbox.baseUrl}${path}`,
      data: body,
      maxRedirects: 0,
    });
    const [bare = '', query] = path.split('?');
    expect({ path, status: response.status, location: String(response.headers.location) }).toEqual({
      path,
      status: 307,
      location: `${bare}/${query === undefined ? '' : `?${query}`}`,
    });
  }
  expect(await sandbox.control.listOrders()).toEqual([]);
});

it('serves the routes at their path with the slash', async () => {
  const token = await http.post<{ access_token: string }>(
    `${sandbox.baseUrl}${PLATFORM_PATHS.token}/`,
    credentials,
    { maxRedirects: 0 },
  );
  expect(token.status).toBe(200);
  const headers = authHeaders(token.data.access_token, 'strict-slash-1');
  const redirected = await http.post(`${sandbox.baseUrl}${PLATFORM_PATHS.orders}`, orderPayload(), {
    headers,
    maxRedirects: 0,
  });
  expect(redirected.status).toBe(307);
  const created = await http.post(`${sandbox.baseUrl}${PLATFORM_PATHS.orders}/`, orderPayload(), {
    headers,
    maxRedirects: 0,
  });
  expect(created.status).toBe(201);
  expect((await sandbox.control.listOrders()).map((order) => order.idempotency_key)).toEqual([
    'strict-slash-1',
  ]);
});
