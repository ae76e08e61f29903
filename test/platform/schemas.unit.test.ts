import {
  normaliseStockId,
  parseErrorBody,
  parseOrderResponse,
  parseStocksResponse,
  parseTokenResponse,
  ResponseShapeError,
} from '../../src/platform/schemas';
import { extractDocument } from '../../src/platform/extract';
import { PlatformError } from '../../src/platform/errors';
import { harness, rejectionOf } from './fake-http';

function shapeProblem(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ResponseShapeError);
    return (error as ResponseShapeError).problem;
  }
  throw new Error('expected a ResponseShapeError');
}

describe('token response', () => {
  it('needs only access_token; other fields are optional and tolerated', () => {
    expect(parseTokenResponse({ access_token: 'abc.def.ghi' })).toEqual({ accessToken: 'abc.def.ghi' });
    expect(
      parseTokenResponse({ access_token: 't', token_type: 'Bearer', expires_in: 900, refresh: { x: 1 } }),
    ).toEqual({ accessToken: 't', tokenType: 'Bearer', expiresInSeconds: 900 });
    expect(parseTokenResponse({ access_token: 't', expires_in: '900' })).toEqual({
      accessToken: 't',
      expiresInSeconds: 900,
    });
    // A malformed optional field is dropped, not fatal.
    expect(parseTokenResponse({ access_token: 't', expires_in: 'soon', token_type: 7 })).toEqual({
      accessToken: 't',
    });
  });

  it.each([
    [{}, 'no access_token'],
    [{ access_token: '' }, 'no access_token'],
    [{ access_token: 42 }, 'no access_token'],
    [{ token: 'x' }, 'no access_token'],
    ['<html>', 'a string (not JSON)'],
    [undefined, 'an empty body'],
    [[{ access_token: 'x' }], 'an array'],
  ])('rejects %p', (body, problem) => {
    expect(shapeProblem(() => parseTokenResponse(body))).toContain(problem);
  });

  it('never echoes the body in the problem', () => {
    const problem = shapeProblem(() => parseTokenResponse({ accesstoken: 'secret-value-123' }));
    expect(problem).not.toContain('secret-value-123');
  });
});

describe('stocks response', () => {
  const ids = (body: unknown): string[] => parseStocksResponse(body).map((stock) => stock.stockId);

  it.each<[string, unknown]>([
    ['a bare array', [{ stock_id: 1001 }, { stock_id: '1002' }]],
    ['data (the sandbox)', { data: [{ stock_id: 1001, name: 'A' }, { stock_id: 1002 }] }],
    ['items', { items: [{ stockId: 1001 }, { stockId: '1002' }] }],
    ['stocks', { stocks: [{ id: 1001 }, { id: 1002 }] }],
    ['results', { results: [{ id: '1001' }, { stock_id: 1002 }] }],
    ['content', { content: [{ stock_id: 1001 }, { stock_id: 1002 }], page: 0 }],
    ['data.items', { data: { items: [{ stock_id: 1001 }, { stock_id: 1002 }], total: 2 } }],
    ['stocks.data', { stocks: { data: [{ stock_id: ' 1001 ' }, { stock_id: 1002 }] } }],
    ['content.results', { meta: {}, content: { results: [{ stockId: 1001 }, { id: 1002 }] } }],
  ])('accepts %s', (_name, body) => {
    expect(ids(body)).toEqual(['1001', '1002']);
  });

  it('prefers stock_id over id and keeps each raw record', () => {
    const stocks = parseStocksResponse({ data: [{ id: 1, stock_id: 1001, name: 'green' }] });
    expect(stocks).toEqual([{ stockId: '1001', raw: { id: 1, stock_id: 1001, name: 'green' } }]);
  });

  it('accepts an empty list', () => {
    expect(ids({ data: [] })).toEqual([]);
    expect(ids([])).toEqual([]);
  });

  it.each<[unknown, string]>([
    [{}, 'no stock list in the response'],
    [{ data: 'nope' }, 'no stock list'],
    [{ data: { data: { items: [] } } }, 'no stock list'], // two levels deep is too deep
    [null, 'got null'],
    ['<html>oops</html>', 'a string (not JSON)'],
    [{ data: [{ name: 'no id' }] }, 'stock at data[0] has no id (stock_id, stockId, id)'],
    [{ data: [{ stock_id: 1 }, 'x'] }, 'stock at data[1] is a string'],
    [{ items: [{ stock_id: { nested: 1 } }] }, 'stock at items[0] has an invalid stock_id'],
    [[{ stockId: '' }], 'stock at [0] has an invalid stockId'],
  ])('rejects %p clearly', (body, problem) => {
    expect(shapeProblem(() => parseStocksResponse(body))).toContain(problem);
  });

  it('normalises ids so that "1001" and 1001 compare equal', () => {
    expect(normaliseStockId(1001)).toBe('1001');
    expect(normaliseStockId('1001')).toBe('1001');
    expect(normaliseStockId(' 1001 ')).toBe('1001');
    expect(normaliseStockId('')).toBeUndefined();
    expect(normaliseStockId(Number.NaN)).toBeUndefined();
    expect(normaliseStockId({})).toBeUndefined();
  });
});

