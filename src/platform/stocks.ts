/**
 * The badge API's stock lookup: `GET /badge/v2/api/v1/stocks`.
 */
import type { ApiContext } from './auth';
import { PLATFORM_PATHS } from './http';
import type { PlatformRequest } from './http';
import { resolvePointer } from './extract';
import { normaliseStockId, parseStocksResponse, readStockIds } from './schemas';
import type { StockCheck, StockList } from './types';

/**
 * List the stocks available to the authenticated user.
 * @throws `ForbiddenError` without the badge scope, `UnexpectedResponseError` when no stock list is found,
 * and the transport errors of every call
 */
export async function listStocks(context: ApiContext, signal?: AbortSignal): Promise<StockList> {
  const { request, response } = await context.auth.withToken(async (bearer) => {
    const request: PlatformRequest = {
      route: 'stocks',
      method: 'GET',
      path: PLATFORM_PATHS.stocks,
      headers: { Authorization: `Bearer ${bearer}` },
      bearer,
      ...(signal && { signal }),
    };
    return { request, response: await context.http.send(request) };
  }, signal);
  if (response.status < 200 || response.status >= 300) throw context.http.errorFor(request, response);
  const stocks = context.http.parse(request, response, parseStocksResponse);
  return { stocks, status: response.status, raw: response.body };
}

/**
 * Whether a stock list contains a stock id; ids compare as strings, so `"1001"` matches `1001`.
 * @param list from `listStocks`
 * @param stockId the id to look for, number or string
 */
export function hasStock(list: StockList, stockId: string | number): boolean {
  const wanted = normaliseStockId(stockId);
  return wanted !== undefined && list.stocks.some((stock) => stock.stockId === wanted);
}

/** Most pages {@link checkStock} reads before giving up with `unknown`. */
export const MAX_STOCK_PAGES = 5;

const UNKNOWN: StockCheck = Object.freeze({ verdict: 'unknown', stockCount: null });

/** Where the next page is: a path with its query, or nothing left. */
type NextPage = { readonly query: Readonly<Record<string, string>> } | 'done' | 'unreadable';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const PAGING_CONTAINERS = [
  '',
  '/meta',
  '/pagination',
  '/paging',
  '/page',
  '/meta/pagination',
  '/links',
  '/_links',
];

function firstValue(body: unknown, keys: readonly string[]): unknown {
  for (const container of PAGING_CONTAINERS) {
    for (const key of keys) {
      const value = resolvePointer(body, `${container}/${key}`);
      if (value !== undefined && value !== null && !(container === '/page' && isRecord(value))) return value;
    }
  }
  return undefined;
}

function count(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Read the paging facts of one stocks page and say where the next one is. A `next` link is followed only to
 * the stocks path on the platform's own origin (the bearer token goes with it).
 */
function nextPage(body: unknown, baseUrl: string, read: number, pageQuery: Record<string, string>): NextPage {
  const next = firstValue(body, ['next', 'next_page', 'nextPage', 'next_url', 'nextUrl']);
  const nextHref = isRecord(next) ? next.href : next;
  if (typeof nextHref === 'string' && nextHref.trim() !== '') {
    let url: URL;
    try {
      url = new URL(nextHref, `${baseUrl}${PLATFORM_PATHS.stocks}`);
    } catch {
      return 'unreadable';
    }
    const base = new URL(baseUrl);
    const prefix = base.pathname.replace(/\/+$/, '');
    if (url.origin !== base.origin || url.pathname !== `${prefix}${PLATFORM_PATHS.stocks}`)
      return 'unreadable';
    return { query: Object.fromEntries(url.searchParams) };
  }
  const nextNumber = count(next);
  if (nextNumber !== undefined) return { query: { ...pageQuery, page: String(nextNumber) } };
  const current = count(
    firstValue(body, ['page', 'current_page', 'currentPage', 'page_number', 'pageNumber']),
  );
  const pages = count(
    firstValue(body, ['total_pages', 'totalPages', 'last_page', 'lastPage', 'pages', 'page_count']),
  );
  if (current !== undefined && pages !== undefined) {
    return current < pages ? { query: { ...pageQuery, page: String(current + 1) } } : 'done';
  }
  const more = firstValue(body, ['has_more', 'hasMore', 'has_next', 'hasNext']);
  if (more === true) return 'unreadable';
  const total = count(
    firstValue(body, ['total', 'total_count', 'totalCount', 'total_elements', 'totalElements']),
  );
  if (total !== undefined && total > read) return 'unreadable';
  return 'done';
}

/**
 * Advise whether the user's stocks list `stockId`. Reads up to {@link MAX_STOCK_PAGES} pages (following
 * `next` links or page numbers). Never throws except the caller's abort reason: any error (5xx, 403, 404, a
 * timeout), an odd shape or paging it cannot finish yields `unknown`. The 404 of order creation stays the
 * authority for "stock not usable".
 * @param context the client's HTTP layer and authentication
 * @param stockId the stock to look for (number or string; compared as strings)
 * @param signal aborts the lookup with its reason
 */
export async function checkStock(
  context: ApiContext,
  stockId: string | number,
  signal?: AbortSignal,
): Promise<StockCheck> {
  const wanted = normaliseStockId(stockId);
  if (wanted === undefined) return UNKNOWN;
  let query: Readonly<Record<string, string>> = {};
  const seen = new Set<string>();
  let read = 0;
  let total: number | undefined;
  try {
    for (let page = 0; page < MAX_STOCK_PAGES; page += 1) {
      const key = JSON.stringify(query);
      if (seen.has(key)) return UNKNOWN;
      seen.add(key);
      const pageQuery = query;
      const { response } = await context.auth.withToken(async (bearer) => {
        const request: PlatformRequest = {
          route: 'stocks',
          method: 'GET',
          path: PLATFORM_PATHS.stocks,
          headers: { Authorization: `Bearer ${bearer}` },
          bearer,
          ...(Object.keys(pageQuery).length > 0 && { query: pageQuery }),
          ...(signal && { signal }),
        };
        return { request, response: await context.http.send(request) };
      }, signal);
      if (response.status < 200 || response.status >= 300) return UNKNOWN;
      let stocks: readonly { stockId: string }[];
      let complete = true;
      try {
        stocks = parseStocksResponse(response.body);
      } catch {
        const tolerant = readStockIds(response.body);
        if (tolerant === undefined) {
          context.http.warnUnreadable('stocks', response.status, response.body, ['stock list']);
          return UNKNOWN;
        }
        // Some records had no readable id: the stock may be among them.
        stocks = tolerant.ids.map((id) => ({ stockId: id }));
        complete = !tolerant.partial;
      }
      read += stocks.length;
      total ??= count(
        firstValue(response.body, ['total', 'total_count', 'totalCount', 'total_elements', 'totalElements']),
      );
      if (stocks.some((stock) => stock.stockId === wanted)) {
        const next = nextPage(response.body, context.http.baseUrl, read, { ...pageQuery });
        return {
          verdict: 'listed',
          stockCount: next === 'done' && complete ? (total ?? read) : (total ?? null),
        };
      }
      if (!complete) return UNKNOWN;
      const next = nextPage(response.body, context.http.baseUrl, read, { ...pageQuery });
      if (next === 'done') return { verdict: 'unlisted', stockCount: total ?? read };
      if (next === 'unreadable') return UNKNOWN;
      query = next.query;
    }
    return UNKNOWN;
  } catch {
    // Only the caller's abort leaves: everything else is advice we could not get.
    if (signal?.aborted) throw signal.reason;
    return UNKNOWN;
  }
}
