/**
 * An order records its resolved input when it starts (the `resolveOrderInput` local activity), so a release
 * with another default never changes a running order. A real order runs on the dev server; its status query
 * shows the options it runs with; its history replays on code whose default differs, while a history recorded
 * before the input was recorded (0.1.0, options taken from the code) fails on that same code.
 */
import { DeterminismViolationError } from '@temporalio/workflow';
import { DEFAULT_ORDER_OPTIONS } from '../../src/order-options';
import { useTestStack } from '../helpers/stack';
import { recordedHistories } from './recorded-histories';
import { replayVariant, type ImportSwap } from './variants/replay-variant';

/** A later release whose default `maxParallelUploads` is 1 instead of 4. */
const NEW_DEFAULT: readonly ImportSwap[] = [
  { request: '../order-options', replacement: require.resolve('./variants/order-options-new-default') },
];

describe('the resolved input of an order', () => {
  const stack = useTestStack({ worker: true });

  it('is shown by the status query, and replay takes it from history rather than from the code', async () => {
    const documents = ['a.pdf', 'b.pdf', 'c.pdf'].map((name) => ({
      path: stack.writeDocument(`resolved/${name}`, `%PDF-1.4 ${name}`),
    }));
    const started = await stack.orders.startOrder({
      orderRef: 'resolved-input',
      vehicle: { licensePlate: 'R-ES 1' },
      badge: { type: 'green' },
      documents,
      options: { repairWindowMs: 3_600_000 },
    });
    await started.handle.result();

    const status = await stack.orders.status('resolved-input');
    expect(status.options).toEqual({ ...DEFAULT_ORDER_OPTIONS, repairWindowMs: 3_600_000 });
    const history = await started.handle.fetchHistory();
    // Three uploads scheduled in one workflow task: the recorded default of 4 parallel uploads at work.
    // (Sign-in and the stock check run as local activities, so only the platform writes appear here.)
    const scheduled = (history.events ?? []).filter((event) => event.activityTaskScheduledEventAttributes);
    expect(scheduled.map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)).toEqual([
      'createOrder',
      'uploadDocument',
      'uploadDocument',
      'uploadDocument',
    ]);
    const uploadTasks = new Set(
      scheduled
        .slice(1)
        .map((event) => String(event.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId)),
    );
    expect(uploadTasks.size).toBe(1);

    const recorded = { workflowId: 'resolved-input', history };
    expect((await replayVariant([recorded], [], stack.payloadKeys))[0]?.error).toBeUndefined();
    expect((await replayVariant([recorded], NEW_DEFAULT, stack.payloadKeys))[0]?.error).toBeUndefined();
  });

  it('is what protects running orders: a 0.1.0 order, which took its options from the code, fails on the new default', async () => {
    const happyPath = recordedHistories(['0.1.0']).find((recorded) => recorded.scenario === 'happy-path');
    if (!happyPath) throw new Error('test/histories/0.1.0/happy-path.json is missing');
    const [result] = await replayVariant([happyPath], NEW_DEFAULT);
    expect(result?.error).toBeInstanceOf(DeterminismViolationError);
  });
});