describe('order response', () => {
  it.each<[string, unknown]>([
    ['id (the sandbox)', { id: 5001, stock_id: 1001, status: 'created' }],
    ['id as numeric string', { id: '5001' }],
    ['order_id', { order_id: 5001 }],
    ['orderId', { orderId: '5001' }],
    ['data.id', { data: { id: 5001 } }],
    ['order.orderId', { order: { orderId: 5001 } }],
    ['data.order.id', { data: { order: { id: 5001 } } }],
  ])('accepts %s', (_name, body) => {
    expect(parseOrderResponse(body)).toEqual({ orderId: '5001' });
  });

  it('keeps every digit of an id beyond 2^53, and any leading zero of a digit string', () => {
    expect(parseOrderResponse({ id: '99999999999999999999' })).toEqual({ orderId: '99999999999999999999' });
    expect(parseOrderResponse({ data: { order_id: ' 007 ' } })).toEqual({ orderId: '007' });
  });

  it('skips a non-numeric top-level id when a numeric one is nested', () => {
    expect(parseOrderResponse({ id: 'uuid-1', data: { order_id: 7 } })).toEqual({ orderId: '7' });
  });

  it.each<[unknown, string]>([
    [{}, 'no order id (id, order_id, orderId'],
    [{ status: 'created' }, 'no order id'],
    [{ id: 'abc' }, 'no order id'],
    [{ id: 1.5 }, 'no order id'],
    [{ id: -1 }, 'no order id'],
    [{ id: '9'.repeat(65) }, 'no order id'],
    [{ id: 2 ** 60 }, 'no order id'],
    [{ vehicle: { id: 5 }, stock_id: 1001 }, 'no order id'],
    [[{ id: 1 }], 'order response is an array'],
    ['', 'an empty body'],
  ])('rejects %p clearly', (body, problem) => {
    expect(shapeProblem(() => parseOrderResponse(body))).toContain(problem);
  });
});

