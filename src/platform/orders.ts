/**
 * The badge API's order creation: `POST /badge/v2/api/v1/orders`.
 */
import { jsonNumber } from '../json-numbers';
import type { ApiContext } from './auth';
import { IDEMPOTENCY_KEY_HEADER } from './http';
import type { PlatformRequest } from './http';
import { PLATFORM_PATHS, place } from './request-profile';
import { normaliseStockId, parseOrderResponse } from './schemas';
import type { CreatedOrder, CreateOrderInput } from './types';

/**
 * Check that an idempotency key was given; a missing key is a programming error, not a platform failure.
 * @throws TypeError when the key is empty
 */
export function requireIdempotencyKey(key: unknown, operation: string): string {
  if (typeof key !== 'string' || key.trim() === '') {
    throw new TypeError(`${operation} requires a non-empty idempotencyKey`);
  }
  return key;
}

/**
 * `stock_id` as the create payload carries it: an integer's digits as a bare JSON number, written digit for digit
 * however many there are; any other id (letters, a leading zero) as a string. Why: docs/platform-client.md.
 */
function stockIdValue(stockId: string): unknown {
  return /^(0|[1-9]\d*)$/.test(stockId) ? jsonNumber(stockId) : stockId;
}

/**
 * Create an order. The caller's idempotency key is sent as `Idempotency-Key`, so repeating the call (after a
 * timeout, or in a retried activity) yields the same order instead of a second one.
 * @throws a `PlatformError`: `STOCK_NOT_FOUND` on 404 when a `stock_id` was sent, `VALIDATION` on 422,
 * `FORBIDDEN` without the badge scope, `CONFLICT` while the same key is in flight, `UNEXPECTED_RESPONSE`
 * (outcome `maybe-applied`: the order may exist) when a 2xx answer has no recognisable order id, the transport
 * errors of every call; or the reason of `input.signal` when it aborts
 */
export async function createOrder(context: ApiContext, input: CreateOrderInput): Promise<CreatedOrder> {
  const idempotencyKey = requireIdempotencyKey(input.idempotencyKey, 'createOrder');
  const { vehicle, badge, stock_id } = input.payload;
  const profile = context.http.settings.requestProfile;
  const body: Record<string, unknown> = {};
  place(body, profile.orderFields.vehicle, vehicle);
  place(body, profile.orderFields.badge, badge);
  if (stock_id !== undefined) {
    place(
      body,
      profile.orderFields.stockId,
      profile.stockIdAs === 'string' ? stock_id : stockIdValue(stock_id),
    );
  }
  const data = JSON.stringify(body);
  const { request, response } = await context.auth.withToken(async (bearer) => {
    const request: PlatformRequest = {
      route: 'orders',
      method: 'POST',
      path: PLATFORM_PATHS.orders,
      headers: {
        'Content-Type': 'application/json',
        [IDEMPOTENCY_KEY_HEADER]: idempotencyKey,
      },
      data,
      sentNames: Object.keys(body),
      bearer,
      ...(input.signal && { signal: input.signal }),
    };
    return { request, response: await context.http.send(request) };
  }, input.signal);
  if (response.status < 200 || response.status >= 300) {
    const stockId = stock_id === undefined ? undefined : normaliseStockId(stock_id);
    throw context.http.errorFor(request, response, stockId === undefined ? {} : { stockId });
  }
  const map = context.http.settings.responseMap;
  // A 2xx without a recognisable id is not a rejection: the order may exist (outcome maybe-applied).
  const parsed = context.http.parse(request, response, (body) => parseOrderResponse(body, map), ['orderId']);
  return {
    orderId: parsed.orderId,
    status: response.status,
    raw: response.body,
    ...(response.redirectedTo !== undefined && { redirectedTo: response.redirectedTo }),
  };
}
