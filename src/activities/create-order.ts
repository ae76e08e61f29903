/**
 * Step: create the order, sent with the workflow's idempotency key. One attempt per activity: the workflow
 * decides what follows a failure, by whether it may have created the order (see `placeOrder`).
 */
import { Context } from '@temporalio/activity';
import { atBoundary } from './boundary';
import type { ActivityDependencies } from './dependencies';
import type { CreateOrderInput, CreateOrderResult } from './types';

/** Creates the `createOrder` activity. */
export function createOrderActivity(
  deps: ActivityDependencies,
): (input: CreateOrderInput) => Promise<CreateOrderResult> {
  return atBoundary(async (input) => {
    const payload = {
      vehicle: input.vehicle,
      badge: input.badge,
      // Scheduled before 0.4.0, the stock id may be a number.
      ...(input.stockId === undefined ? {} : { stock_id: String(input.stockId) }),
    };
    const order = await deps.platform.createOrder({
      payload,
      idempotencyKey: input.idempotencyKey,
      signal: Context.current().cancellationSignal,
    });
    return { orderId: order.orderId };
  });
}
