/**
 * Orders queried while their local activities run (an operator's UI, the API's GET) still replay. The result
 * of a local activity can reach the workflow code one workflow task after its marker was written; a patch
 * asked after it then sat in another task on replay than when recorded, and every replay of such an order
 * failed with a nondeterminism error (10 of these 12 orders, before the workflow asked its patches first).
 * Replaying a closed run is what its `status` query does, so each order is queried after it ended. The orders
 * run to their end rather than being cancelled: a cancellation racing the last upload made the test depend on
 * the machine's speed.
 */
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';

const ORDERS = 12;

describe('orders queried while their platform reads run', () => {
  const stack = useTestStack({ worker: true });

  it('replay after they end: the status query of every closed order answers', async () => {
    // Sign-in takes a second, so the status polling below lands while the local activities run.
    await stack.sandbox.control.setFaults({ latencyMs: 1_000, routes: ['auth'] });
    const answers = await Promise.all(
      Array.from({ length: ORDERS }, async (_, index) => {
        const orderRef = `queried-${index}`;
        const started = await stack.orders.startOrder({
          orderRef,
          vehicle: { licensePlate: `Q-RY ${index}` },
          badge: { type: 'green' },
          documents: [{ path: stack.writeDocument(`queried/${index}.pdf`, `%PDF-1.4 ${index}`) }],
        });
        await pollUntil(
          () => stack.orders.status(orderRef),
          (view) => view.orderId !== null,
          { what: `${orderRef} created`, timeoutMs: 120_000 },
        );
        await started.handle.result();
        // The run is closed: this query replays its whole history on the worker.
        const view = await stack.orders.status(orderRef).catch((error: unknown) => String(error));
        return typeof view === 'string' ? view : view.searchStatus;
      }),
    );
    expect(answers).toEqual(Array.from({ length: ORDERS }, () => 'Completed'));
  });
});
