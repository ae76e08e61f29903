/**
 * The badge API's stock lookup: `GET /badge/v2/api/v1/stocks`.
 */
import LinkHeader from 'http-link-header';
import type { StockAdvice } from '../contract';
import type { Answered, ApiContext } from './auth';
import { PLATFORM_PATHS } from './request-profile';
import type { PlatformRequest } from './http';
import { isObject, resolvePointer } from './extract';
import { normaliseStockId, parseStocksResponse, readStockIds } from './schemas';
import type { StockList } from './types';

/** Sends the stock-list request (`GET` stocks), with the page's query when it has one. */
function getStocks(
  context: ApiContext,
  query: Readonly<Record<string, string>>,
  signal: AbortSignal | undefined,
): Promise<Answered> {
  const sent = { ...context.http.settings.requestProfile.stockQuery, ...query };
  return context.auth.withToken(async (bearer) => {
    const request: PlatformRequest = {
      route: 'stocks',
      method: 'GET',
      path: PLATFORM_PATHS.stocks,
      bearer,
      ...(Object.keys(sent).length > 0 && { query: sent }),
      ...(signal && { signal }),
    };
    return { request, response: await context.http.send(request) };
  }, signal);
}

/**
 * List the stocks available to the authenticated user.
 * @throws a `PlatformError`: `FORBIDDEN` without the badge scope, `UNEXPECTED_RESPONSE` when no stock list is
 * found, and the transport errors of every call
 */
export async function listStocks(context: ApiContext, signal?: AbortSignal): Promise<StockList> {
  const { request, response } = await getStocks(context, {}, signal);
  if (response.status < 200 || response.status >= 300) throw context.http.errorFor(request, response);
  const stocks = context.http.parse(request, response, parseStocksResponse);
  return {
    stocks,
    status: response.status,
    raw: response.body,
    ...(response.redirectedTo !== undefined && { redirectedTo: response.redirectedTo }),
  };
}

/** Most pages {@link checkStock} reads before giving up with `unknown`. */
const MAX_STOCK_PAGES = 5;

const UNKNOWN: StockAdvice = Object.freeze({ verdict: 'unknown', stockCount: null });

/** Where the next page is: a query to send, nothing left, or paging that cannot be followed. */
type NextPage = { readonly query: Readonly<Record<string, string>> } | 'done' | 'unreadable';

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

/** Body fields and headers (lower case) that may carry each paging fact. */
const PAGING_FIELDS = {
  next: { body: ['next', 'next_page', 'nextPage', 'next_url', 'nextUrl'], headers: ['x-next-page'] },
  page: {
    body: ['page', 'current_page', 'currentPage', 'page_number', 'pageNumber'],
    headers: ['x-page', 'x-current-page'],
  },
  pages: {
    body: ['total_pages', 'totalPages', 'last_page', 'lastPage', 'pages', 'page_count'],
    headers: ['x-total-pages', 'x-page-count'],
  },
  more: { body: ['has_more', 'hasMore', 'has_next', 'hasNext'], headers: [] },
  total: {
    body: ['total', 'total_count', 'totalCount', 'total_elements', 'totalElements'],
    headers: ['x-total-count', 'x-total', 'total-count', 'x-total-items', 'x-total-results'],
  },
} as const;

