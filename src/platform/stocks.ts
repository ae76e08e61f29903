/**
 * The badge API's stock lookup: `GET /badge/v2/api/v1/stocks`.
 */
import type { ApiContext } from './auth';
import { PLATFORM_PATHS } from './http';
import type { PlatformRequest } from './http';
import { normaliseStockId, parseStocksResponse } from './schemas';
import type { StockList } from './types';

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
  return { stocks, raw: response.body };
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
