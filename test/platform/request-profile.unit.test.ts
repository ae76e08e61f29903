/**
 * The request profile: every name the client sends where the specification shows none comes from it. A client
 * whose profile renames everything sends none of the default names in any request (a name hard-coded anywhere
 * in the client fails here), the tenant id goes where the profile says, and a profile that places the tenant id
 * badly is refused naming the setting.
 */
import { Readable } from 'node:stream';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadPlatformConfig } from '../../src/config';
import type { AxiosInstance } from 'axios';
import { createPlatformClient } from '../../src/platform';
import type { PlatformClient, PlatformClientOptions } from '../../src/platform';
import { resolveRequestProfile } from '../../src/platform/request-profile';
import { TokenCache } from '../../src/platform/token-cache';
import { BASE_URL, fakeHttp, makeJwt, PASSWORD, USERNAME } from './fake-http';

const RENAMED = {
  orderFields: { vehicle: '/order/vehicle_data', badge: 'badge_data', stockId: 'stock' },
  stockIdAs: 'string',
  documentParts: { type: 'kind', typeId: 'order', owner: 'owner', file: 'attachment' },
  headers: { 'X-Tenant-ID': '{tenant}', 'User-Agent': 'badge-orders/test' },
  apiHeaders: { badge: { 'Api-Version': '2' } },
  tokenFields: { tenant: '{tenant}' },
  stockQuery: { tenant: '{tenant}' },
  pathPrefix: '/t/{tenant}',
} as const;

/** A client of the fake platform `http`, with a token cache of its own and `options` on top. */
function clientOver(http: AxiosInstance, options: Partial<PlatformClientOptions> = {}): PlatformClient {
  return createPlatformClient({
    baseUrl: BASE_URL,
    credentials: { username: USERNAME, password: PASSWORD },
    http,
    tokenCache: new TokenCache(),
    ...options,
  });
}

