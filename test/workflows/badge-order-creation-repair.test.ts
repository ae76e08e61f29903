/**
 * The way back from a wrong request profile: against a platform that names the order's objects otherwise
 * (`strict-names`), workers whose profile forgot the names get every creation refused (422 naming a field the
 * request did not send). The orders are not failed: each waits in AwaitingRepair saying which setting to fix.
 * The operator fixes BADGE_REQUEST_PROFILE on the workers and triggers the nightly replay once: every order is
 * created then, each exactly once, and completes. Real dev server, real sandbox over HTTP, worker processes
 * configured only through their environment.
 */
import type { ReplayFailedUploadsResult } from '../../src/contract';
import { SANDBOX_TENANT_ID } from '../../src/sandbox';
import { applyReplaySchedule, describeReplaySchedule, triggerReplay } from '../../src/temporal/schedule';
import { documentedPlatformSettings } from '../helpers/documented-settings';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'B-WB 1', fuel: 'electric' };
const badge = { type: 'green' };

/** What the operator first set: the tenant header, but not the order's names this platform wants. */
const FORGOT_THE_NAMES = {
  BADGE_TENANT_ID: SANDBOX_TENANT_ID,
  BADGE_REQUEST_PROFILE: JSON.stringify({ headers: { 'X-Tenant-ID': '{tenant}' } }),
};

describe('an order creation refused because of the request profile', () => {
  const stack = useTestStack({ sandbox: { profile: 'strict-names' }, platformEnv: FORGOT_THE_NAMES });

  it('waits for repair naming the setting, and one trigger of the nightly replay places each order once after the fix', async () => {
    const first = stack.startWorkerProcess();
    const orderRefs = ['way-back-1', 'way-back-2', 'way-back-3'];
    const handles = [];
    for (const orderRef of orderRefs) {
      const path = stack.writeDocument(`${orderRef}/photo.jpg`, `photo of ${orderRef}`);
      handles.push(
        (await stack.orders.startOrder({ orderRef, vehicle, badge, documents: [{ path }] })).handle,
      );
    }
    for (const orderRef of orderRefs) {
      const waiting = await pollUntil(
        () => stack.orders.status(orderRef),
        (status) => status.searchStatus === 'AwaitingRepair',
        { what: `${orderRef} awaiting repair` },
      );
      expect(waiting).toMatchObject({
        phase: 'awaiting-repair',
        orderId: null,
        creationRefusal: {
          setting: 'BADGE_REQUEST_PROFILE',
          reason: expect.stringContaining('vehicle_data') as unknown,
        },
      });
    }
    // Refused, so not placed.
    expect(await stack.sandbox.control.listOrders()).toEqual([]);

    // The fix: the workers restart with the settings docs/platform-client.md gives for this platform.
    await first.kill('SIGKILL');
    const fixed = documentedPlatformSettings('strict-names');
    expect(fixed).toBeDefined();
    const second = stack.startWorkerProcess(fixed);
    try {
      // One operator action: trigger the nightly replay's Schedule.
      await applyReplaySchedule(stack.temporal.client, {
        taskQueue: stack.taskQueue,
        time: { hour: 2, minute: 0 },
        timezone: 'UTC',
        maxConcurrentSignals: 2,
      });
      await triggerReplay(stack.temporal.client);
      const described = await pollUntil(
        () => describeReplaySchedule(stack.temporal.client),
        (summary) => summary.recentRuns.length === 1,
        { what: 'the Schedule to start the replay' },
      );
      const replay = stack.temporal.client.workflow.getHandle(described.recentRuns[0]?.workflowId ?? '');
      expect((await replay.result()) as ReplayFailedUploadsResult).toMatchObject({ found: 3, signalled: 3 });

      for (const [index, handle] of handles.entries()) {
        const result = await handle.result();
        const orderRef = orderRefs[index] ?? '';
        // Placed exactly once, with a key of its own after the refusal, and its document stored.
        const placed = (await stack.sandbox.control.listOrders()).filter((order) =>
          order.idempotency_key?.startsWith(`badge-order-${orderRef}:`),
        );
        expect(placed.map((order) => [order.id, order.idempotency_key])).toEqual([
          [result.orderId, `badge-order-${orderRef}:create:without-stock:r1`],
        ]);
        expect(await stack.sandbox.control.listDocuments({ orderId: result.orderId })).toHaveLength(1);
        expect((await stack.orders.status(orderRef)).creationRefusal).toBeNull();
      }
    } finally {
      await second.kill('SIGTERM');
    }
  });
});
