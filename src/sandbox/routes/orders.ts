/**
 * `POST /badge/v2/api/v1/orders`: validates the payload, checks the stock and stores the order; answers in the
 * profile's shape and success code.
 */
import type { FastifyInstance } from 'fastify';
import { claimsOf } from '../context';
import type { SandboxContext } from '../context';
import { SandboxHttpError, validationError } from '../http-error';
import { runIdempotent, sentIdempotencyKey } from '../idempotency';
import { PLATFORM_PATHS } from '../shapes';
import type { SandboxProfile } from '../profiles';
import type { NewOrder } from '../store';
import { orderBody } from '../wire';
import { sendEffectResult } from './respond';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A validated order payload. */
type OrderPayload = Pick<NewOrder, 'stock_id' | 'vehicle' | 'badge'>;

/** Checks the create payload with the profile's member names; answers 422 naming the first field at fault. */
function parseOrderPayload(body: unknown, names: SandboxProfile['requests']['orderFields']): OrderPayload {
  if (!isPlainObject(body)) throw validationError('body', 'the body must be a JSON object');
  const vehicle = body[names.vehicle];
  const badge = body[names.badge];
  if (!isPlainObject(vehicle)) throw validationError(names.vehicle, `${names.vehicle} must be an object`);
  if (!isPlainObject(badge)) throw validationError(names.badge, `${names.badge} must be an object`);
  const raw = body[names.stockId];
  let stockId: number | null = null;
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0) stockId = raw;
  else if (typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw)) stockId = Number(raw);
  else if (raw !== undefined && raw !== null)
    throw validationError(names.stockId, `${names.stockId} must be a positive integer`);
  return { stock_id: stockId, vehicle, badge };
}

/** Registers the order route. */
export function registerOrderRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.post(PLATFORM_PATHS.orders, async (request, reply) => {
    const { userId } = claimsOf(request);
    const result = await runIdempotent(ctx, request, { userId, route: 'orders' }, () => {
      const payload = parseOrderPayload(request.body, ctx.profile.requests.orderFields);
      if (payload.stock_id !== null) {
        const user = ctx.users.find((candidate) => candidate.id === userId);
        const listed =
          (user?.stocks.some((stock) => stock.stock_id === payload.stock_id) ?? false) ||
          (user?.sharedStockIds?.includes(payload.stock_id) ?? false);
        const retired = user?.retiredStockIds?.includes(payload.stock_id) ?? false;
        if (!listed || retired) {
          throw new SandboxHttpError(
            404,
            'stock_not_found',
            `stock ${payload.stock_id} not found for this user`,
            { field: 'stock_id' },
          );
        }
      }
      const order = ctx.store.createOrder({
        ...payload,
        created_at: new Date(ctx.now()).toISOString(),
        user_id: userId,
        idempotency_key: sentIdempotencyKey(request),
      });
      return { status: ctx.profile.orders.status, body: orderBody(ctx.profile, order) };
    });
    return sendEffectResult(ctx, request, reply, result);
  });
}
