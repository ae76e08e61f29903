import { CanceledError } from 'axios';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { PlatformError } from '../../src/platform/errors';
import type { PlatformLogger } from '../../src/platform/types';
import type { RecordedRequest } from './fake-http';
import { PASSWORD, harness, rejectionOf } from './fake-http';

const DOCUMENT_REPLY = {
  status: 201,
  body: {
    id: 'doc-1',
    links: { original: 'https://p/o', thumbnail: 'https://p/t', download: 'https://p/d?signature=s' },
  },
};

/** The parts of a multipart body, in order: name, filename, content type and content. */
function multipartParts(
  request: RecordedRequest,
): { name: string; filename?: string; type?: string; content: string }[] {
  const contentType = request.headers['content-type'] ?? '';
  const boundary = /boundary=(.+)$/.exec(contentType)?.[1];
  if (!boundary || typeof request.body !== 'string') throw new Error('not a multipart request');
  return request.body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [head = '', ...rest] = part.split('\r\n\r\n');
      const content = rest.join('\r\n\r\n').replace(/\r\n$/, '');
      return {
        name: /name="([^"]+)"/.exec(head)?.[1] ?? '',
        ...(/filename="([^"]+)"/.test(head) && { filename: /filename="([^"]+)"/.exec(head)?.[1] }),
        ...(/Content-Type: (.+)/i.test(head) && { type: /Content-Type: (.+)/i.exec(head)?.[1]?.trim() }),
        content,
      };
    });
}

let dir: string;
let photo: string;
const PHOTO_BYTES = Buffer.from('\x89PNG fake image bytes '.repeat(5000), 'latin1');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'platform-client-'));
  photo = join(dir, 'vehicle-photo.png');
  await writeFile(photo, PHOTO_BYTES);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('orders', () => {
  it('sends the payload with the caller’s Idempotency-Key', async () => {
    const h = harness(() => ({ status: 201, body: { id: 5001, stock_id: 1001, status: 'created' } }));
    const payload = { vehicle: { plate: 'B-XY 123' }, badge: { colour: 'green' }, stock_id: '1001' };
    const order = await h.client.createOrder({ payload, idempotencyKey: 'order-ref-1' });
    expect(order).toEqual({
      orderId: '5001',
      status: 201,
      raw: { id: 5001, stock_id: 1001, status: 'created' },
    });
    const [request] = h.apiRequests();
    expect(request).toMatchObject({
      method: 'POST',
      path: '/badge/v2/api/v1/orders',
      body: { ...payload, stock_id: 1001 },
    });
    expect(request?.headers['idempotency-key']).toBe('order-ref-1');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBe(`Bearer ${h.tokens[0]}`);
  });

  it('omits stock_id when not given', async () => {
    const h = harness(() => ({ status: 201, body: { id: '42' } }));
    const order = await h.client.createOrder({ payload: { vehicle: {}, badge: {} }, idempotencyKey: 'k' });
    expect(order.orderId).toBe('42');
    expect(h.apiRequests()[0]?.body).toEqual({ vehicle: {}, badge: {} });
  });

  it('reads an order id beyond 2^53 as the digits the platform sent', async () => {
    const h = harness(() => ({ status: 201, body: '{"data":{"id":9223372036854770001,"tenant_id":42}}' }));
    const order = await h.client.createOrder({ payload: { vehicle: {}, badge: {} }, idempotencyKey: 'k' });
    expect(order.orderId).toBe('9223372036854770001');
    expect(order.raw).toEqual({ data: { id: '9223372036854770001', tenant_id: 42 } });
  });

  it('sends an integer stock id as a bare JSON number, digit for digit, and any other id as a string', async () => {
    const h = harness(() => ({ status: 201, body: { id: 1 } }));
    const sent = async (stockId: string): Promise<unknown> => {
      await h.client.createOrder({
        payload: { vehicle: {}, badge: {}, stock_id: stockId },
        idempotencyKey: `k-${stockId}`,
      });
      return h.apiRequests().at(-1)?.config.data;
    };
    expect(await sent('98765432109876543210')).toBe(
      '{"vehicle":{},"badge":{},"stock_id":98765432109876543210}',
    );
    expect(await sent('0042')).toBe('{"vehicle":{},"badge":{},"stock_id":"0042"}');
    expect(await sent('ST-7')).toBe('{"vehicle":{},"badge":{},"stock_id":"ST-7"}');
  });

  it('requires an idempotency key', async () => {
    const h = harness(() => ({ status: 201, body: { id: 1 } }));
    await expect(
      h.client.createOrder({ payload: { vehicle: {}, badge: {} }, idempotencyKey: ' ' }),
    ).rejects.toThrow(new TypeError('createOrder requires a non-empty idempotencyKey'));
    expect(h.requests).toHaveLength(0);
  });
});