/** One stocks answer: its body and headers (lower-case names). */
interface StocksPage {
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

/** The first value of a paging fact: in the body's usual places, else in a header. */
function fact(page: StocksPage, name: keyof typeof PAGING_FIELDS): unknown {
  const { body: keys, headers } = PAGING_FIELDS[name];
  for (const container of PAGING_CONTAINERS) {
    const holder = resolvePointer(page.body, container);
    // Paging keys are names, never indices: only an object (not an array) holds them.
    if (!isObject(holder)) continue;
    for (const key of keys) {
      const value = Object.hasOwn(holder, key) ? holder[key] : undefined;
      if (value !== undefined && value !== null && !(container === '/page' && isObject(value))) return value;
    }
  }
  for (const header of headers) {
    const value = page.headers[header]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

function count(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * The target of the `rel="next"` link of an RFC 8288 `Link` header: `undefined` without one, `null` when the
 * header cannot be parsed (then nothing is concluded from it).
 */
function nextLinkHeader(headers: StocksPage['headers']): string | null | undefined {
  const value = headers.link;
  if (value === undefined || value.trim() === '') return undefined;
  try {
    return LinkHeader.parse(value).rel('next')[0]?.uri;
  } catch {
    return null;
  }
}

/** The query of a next-page URL, when it leads to the stocks path on the platform's own origin. */
function sameStocksQuery(href: string, baseUrl: string): NextPage {
  let url: URL;
  try {
    url = new URL(href, `${baseUrl}${PLATFORM_PATHS.stocks}`);
  } catch {
    return 'unreadable';
  }
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  if (url.origin !== base.origin || url.pathname !== `${prefix}${PLATFORM_PATHS.stocks}`) return 'unreadable';
  return { query: Object.fromEntries(url.searchParams) };
}

/**
 * Read the paging facts of one stocks page (body fields, the `Link` header's `rel="next"`, page and total
 * headers) and say where the next one is. A next link is followed only to the stocks path on the platform's
 * own origin (the bearer token goes with it).
 */
function nextPage(
  page: StocksPage,
  baseUrl: string,
  read: number,
  pageQuery: Record<string, string>,
): NextPage {
  const header = nextLinkHeader(page.headers);
  if (header === null) return 'unreadable';
  if (header !== undefined) return sameStocksQuery(header, baseUrl);
  const next = fact(page, 'next');
  const nextHref = isObject(next) ? next.href : next;
  if (typeof nextHref === 'string' && nextHref.trim() !== '' && !/^\d+$/.test(nextHref.trim())) {
    return sameStocksQuery(nextHref, baseUrl);
  }
  const nextNumber = count(next);
  if (nextNumber !== undefined) return { query: { ...pageQuery, page: String(nextNumber) } };
  const current = count(fact(page, 'page'));
  const pages = count(fact(page, 'pages'));
  if (current !== undefined && pages !== undefined) {
    return current < pages ? { query: { ...pageQuery, page: String(current + 1) } } : 'done';
  }
  if (fact(page, 'more') === true) return 'unreadable';
  const total = count(fact(page, 'total'));
  if (total !== undefined && total > read) return 'unreadable';
  return 'done';
}

/**
 * Advise whether the user's stocks list `stockId`. Reads up to {@link MAX_STOCK_PAGES} pages, following
 * `next` links (in the body or an RFC 8288 `Link` header) or page numbers, and checks what it read against
 * a total (a body field or a total-count header such as `X-Total-Count`). Never throws except the caller's
 * abort reason: any error (5xx, 403, 404, a timeout), an odd shape or paging it cannot finish yields
 * `unknown`. Only advice, whatever it says: the 404 of order creation is the one authority on whether a stock
 * can be used, and a caller never leaves a stock out of an order because of this answer.
 * @param context the client's HTTP layer and authentication
 * @param stockId the stock to look for (number or string; compared as strings)
 * @param signal aborts the lookup with its reason
 */
export async function checkStock(
  context: ApiContext,
  stockId: string | number,
  signal?: AbortSignal,
): Promise<StockAdvice> {
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
      const { response } = await getStocks(context, query, signal);
      if (response.status < 200 || response.status >= 300) return UNKNOWN;
      const list = readStockIds(response.body);
      if (list === undefined) {
        context.http.warnUnreadable('stocks', response.status, response.body, ['stock list']);
        return UNKNOWN;
      }
      // Some records had no readable id: the stock may be among them.
      const complete = !list.partial;
      read += list.ids.length;
      total ??= count(fact(response, 'total'));
      const next = nextPage(response, context.http.settings.baseUrl, read, { ...query });
      if (list.ids.includes(wanted)) {
        return {
          verdict: 'listed',
          stockCount: next === 'done' && complete ? (total ?? read) : (total ?? null),
        };
      }
      if (!complete) return UNKNOWN;
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