describe('document response', () => {
  const sandboxLinks = {
    original: 'https://p/doc-1/original',
    thumbnail: 'https://p/doc-1/thumbnail',
    download: 'https://p/doc-1/download?signature=abc',
  };

  it.each<[string, unknown]>([
    ['links (the sandbox)', { id: 'doc-1', sha256: 'x', links: sandboxLinks }],
    [
      '_links with href objects',
      {
        id: 'doc-1',
        _links: {
          original: { href: sandboxLinks.original },
          thumbnail: { href: sandboxLinks.thumbnail },
          download: { href: sandboxLinks.download },
        },
      },
    ],
    [
      'flat snake_case fields',
      {
        document_id: 'doc-1',
        original_url: sandboxLinks.original,
        thumbnail_url: sandboxLinks.thumbnail,
        signed_download_url: sandboxLinks.download,
      },
    ],
    [
      'flat camelCase fields',
      {
        documentId: 'doc-1',
        originalUrl: sandboxLinks.original,
        thumb: sandboxLinks.thumbnail,
        signedUrl: sandboxLinks.download,
      },
    ],
    [
      'links with url / thumbnail_url / signed_url',
      {
        id: 'doc-1',
        links: {
          url: sandboxLinks.original,
          thumbnail_url: sandboxLinks.thumbnail,
          signed_url: sandboxLinks.download,
        },
      },
    ],
    [
      'data envelope with download_url',
      {
        data: {
          id: 'doc-1',
          original: sandboxLinks.original,
          thumbnail: sandboxLinks.thumbnail,
          download_url: sandboxLinks.download,
        },
      },
    ],
  ])('accepts %s', (_name, body) => {
    expect(extractDocument(body)).toEqual({ documentId: 'doc-1', links: sandboxLinks });
  });

  it('sets missing links to null and a numeric id to a string', () => {
    expect(extractDocument({ id: 17, links: { original: 'https://p/o' } })).toEqual({
      documentId: '17',
      links: { original: 'https://p/o', thumbnail: null, download: null },
    });
    expect(extractDocument({ download: { href: 'https://p/d' } })).toEqual({
      documentId: null,
      links: { original: null, thumbnail: null, download: 'https://p/d' },
    });
  });

  it('prefers nested links over flat fields', () => {
    expect(
      extractDocument({ url: 'https://p/self', links: { original: 'https://p/original' } }).links.original,
    ).toBe('https://p/original');
  });

  // A 2xx upload means stored: a body without links is not a failure (it used to be one).
  it.each<[unknown, string | null]>([
    [{ id: 'doc-1' }, 'doc-1'],
    [{ links: { original: '', thumbnail: 3 } }, null],
    [{ links: { original: { url: 'x' } } }, null],
    ['ok', null],
    [null, null],
    [undefined, null],
  ])('never throws on %p, giving null links', (body, documentId) => {
    expect(extractDocument(body)).toEqual({
      documentId,
      links: { original: null, thumbnail: null, download: null },
    });
  });

  it.each<[string, unknown]>([
    [
      'urls.original/thumbnail/signed and document.id',
      {
        document: { id: 'doc-1' },
        urls: {
          original: sandboxLinks.original,
          thumbnail: sandboxLinks.thumbnail,
          signed: sandboxLinks.download,
        },
      },
    ],
    [
      'HAL _links with href',
      {
        id: 'doc-1',
        _links: {
          self: { href: 'https://p/api/documents/doc-1' },
          original: { href: sandboxLinks.original },
          thumbnail: { href: sandboxLinks.thumbnail },
          download: { href: sandboxLinks.download },
        },
      },
    ],
    [
      'flat *_url names',
      {
        document_id: 'doc-1',
        original_url: sandboxLinks.original,
        thumbnail_url: sandboxLinks.thumbnail,
        signed_download_url: sandboxLinks.download,
      },
    ],
    [
      'JSON:API data.attributes',
      {
        data: {
          type: 'documents',
          id: 'doc-1',
          attributes: {
            document_type_id: 5001,
            links: { original: sandboxLinks.original, preview: sandboxLinks.thumbnail },
            download: { url: sandboxLinks.download, expires_at: '2030-01-01T00:00:00Z' },
          },
        },
      },
    ],
    [
      'a rel/href array',
      {
        result: { documentId: 'doc-1' },
        links: [
          { rel: 'original', href: sandboxLinks.original },
          { rel: 'thumbnail', href: sandboxLinks.thumbnail },
          { rel: 'signed-download', href: sandboxLinks.download },
        ],
      },
    ],
  ])('reads %s', (_name, body) => {
    expect(extractDocument(body)).toEqual({ documentId: 'doc-1', links: sandboxLinks });
  });

  it('lets the response map win over the heuristics', () => {
    const body = {
      id: 'wrong',
      file: { key: 'doc-9' },
      links: { original: 'https://p/o', other: 'https://p/x' },
    };
    expect(extractDocument(body, { documentId: '/file/key', links: { original: '/links/other' } })).toEqual({
      documentId: 'doc-9',
      links: { original: 'https://p/x', thumbnail: null, download: null },
    });
  });

  // The download link is dropped before the activity's result: a signed link read as an original or a
  // thumbnail would reach workflow history.
  it.each<[string, (link: string) => unknown, string]>([
    ['a key naming a signed thumbnail', (link) => ({ signed_thumbnail_url: link }), 'https://p/t'],
    ['a thumbnail download', (link) => ({ thumbnailDownloadUrl: link }), 'https://p/t'],
    ['an original under a signed key', (link) => ({ signed: { original: link } }), 'https://p/t'],
    [
      'a pre-signed S3 link named original',
      (link) => ({ original: link }),
      'https://b.s3/t?X-Amz-Signature=a',
    ],
    ['a bare url with a token', (link) => ({ url: link }), 'https://p/t?token=abc'],
    [
      'an Azure SAS thumbnail',
      (link) => ({ links: [{ rel: 'thumbnail', href: link }] }),
      'https://a/t?sig=a',
    ],
  ])('never reads %s as the original or the thumbnail', (_name, body, link) => {
    expect(extractDocument(body(link)).links).toEqual({ original: null, thumbnail: null, download: link });
  });

  it('keeps a pinned original or thumbnail only when it is not signed', () => {
    const body = { o: 'https://p/o?signature=abc', t: 'https://p/t?size=small' };
    expect(extractDocument(body, { links: { original: '/o', thumbnail: '/t' } }).links).toEqual({
      original: null,
      thumbnail: 'https://p/t?size=small',
      download: null,
    });
  });
});