describe('stocks', () => {
  it('lists stocks with string ids', async () => {
    const h = harness(() => ({ status: 200, body: { data: [{ stock_id: 1001 }, { stock_id: '1002' }] } }));
    const list = await h.client.listStocks();
    expect(list.stocks.map((stock) => stock.stockId)).toEqual(['1001', '1002']);
    expect(h.apiRequests()[0]?.headers['idempotency-key']).toBeUndefined();
  });
});

describe('uploads', () => {
  it('streams a multipart body with the fields in order and the file part last', async () => {
    const h = harness(() => DOCUMENT_REPLY);
    const progress: number[] = [];
    const uploaded = await h.client.uploadDocument({
      filePath: photo,
      orderId: '98765432109876543210',
      documentOwner: '4711',
      idempotencyKey: 'upload-1',
      onProgress: (bytes) => progress.push(bytes),
    });
    expect(uploaded).toEqual({
      documentId: 'doc-1',
      links: { original: 'https://p/o', thumbnail: 'https://p/t', download: 'https://p/d?signature=s' },
      status: 201,
      raw: DOCUMENT_REPLY.body,
    });
    const [request] = h.apiRequests();
    if (!request) throw new Error('no upload request');
    expect(request.path).toBe('/document/api/v1/documents');
    expect(request.headers['idempotency-key']).toBe('upload-1');
    expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    // Content-Length comes from the file's size, and matches what was sent.
    expect(Number(request.headers['content-length'])).toBe(request.bytes?.length);
    // The body is a stream, not a buffer.
    expect(typeof (request.config.data as { pipe?: unknown }).pipe).toBe('function');
    expect(request.config.maxRedirects).toBe(0);

    const parts = multipartParts(request);
    expect(parts.map((part) => part.name)).toEqual([
      'document_type',
      'document_type_id',
      'document_owner',
      'file',
    ]);
    expect(parts.slice(0, 3).map((part) => part.content)).toEqual(['badge', '98765432109876543210', '4711']);
    expect(parts[3]).toMatchObject({ filename: 'vehicle-photo.png', type: 'image/png' });
    expect(Buffer.from(parts[3]?.content ?? '', 'latin1').equals(PHOTO_BYTES)).toBe(true);

    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(PHOTO_BYTES.length);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
  });

  it('uses the caller’s filename and content type', async () => {
    const h = harness(() => DOCUMENT_REPLY);
    await h.client.uploadDocument({
      filePath: photo,
      orderId: '1',
      documentOwner: 'owner-1',
      idempotencyKey: 'k',
      filename: 'scan.pdf',
      contentType: 'application/x-custom',
    });
    const file = multipartParts(h.apiRequests()[0] as RecordedRequest)[3];
    expect(file).toMatchObject({ filename: 'scan.pdf', type: 'application/x-custom' });
  });

  it('derives the content type from the file name, with a fallback', async () => {
    const h = harness(() => DOCUMENT_REPLY);
    const sentType = async (filename: string, contentType?: string): Promise<string | undefined> => {
      await h.client.uploadDocument({
        filePath: photo,
        orderId: '1',
        documentOwner: 'owner-1',
        idempotencyKey: 'k',
        filename,
        ...(contentType !== undefined && { contentType }),
      });
      return multipartParts(h.apiRequests().at(-1) as RecordedRequest)[3]?.type;
    };
    expect(await sentType('a.jpg')).toBe('image/jpeg');
    expect(await sentType('a.PDF')).toBe('application/pdf');
    expect(await sentType('no-extension')).toBe('application/octet-stream');
    expect(await sentType('a.weird-ext')).toBe('application/octet-stream');
    expect(await sentType('a.jpg', 'image/webp')).toBe('image/webp');
  });

  it('reopens the file and sends it again after a 401', async () => {
    let calls = 0;
    const h = harness(() => {
      calls += 1;
      return calls === 1 ? { status: 401 } : DOCUMENT_REPLY;
    });
    const progress: number[] = [];
    await h.client.uploadDocument({
      filePath: photo,
      orderId: '5001',
      documentOwner: '4711',
      idempotencyKey: 'upload-2',
      onProgress: (bytes) => progress.push(bytes),
    });
    const [first, second] = h.apiRequests();
    expect(first?.headers.authorization).toBe(`Bearer ${h.tokens[0]}`);
    expect(second?.headers.authorization).toBe(`Bearer ${h.tokens[1]}`);
    expect(second?.headers['idempotency-key']).toBe('upload-2');
    for (const request of [first, second]) {
      expect(Buffer.from(multipartParts(request as RecordedRequest)[3]?.content ?? '', 'latin1')).toEqual(
        PHOTO_BYTES,
      );
    }
    // Progress restarts with the second stream.
    expect(progress.filter((bytes) => bytes === PHOTO_BYTES.length)).toHaveLength(2);
  });

  it('fails with FILE_ERROR, before authenticating, when the file is missing or not a file', async () => {
    const h = harness(() => DOCUMENT_REPLY);
    const missing = join(dir, 'nope.png');
    const error = await rejectionOf(
      h.client.uploadDocument({ filePath: missing, orderId: '1', documentOwner: '1', idempotencyKey: 'k' }),
    );
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'FILE_ERROR', filePath: missing });
    expect((error as PlatformError).cause).toMatchObject({ code: 'ENOENT' });
    expect((error as Error).message).toBe(
      `POST /document/api/v1/documents not sent: cannot read local file ${missing} (ENOENT)`,
    );
    const directory = await rejectionOf(
      h.client.uploadDocument({ filePath: dir, orderId: '1', documentOwner: '1', idempotencyKey: 'k' }),
    );
    expect(directory).toMatchObject({ code: 'FILE_ERROR' });
    expect((directory as Error).message).toContain('(not a regular file)');
    expect(h.requests).toHaveLength(0);
  });

  it('rejects invalid input before sending', async () => {
    const h = harness(() => DOCUMENT_REPLY);
    const base = { filePath: photo, orderId: '1', documentOwner: '1', idempotencyKey: 'k' };
    await expect(h.client.uploadDocument({ ...base, idempotencyKey: '' })).rejects.toThrow(TypeError);
    await expect(h.client.uploadDocument({ ...base, orderId: ' ' })).rejects.toThrow(TypeError);
    await expect(h.client.uploadDocument({ ...base, documentOwner: '' })).rejects.toThrow(TypeError);
    expect(h.requests).toHaveLength(0);
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    const controller = new AbortController();
    const h = harness(
      (request) =>
        new Promise((_resolve, reject) => {
          const signal = request.config.signal as AbortSignal;
          signal.addEventListener('abort', () => reject(new CanceledError('canceled')));
          controller.abort(new Error('activity cancelled'));
        }),
    );
    const error = await rejectionOf(
      h.client.uploadDocument({
        filePath: photo,
        orderId: '1',
        documentOwner: '1',
        idempotencyKey: 'k',
        signal: controller.signal,
      }),
    );
    expect(error).toEqual(new Error('activity cancelled'));
  });
});

