import type { BadgeOrderHandle } from '../../src/client/badge-orders-client';
import type { BadgeOrderInput, BadgeOrderResult } from '../../src/contract';
import type { TestStack } from './stack';
import { pollUntil } from '../../tools/dev/poll';

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
  await pollUntil(
    () => stack.orders.status(orderRef),
    (status) => status.phase === 'awaiting-repair',
    { what: `${orderRef} awaiting repair` },
  );
  return handle;
}

/**
 * Starts an order whose only document is `<orderRef>/form.pdf` and waits for its result; returns the order's
 * handle and result.
 */
export async function completedOrder(
  stack: Pick<TestStack, 'writeDocument' | 'orders'>,
  input: Omit<BadgeOrderInput, 'documents'>,
): Promise<{ readonly handle: BadgeOrderHandle; readonly result: BadgeOrderResult }> {
  const path = stack.writeDocument(`${input.orderRef}/form.pdf`, `%PDF ${input.orderRef}`);
  const { handle } = await stack.orders.startOrder({ ...input, documents: [{ path }] });
  return { handle, result: await handle.result() };
}

/**
 * Starts `input`, then `again` while that order runs and `input` once more after it completed, and expects
 * both later starts to attach to the first run instead of starting their own.
 */
export async function expectLaterStartsAttach(
  stack: Pick<TestStack, 'orders'>,
  input: BadgeOrderInput,
  again: BadgeOrderInput = input,
): Promise<void> {
  const first = await stack.orders.startOrder(input);
  const second = await stack.orders.startOrder(again);
  expect(first.attached).toBe(false);
  expect(second.attached).toBe(true);
  expect(second.runId).toBe(first.runId);
  await first.handle.result();
  const third = await stack.orders.startOrder(input);
  expect(third.attached).toBe(true);
}
