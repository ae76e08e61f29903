/**
 * Success is decided by the status code: the client reads answers best-effort, pins shapes with the response
 * map, logs an unreadable shape once per route without values, and treats an id-less order 2xx as "may exist".
 */
import { Readable } from 'node:stream';
import { createPlatformClient } from '../../src/platform';
import { PlatformError } from '../../src/platform/errors';
import type { PlatformLogger } from '../../src/platform/types';
import type { UploadSource } from '../../src/platform';
import { BASE_URL, harness, PASSWORD, rejectionOf, USERNAME } from './fake-http';

function recordingLogger(): PlatformLogger & {
  warnings: { fields: Record<string, unknown>; message?: string }[];
} {
  const warnings: { fields: Record<string, unknown>; message?: string }[] = [];
  return {
    warnings,
    debug: () => undefined,
    info: () => undefined,
    warn: (fields, message) => warnings.push({ fields, ...(message !== undefined && { message }) }),
  };
}

function source(text: string): UploadSource & { opened: number } {
  const bytes = Buffer.from(text);
  const result = {
    opened: 0,
    sizeBytes: bytes.length,
    openStream: (): Readable => {
      result.opened += 1;
      return Readable.from([bytes]);
    },
  };
  return result;
}

const SIGNED = 'https://cdn.example/doc?X-Signature=very-secret-signature';
const upload = { orderId: '5001', documentOwner: '4711', idempotencyKey: 'doc-1', filename: 'a.pdf' };

describe('uploads', () => {
  it('succeeds on a 2xx whatever the body, and logs its shape once without values', async () => {
    const logger = recordingLogger();
    const h = harness(() => ({ status: 201, body: { data: { urls: { signed: SIGNED } }, ok: true } }), {
      logger,
    });
    const first = await h.client.uploadDocument({ ...upload, source: source('%PDF-1') });
    expect(first).toMatchObject({
      documentId: null,
      links: { original: null, thumbnail: null, download: SIGNED },
    });
    await h.client.uploadDocument({ ...upload, source: source('%PDF-1') });
    const shapes = logger.warnings.filter((w) => w.fields.route === 'documents');
    expect(shapes).toHaveLength(1);
    expect(shapes[0]?.fields.shape).toEqual(['data.urls.signed:string', 'ok:boolean']);
    expect(JSON.stringify(logger.warnings)).not.toContain('very-secret-signature');
  });

  it('succeeds on a 2xx with an empty or non-JSON body', async () => {
    for (const body of [undefined, 'stored', [], 42]) {
      const h = harness(() => ({ status: 200, body }));
      await expect(h.client.uploadDocument({ ...upload, source: source('x') })).resolves.toMatchObject({
        documentId: null,
        links: { original: null, thumbnail: null, download: null },
      });
    }
  });

  it('opens the source again when the body must be re-sent after a 401', async () => {
    let calls = 0;
    const h = harness(() => {
      calls += 1;
      return calls === 1 ? { status: 401 } : { status: 201, body: { document: { id: 'd-1' } } };
    });
    const src = source('hello');
    const result = await h.client.uploadDocument({ ...upload, source: src });
    expect(result.documentId).toBe('d-1');
    expect(src.opened).toBe(2);
    expect(h.apiRequests()[1]?.body).toContain('hello');
  });

  it('applies the response map', async () => {
    const h = harness(() => ({ status: 201, body: { x: { y: 'doc-7' }, z: [SIGNED] } }), {
      responseMap: { documentId: '/x/y', links: { download: '/z/0' } },
    });
    const result = await h.client.uploadDocument({ ...upload, source: source('x') });
    expect(result).toMatchObject({ documentId: 'doc-7', links: { download: SIGNED } });
  });
});

describe('order creation', () => {
  const order = { payload: { vehicle: {}, badge: {} }, idempotencyKey: 'o-1' };

  it.each([
    [{ result: { order_id: '5001' } }],
    [{ data: { attributes: { orderId: 5001 } } }],
    [{ order: { id: 5001, vehicle: { id: 9 } } }],
  ])('finds the id in %j', async (body) => {
    const h = harness(() => ({ status: 201, body }));
    await expect(h.client.createOrder(order)).resolves.toMatchObject({ orderId: '5001' });
  });

  it('treats a 2xx without a recognisable id as an order that may exist, never a rejection', async () => {
    const logger = recordingLogger();
    const h = harness(() => ({ status: 201, body: { reference: 'ORD-ABC', vehicle: { id: 3 } } }), {
      logger,
    });
    const error = await rejectionOf(h.client.createOrder(order));
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', outcome: 'maybe-applied', status: 201 });
    expect(logger.warnings.find((w) => w.fields.route === 'orders')?.fields.shape).toEqual([
      'reference:string',
      'vehicle.id:number',
    ]);
  });

  it('reads no id from an answer naming two different ones: the order may exist, an operator decides', async () => {
    const h = harness(() => ({ status: 201, body: { id: 7, order: { id: 5001 } } }));
    const error = await rejectionOf(h.client.createOrder(order));
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', outcome: 'maybe-applied', status: 201 });
    const same = harness(() => ({ status: 201, body: { order_id: '5001', data: { id: 5001 } } }));
    await expect(same.client.createOrder(order)).resolves.toMatchObject({ orderId: '5001' });
  });

  it('lets a pinned pointer win', async () => {
    const h = harness(() => ({ status: 201, body: { id: 1, real: { number: '5001' } } }), {
      responseMap: { orderId: '/real/number' },
    });
    await expect(h.client.createOrder(order)).resolves.toMatchObject({ orderId: '5001' });
  });
});

describe('token', () => {
  it('tolerates a data envelope and no other fields', async () => {
    const { http } = await import('./fake-http').then(({ fakeHttp, makeJwt }) =>
      fakeHttp(() => ({ status: 200, body: { data: { access_token: makeJwt({ sub: 'u-1' }) } } })),
    );
    const client = createPlatformClient({
      baseUrl: BASE_URL,
      credentials: { username: USERNAME, password: PASSWORD },
      http,
      tokenCache: new (await import('../../src/platform/token-cache')).TokenCache(),
    });
    await expect(client.authenticate()).resolves.toMatchObject({ userId: 'u-1' });
  });
});

describe('response map option', () => {
  it('refuses an invalid pointer', () => {
    expect(() =>
      createPlatformClient({
        baseUrl: BASE_URL,
        credentials: { username: USERNAME, password: PASSWORD },
        responseMap: { orderId: 'data.id' },
      }),
    ).toThrow(/responseMap/);
  });
});