describe('error bodies', () => {
  it('reads the sandbox shape', () => {
    expect(
      parseErrorBody({
        error: {
          status: 403,
          code: 'forbidden',
          message: 'token lacks the document scope',
          scope: 'document',
        },
      }),
    ).toEqual({
      code: 'forbidden',
      message: 'token lacks the document scope',
      scope: 'document',
      details: {
        status: 403,
        code: 'forbidden',
        message: 'token lacks the document scope',
        scope: 'document',
      },
    });
  });

  it('reads flat, problem+json, OAuth and text bodies', () => {
    expect(parseErrorBody({ message: 'bad', code: 'E1', details: [{ field: 'vehicle.vin' }] })).toMatchObject(
      {
        message: 'bad',
        code: 'E1',
        details: [{ field: 'vehicle.vin' }],
      },
    );
    expect(parseErrorBody({ title: 'Unprocessable', detail: 'vin is invalid' })).toMatchObject({
      message: 'vin is invalid',
    });
    expect(parseErrorBody({ error: 'invalid_grant', error_description: 'wrong password' })).toMatchObject({
      code: 'invalid_grant',
      message: 'wrong password',
    });
    expect(parseErrorBody('Bad Gateway')).toEqual({ message: 'Bad Gateway' });
    expect(parseErrorBody(undefined)).toEqual({});
    expect(parseErrorBody('x'.repeat(500)).message).toHaveLength(201);
  });
});

describe('through the client', () => {
  it('turns a body it cannot understand into an UNEXPECTED_RESPONSE naming what was missing', async () => {
    const h = harness((request) =>
      request.path.endsWith('/stocks')
        ? { status: 200, body: { total: 3 } }
        : { status: 201, body: { ok: true } },
    );
    const stocksError = await rejectionOf(h.client.listStocks());
    expect(stocksError).toBeInstanceOf(PlatformError);
    expect(stocksError).toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      status: 200,
      method: 'GET',
      path: '/badge/v2/api/v1/stocks',
    });
    expect((stocksError as Error).message).toBe(
      'GET /badge/v2/api/v1/stocks returned 200 with a body that cannot be understood: no stock list in the response (got an object; expected an array or an object with data, items, stocks, results, content)',
    );
    const orderError = await rejectionOf(
      h.client.createOrder({ payload: { vehicle: {}, badge: {} }, idempotencyKey: 'k' }),
    );
    expect(orderError).toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
    expect((orderError as Error).message).toContain('no order id');
  });

  it('keeps the raw body beside the parsed fields', async () => {
    const body = { data: [{ stock_id: 1001, name: 'Green', available: 250 }], page: { total: 1 } };
    const h = harness(() => ({ status: 200, body }));
    const list = await h.client.listStocks();
    expect(list.raw).toEqual(body);
    expect(list.stocks[0]).toEqual({ stockId: '1001', raw: body.data[0] });
  });

  it('rejects a body that is not JSON', async () => {
    const h = harness(() => ({ status: 200, body: '<html>maintenance</html>' }));
    const error = await rejectionOf(h.client.listStocks());
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
    expect((error as Error).message).toContain('a string (not JSON)');
  });
});