describe('options', () => {
  it('reports every attempt to onRequest', async () => {
    const h = harness(() => ({ status: 200, body: [] }));
    await h.client.listStocks();
    expect(h.events).toEqual([
      {
        route: 'auth',
        method: 'POST',
        path: '/iam/api/v1/auth/jwt',
        status: 200,
        durationMs: expect.any(Number) as number,
      },
      {
        route: 'stocks',
        method: 'GET',
        path: '/badge/v2/api/v1/stocks',
        status: 200,
        durationMs: expect.any(Number) as number,
      },
    ]);
  });

  it('survives a throwing onRequest hook', async () => {
    const h = harness(() => ({ status: 200, body: [] }), {
      onRequest: () => {
        throw new Error('metrics down');
      },
    });
    await expect(h.client.listStocks()).resolves.toMatchObject({ stocks: [] });
  });

  it('logs each request to a pino logger at debug, without the password or the token', async () => {
    const written: string[] = [];
    const logger: PlatformLogger = pino({ level: 'debug' }, { write: (line: string) => written.push(line) });
    const h = harness(() => ({ status: 200, body: [] }), { logger });
    await h.client.listStocks();
    const lines = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.msg === 'platform request')).toEqual([
      expect.objectContaining({ level: 20, route: 'auth', method: 'POST', status: 200 }),
      expect.objectContaining({
        level: 20,
        route: 'stocks',
        method: 'GET',
        path: '/badge/v2/api/v1/stocks',
        status: 200,
      }),
    ]);
    const text = written.join('');
    expect(h.tokens).toHaveLength(1);
    for (const secret of [PASSWORD, ...h.tokens]) expect(text).not.toContain(secret);
  });
});
