import type { BadgeOrderHandle } from '../../src/client/badge-orders-client';
import type { BadgeOrderInput } from '../../src/contract';
import type { TestStack } from './stack';
import { waitFor } from './wait';

/**
 * Starts an order whose only document, `<orderRef>/scan.gif`, is a GIF (which the sandbox refuses unless a test
 * tells it otherwise) and waits until the order awaits repair; returns the order's handle.
 */
export async function orderAwaitingRepair(
  stack: Pick<TestStack, 'writeDocument' | 'orders'>,
  orderRef: string,
  vehicle: BadgeOrderInput['vehicle'],
): Promise<BadgeOrderHandle> {
  const path = stack.writeDocument(`${orderRef}/scan.gif`, `GIF89a ${orderRef}`);
  const { handle } = await stack.orders.startOrder({
    orderRef,
    vehicle,
    badge: { type: 'green' },
    documents: [{ path }],
  });
  await waitFor(
    () => stack.orders.status(orderRef),
    (status) => status.phase === 'awaiting-repair',
    { what: `${orderRef} awaiting repair` },
  );
  return handle;
}