describe('the request profile', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'request-profile-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('sends no default name anywhere when the profile renames everything, and the tenant where it says', async () => {
    const token = makeJwt({ sub: '4711', exp: Math.floor(Date.now() / 1000) + 3600 });
    const { http, requests } = fakeHttp((request) => {
      if (request.path.endsWith('/iam/api/v1/auth/jwt'))
        return { status: 200, body: { access_token: token } };
      if (request.path.endsWith('/stocks')) return { status: 200, body: { data: [{ stock_id: 1001 }] } };
      if (request.path.endsWith('/orders')) return { status: 201, body: { id: 5001 } };
      return { status: 201, body: { id: 'doc-1' } };
    });
    const client = clientOver(http, {
      requestProfile: RENAMED,
      tenantId: 'acme',
    });
    await client.listStocks();
    await client.createOrder({
      idempotencyKey: 'k1',
      payload: { vehicle: { plate: 'P-1' }, badge: { type: 'green' }, stock_id: '1001' },
    });
    const filePath = join(folder, 'photo.jpg');
    writeFileSync(filePath, 'jpeg bytes');
    await client.uploadDocument({ idempotencyKey: 'k2', orderId: '5001', filePath, documentOwner: '4711' });

    expect(requests.map((request) => request.path)).toEqual([
      '/t/acme/iam/api/v1/auth/jwt',
      '/t/acme/badge/v2/api/v1/stocks',
      '/t/acme/badge/v2/api/v1/orders',
      '/t/acme/document/api/v1/documents',
    ]);
    for (const request of requests) {
      expect(request.headers).toMatchObject({ 'x-tenant-id': 'acme', 'user-agent': 'badge-orders/test' });
    }
    const [tokenCall, stocks, order, upload] = requests;
    expect(tokenCall?.body).toEqual({ tenant: 'acme', username: USERNAME, password: PASSWORD });
    expect(stocks?.config.params).toEqual({ tenant: 'acme' });
    expect(stocks?.headers['api-version']).toBe('2');
    expect(upload?.headers['api-version']).toBeUndefined();
    expect(order?.body).toEqual({
      order: { vehicle_data: { plate: 'P-1' } },
      badge_data: { type: 'green' },
      stock: '1001',
    });
    const parts = [...String(upload?.body).matchAll(/; name="([^"]+)"/g)].map((match) => match[1]);
    expect(parts.sort()).toEqual(['attachment', 'kind', 'order', 'owner']);
    // None of the names the client sends by default went out in any request.
    const byDefault = resolveRequestProfile(undefined, undefined);
    const defaults = [...Object.values(byDefault.orderFields), ...Object.values(byDefault.documentParts)];
    for (const request of requests.slice(1)) {
      const sent = typeof request.body === 'string' ? request.body : JSON.stringify(request.body ?? {});
      for (const name of defaults)
        expect({ path: request.path, sent: sent.includes(`"${name}"`) }).toEqual({
          path: request.path,
          sent: false,
        });
    }
  });

  it('names the setting when a refusal names a field or header the request did not send', async () => {
    const token = makeJwt({ sub: '4711', exp: Math.floor(Date.now() / 1000) + 3600 });
    const { http } = fakeHttp((request) =>
      request.path.endsWith('/auth/jwt')
        ? { status: 200, body: { access_token: token } }
        : request.body !== undefined && JSON.stringify(request.body).includes('"vehicle"')
          ? { status: 422, body: { error: { message: 'vehicle_data is required', field: 'vehicle_data' } } }
          : { status: 422, body: { error: { message: 'car is invalid', field: 'car' } } },
    );
    const client = clientOver(http);
    const input = { idempotencyKey: 'k', payload: { vehicle: {}, badge: {} } };
    await expect(client.createOrder(input)).rejects.toMatchObject({
      code: 'VALIDATION',
      field: 'vehicle_data',
      message: expect.stringContaining('set the name in BADGE_REQUEST_PROFILE') as unknown,
    });
    const renamed = clientOver(http, {
      requestProfile: { orderFields: { vehicle: 'car' } },
    });
    // A field the request did send is the data's problem, not the profile's.
    const refused = renamed.createOrder({ ...input, payload: { vehicle: {}, badge: {} } });
    await expect(refused).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(refused).rejects.not.toMatchObject({
      message: expect.stringContaining('BADGE_REQUEST_PROFILE') as unknown,
    });
  });

  it('counts the parts an upload sent: a refused document_owner is the data, another part name the profile', async () => {
    const token = makeJwt({ sub: '4711', exp: Math.floor(Date.now() / 1000) + 3600 });
    const { http } = fakeHttp((request) =>
      request.path.endsWith('/auth/jwt')
        ? { status: 200, body: { access_token: token } }
        : String(request.body).includes('name="file"')
          ? { status: 422, body: { error: { message: 'document_owner is wrong', field: 'document_owner' } } }
          : { status: 422, body: { error: { message: 'attachment is missing', field: 'attachment' } } },
    );
    const client = clientOver(http);
    const upload = { orderId: '1', documentOwner: '4711', idempotencyKey: 'd' };
    const owner = client.uploadDocument({
      ...upload,
      source: { sizeBytes: 1, openStream: () => Readable.from([Buffer.from('x')]) },
    });
    await expect(owner).rejects.toMatchObject({ code: 'VALIDATION', field: 'document_owner' });
    await expect(owner).rejects.not.toHaveProperty('unsent');
    // Without a file, the part the platform names is one the profile does not know.
    await expect(client.uploadDocument({ ...upload, withoutFile: true })).rejects.toMatchObject({
      unsent: 'attachment',
      message: expect.stringContaining('set the name in BADGE_REQUEST_PROFILE') as unknown,
    });
  });

  it('is read from BADGE_REQUEST_PROFILE and BADGE_TENANT_ID, refused naming the setting to change', () => {
    const env = { BADGE_USERNAME: 'demo', BADGE_PASSWORD: 'secret' };
    const refusal = (extra: Record<string, string>): string => {
      try {
        loadPlatformConfig({ ...env, ...extra });
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(
      loadPlatformConfig({
        ...env,
        BADGE_TENANT_ID: 'acme',
        BADGE_REQUEST_PROFILE: JSON.stringify({ headers: { 'X-Tenant-ID': '{tenant}' } }),
      }),
    ).toMatchObject({ tenantId: 'acme', requestProfile: { headers: { 'X-Tenant-ID': '{tenant}' } } });
    expect(refusal({ BADGE_REQUEST_PROFILE: '{"headers":{"X-Tenant-ID":"{tenant}"}}' })).toContain(
      'BADGE_TENANT_ID: is required: BADGE_REQUEST_PROFILE uses {tenant}',
    );
    expect(refusal({ BADGE_TENANT_ID: 'acme' })).toContain(
      'BADGE_REQUEST_PROFILE: places BADGE_TENANT_ID nowhere',
    );
    expect(refusal({ BADGE_REQUEST_PROFILE: '{"orderFields":{"vehicel":"car"}}' })).toContain(
      'BADGE_REQUEST_PROFILE',
    );
    expect(refusal({ BADGE_REQUEST_PROFILE: '{"headers":{"Bad Header":"x"}}' })).toContain(
      'headers.Bad Header',
    );
    expect(refusal({ BADGE_REQUEST_PROFILE: 'not json' })).toContain(
      'BADGE_REQUEST_PROFILE: must be a JSON object',
    );
  });
});
