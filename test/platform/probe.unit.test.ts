/**
 * The probe against an answer no sandbox profile gives: an order created (201) whose id it cannot read. It reports
 * the order as unknown, uploads nothing and recommends no idempotency setting (probe.test.ts has the sandbox).
 */
import { probePlatform } from '../../src/platform';
import { harness } from './fake-http';

it('reports an order answer without a readable id as unknown, uploads nothing and recommends holding', async () => {
  const h = harness((request) => {
    if (request.path.endsWith('/stocks')) return { status: 200, body: { data: [{ id: 1 }] } };
    // The probe's empty order, refused as every platform must.
    const body = request.body as Record<string, unknown> | undefined;
    if (request.path.endsWith('/orders') && body?.vehicle === undefined)
      return { status: 422, body: { message: 'vehicle is required', field: 'vehicle' } };
    // `number` is not an id name: the order id is unreadable.
    return { status: 201, body: { result: { order: { number: '9001' } } } };
  });
  const report = await probePlatform({ client: h.client, allowTestOrders: true });
  expect(report.orders?.first).toMatchObject({
    status: 201,
    orderId: null,
    failure: { code: 'UNEXPECTED_RESPONSE', outcome: 'maybe-applied' },
  });
  expect(report.documents).toBeUndefined();
  expect(h.apiRequests().some((request) => request.path.includes('/documents'))).toBe(false);
  expect(report.recommended.BADGE_IDEMPOTENCY_KEYS).toBeNull();
});
