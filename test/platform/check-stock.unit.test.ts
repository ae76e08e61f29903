/**
 * `checkStock` only advises: it reads a few pages (paging in the body or in `Link` and total-count headers),
 * says `unlisted` only after a complete list, and answers `unknown` (never throws) on errors, odd shapes and
 * paging it cannot finish.
 */
import type { FakeReply, RecordedRequest } from './fake-http';
import { BASE_URL, harness } from './fake-http';

function pageOf(request: RecordedRequest): string | undefined {
  const params = request.config.params as Record<string, string> | undefined;
  return params?.page ?? params?.cursor;
}

const ROOT = `${new URL(BASE_URL).pathname}/badge/v2/api/v1/stocks`;

describe('checkStock', () => {
  it.each<[string, unknown, string, number | null]>([
    ['a bare array', [{ stock_id: 1001 }, { stock_id: 1002 }], 'listed', 2],
    ['an envelope', { data: [{ id: '1001' }] }, 'listed', 1],
    ['a complete list without it', { items: [{ stockId: 7 }] }, 'unlisted', 1],
    ['an empty list', [], 'unlisted', 0],
    ['an odd shape', { hello: 'world' }, 'unknown', null],
    ['a text body', 'stocks!', 'unknown', null],
    ['records without ids', [{ name: 'x' }], 'unknown', null],
    ['a total above what was read', { data: [{ id: 1 }], total: 50 }, 'unknown', null],
    ['has_more without a next link', { data: [{ id: 1 }], has_more: true }, 'unknown', null],
  ])('reads %s', async (_name, body, verdict, stockCount) => {
    const h = harness(() => ({ status: 200, body }));
    await expect(h.client.checkStock(1001)).resolves.toEqual({ verdict, stockCount });
  });

  it.each([403, 404, 500, 503, 429])('answers unknown on %i', async (status) => {
    const h = harness(() => ({ status, body: { error: { message: 'no' } } }));
    await expect(h.client.checkStock(1001)).resolves.toEqual({ verdict: 'unknown', stockCount: null });
  });

  it('answers unknown on a transport failure', async () => {
    const h = harness(() => {
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    });
    await expect(h.client.checkStock(1001)).resolves.toEqual({ verdict: 'unknown', stockCount: null });
  });

  it('follows next links on the platform’s origin', async () => {
    const h = harness((request): FakeReply => {
      const page = pageOf(request);
      if (page === undefined) return { status: 200, body: { data: [{ id: 1 }], links: { next: '?page=2' } } };
      if (page === '2') {
        return {
          status: 200,
          body: {
            data: [{ id: 2 }],
            _links: { next: { href: `${BASE_URL}/badge/v2/api/v1/stocks?page=3` } },
          },
        };
      }
      return { status: 200, body: { data: [{ id: 3 }], links: { next: null } } };
    });
    await expect(h.client.checkStock(9)).resolves.toEqual({ verdict: 'unlisted', stockCount: 3 });
    await expect(h.client.checkStock('3')).resolves.toMatchObject({ verdict: 'listed' });
    expect(h.apiRequests().map(pageOf)).toEqual([undefined, '2', '3', undefined, '2', '3']);
  });

  it('follows page numbers', async () => {
    const h = harness((request) => {
      const page = Number(pageOf(request) ?? '1');
      return { status: 200, body: { data: [{ id: page }], meta: { current_page: page, last_page: 3 } } };
    });
    await expect(h.client.checkStock(99)).resolves.toEqual({ verdict: 'unlisted', stockCount: 3 });
    await expect(h.client.checkStock(2)).resolves.toMatchObject({ verdict: 'listed' });
  });

  it.each<[string, (page: number) => Record<string, string>]>([
    [
      'an absolute rel="next" Link and X-Total-Count',
      (page) => ({
        'x-total-count': '3',
        ...(page < 3 && { link: `<${BASE_URL}/badge/v2/api/v1/stocks?page=${page + 1}>; rel="next"` }),
      }),
    ],
    [
      'relative first/prev/next/last rels and X-Total',
      (page) => ({
        'x-total': '3',
        'x-total-pages': '3',
        // Root-relative, so they carry the base URL's path (`/base`) as the platform sees it.
        link: [
          `<${ROOT}?page=1>; rel="first"`,
          ...(page > 1 ? [`<${ROOT}?page=${page - 1}>; rel="prev"`] : []),
          ...(page < 3 ? [`<${ROOT}?page=${page + 1}>; rel="next"`] : []),
          `<${ROOT}?page=3>; rel="last"`,
        ].join(', '),
      }),
    ],
    [
      'GitLab page headers without a Link',
      (page) => ({ 'x-page': String(page), 'x-next-page': page < 3 ? String(page + 1) : '' }),
    ],
  ])('reads bare pages whose paging is only in headers: %s', async (_name, headers) => {
    const h = harness((request) => {
      const page = Number(pageOf(request) ?? '1');
      return { status: 200, body: [{ stock_id: 1000 + page }], headers: headers(page) };
    });
    await expect(h.client.checkStock(1003)).resolves.toEqual({ verdict: 'listed', stockCount: 3 });
    await expect(h.client.checkStock(9)).resolves.toEqual({ verdict: 'unlisted', stockCount: 3 });
    expect(h.apiRequests().map(pageOf)).toEqual([undefined, '2', '3', undefined, '2', '3']);
  });

  it('does not call a list complete when a total-count header says there is more', async () => {
    const h = harness(() => ({ status: 200, body: [{ stock_id: 1 }], headers: { 'x-total-count': '40' } }));
    await expect(h.client.checkStock(9)).resolves.toEqual({ verdict: 'unknown', stockCount: null });
  });

  it('never follows a Link header to another origin', async () => {
    const h = harness(() => ({
      status: 200,
      body: [{ stock_id: 1 }],
      headers: { link: '<https://elsewhere.test/badge/v2/api/v1/stocks?page=2>; rel="next"' },
    }));
    await expect(h.client.checkStock(9)).resolves.toEqual({ verdict: 'unknown', stockCount: null });
    expect(h.apiRequests()).toHaveLength(1);
  });

  it('never sends the token to another origin', async () => {
    const h = harness(() => ({
      status: 200,
      body: { data: [{ id: 1 }], next: 'https://elsewhere.test/stocks?page=2' },
    }));
    await expect(h.client.checkStock(9)).resolves.toEqual({ verdict: 'unknown', stockCount: null });
    expect(h.apiRequests()).toHaveLength(1);
  });

  it('gives up after a few pages', async () => {
    const h = harness((request) => {
      const page = Number(pageOf(request) ?? '1');
      return { status: 200, body: { data: [{ id: page }], page, total_pages: 1000 } };
    });
    await expect(h.client.checkStock(999)).resolves.toEqual({ verdict: 'unknown', stockCount: null });
    expect(h.apiRequests()).toHaveLength(5); // MAX_STOCK_PAGES;
  });

  it('gives up on a page loop', async () => {
    const h = harness(() => ({ status: 200, body: { data: [{ id: 1 }], next: '?page=1' } }));
    await expect(h.client.checkStock(9)).resolves.toEqual({ verdict: 'unknown', stockCount: null });
  });

  it('rethrows only the caller’s abort', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const h = harness(() => {
      controller.abort(reason);
      return { status: 200, body: [] };
    });
    await expect(h.client.checkStock(1, { signal: controller.signal })).rejects.toBe(reason);
  });
});
