/**
 * The nightly replay end to end: the Schedule is applied and triggered on a real dev server, the workflow lists
 * the orders awaiting repair through visibility and signals them, and the real sandbox then holds the documents
 * it refused before. Orders that do not await repair are left alone (no signal in their history).
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { createReplayActivities } from '../../src/activities/replay';
import { BadgeOrdersClient, type BadgeOrderHandle } from '../../src/client/badge-orders-client';
import { REPLAY_SCHEDULE_ID, type ReplayFailedUploadsResult } from '../../src/contract';
import { WORKFLOW_TYPES } from '../../src/workflow-contract';
import {
  applyReplaySchedule,
  describeReplaySchedule,
  replayScheduleHandle,
  triggerReplay,
} from '../../src/temporal/schedule';
import { badgeOrdersQuery, listRunPage } from '../../src/temporal/visibility';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'B-RP 1', vin: 'WVWZZZ1JZXW000009' };
const badge = { type: 'green' };
const DEFAULT_TYPES = ['image/jpeg', 'image/png', 'application/pdf'];

describe('replayFailedUploads', () => {
  const stack = useTestStack({ worker: true });

  beforeEach(async () => {
    await stack.sandbox.control.reset();
    await stack.sandbox.control.setRules({ acceptedContentTypes: DEFAULT_TYPES });
  });

  /** Starts orders with a `.gif` the sandbox refuses, and waits until each awaits repair. */
  async function ordersAwaitingRepair(prefix: string, count: number): Promise<BadgeOrderHandle[]> {
    const handles: BadgeOrderHandle[] = [];
    for (let index = 0; index < count; index += 1) {
      const orderRef = `${prefix}-${index}`;
      stack.writeDocument(`${orderRef}/form.pdf`, `%PDF ${orderRef}`);
      stack.writeDocument(`${orderRef}/scan.gif`, `GIF89a ${orderRef}`);
      const started = await stack.orders.startOrder({
        orderRef,
        vehicle,
        badge,
        documents: [{ path: `${orderRef}/form.pdf` }, { path: `${orderRef}/scan.gif` }],
      });
      handles.push(started.handle);
    }
    for (let index = 0; index < count; index += 1) {
      await pollUntil(
        () => stack.orders.status(`${prefix}-${index}`),
        (status) => status.phase === 'awaiting-repair',
        { what: `${prefix}-${index} awaiting repair` },
      );
    }
    // Visibility is eventually consistent: the replay lists what visibility shows, so wait until it shows them.
    await pollUntil(
      () =>
        listRunPage(stack.temporal.client, {
          query: badgeOrdersQuery({ status: 'AwaitingRepair', openOnly: true }),
          pageSize: 100,
        }),
      (page) => handles.every((handle) => page.runs.some((run) => run.workflowId === handle.workflowId)),
      { what: 'visibility to list the orders awaiting repair' },
    );
    return handles;
  }

  async function signalCount(handle: {
    fetchHistory(): Promise<{ events?: unknown[] | null }>;
  }): Promise<number> {
    const history = await handle.fetchHistory();
    return (history.events ?? []).filter(
      (event) =>
        (event as { workflowExecutionSignaledEventAttributes?: unknown })
          .workflowExecutionSignaledEventAttributes != null,
    ).length;
  }

  it('a trigger of the Schedule replays the failed uploads once the platform accepts them, and nothing else', async () => {
    // An order that completed, and one that is running but not awaiting repair (no worker polls its queue).
    stack.writeDocument('done/form.pdf', '%PDF done');
    const completed = await stack.orders.startOrder({
      orderRef: 'replay-done',
      vehicle,
      badge,
      documents: [{ path: 'done/form.pdf' }],
    });
    await completed.handle.result();
    const idle = new BadgeOrdersClient({
      client: stack.temporal.client,
      taskQueue: `${stack.taskQueue}-idle`,
    });
    const running = await idle.startOrder({ orderRef: 'replay-running', vehicle, badge, documents: [] });

    const awaiting = await ordersAwaitingRepair('replay-night', 3);
    expect((await stack.sandbox.control.state()).documents).toHaveLength(4); // the done one and 3 PDFs

    await stack.sandbox.control.setRules({ acceptedContentTypes: [...DEFAULT_TYPES, 'image/gif'] });
    const settings = {
      taskQueue: stack.taskQueue,
      time: { hour: 2, minute: 0 },
      timezone: 'Europe/Berlin',
      maxConcurrentSignals: 2,
    };
    expect(await applyReplaySchedule(stack.temporal.client, settings)).toBe('created');
    try {
      const before = await describeReplaySchedule(stack.temporal.client);
      expect(before).toMatchObject({
        paused: false,
        calendars: ['02:00'],
        timezone: 'Europe/Berlin',
        actionCount: 0,
      });

      await triggerReplay(stack.temporal.client);
      const described = await pollUntil(
        () => describeReplaySchedule(stack.temporal.client),
        (summary) => summary.recentRuns.length === 1,
        { what: 'the Schedule to start the replay' },
      );
      const run = described.recentRuns[0];
      expect(run?.workflowId).toMatch(new RegExp(`^${REPLAY_SCHEDULE_ID}`));
      const replay = stack.temporal.client.workflow.getHandle(run?.workflowId ?? '');
      expect((await replay.describe()).type).toBe(WORKFLOW_TYPES.replayFailedUploads);
      const result = (await replay.result()) as ReplayFailedUploadsResult;
      expect(result).toMatchObject({ found: 3, signalled: 3, skipped: 0, errors: 0, errorSamples: [] });

      for (const handle of awaiting) {
        const order = await handle.result();
        expect(order.documents.map((document) => document.status)).toEqual(['uploaded', 'uploaded']);
        expect(await signalCount(handle)).toBe(1);
      }
      const state = await stack.sandbox.control.state();
      expect(state.documents.filter((document) => document.content_type === 'image/gif')).toHaveLength(3);

      expect(await signalCount(completed.handle)).toBe(0);
      expect(await signalCount(running.handle)).toBe(0);
      expect((await running.handle.describe()).status.name).toBe('RUNNING');
    } finally {
      await running.handle.terminate('test over');
      await replayScheduleHandle(stack.temporal.client).delete();
    }
  });

  it('applies idempotently and keeps an operator’s pause', async () => {
    const settings = {
      taskQueue: stack.taskQueue,
      time: { hour: 2, minute: 0 },
      timezone: 'Europe/Berlin',
      maxConcurrentSignals: 10,
      scheduleId: 'replay-apply-test',
    };
    expect(await applyReplaySchedule(stack.temporal.client, settings)).toBe('created');
    try {
      await replayScheduleHandle(stack.temporal.client, settings.scheduleId).pause('platform maintenance');
      expect(
        await applyReplaySchedule(stack.temporal.client, {
          ...settings,
          time: { hour: 3, minute: 30 },
          timezone: 'UTC',
        }),
      ).toBe('updated');
      const summary = await describeReplaySchedule(stack.temporal.client, settings.scheduleId);
      expect(summary).toMatchObject({
        paused: true,
        note: 'platform maintenance',
        calendars: ['03:30'],
        timezone: 'UTC',
        taskQueue: stack.taskQueue,
      });
    } finally {
      await replayScheduleHandle(stack.temporal.client, settings.scheduleId).delete();
    }
  });

  it('signals an order whose listed run has continued as new since: its newer run', async () => {
    const orderRef = 'replay-moved-on';
    stack.writeDocument(`${orderRef}/scan.gif`, `GIF89a ${orderRef}`);
    const started = await stack.orders.startOrder({
      orderRef,
      vehicle,
      badge,
      documents: [{ path: `${orderRef}/scan.gif` }],
      options: { historyBudgetEvents: 100 },
    });
    const { workflowId, runId: listedRunId } = await started.handle.describe();
    // Repair cycles until the order continues as new (past its history budget), still awaiting repair.
    const latest = stack.orders.getHandle(orderRef);
    await pollUntil(
      async () => {
        const [description, status] = await Promise.all([latest.describe(), stack.orders.status(orderRef)]);
        if (description.runId === listedRunId && status.phase === 'awaiting-repair') {
          await stack.orders.retryUploads(orderRef);
        }
        return { runId: description.runId, phase: status.phase };
      },
      (now) => now.runId !== listedRunId && now.phase === 'awaiting-repair',
      { what: `${orderRef} to continue as new while awaiting repair` },
    );
    const before = await signalCount(latest);
    await stack.sandbox.control.setRules({ acceptedContentTypes: [...DEFAULT_TYPES, 'image/gif'] });

    const activities = createReplayActivities({ client: stack.temporal.client });
    const result = await new MockActivityEnvironment().run(() =>
      activities.signalRetryUploads({ runs: [{ workflowId, runId: listedRunId }], maxConcurrent: 1 }),
    );
    expect(result).toEqual({ signalled: 1, skipped: 0, errors: [] });
    expect(await signalCount(latest)).toBe(before + 1);
    // The signal reached the run that holds the order: it uploads the .gif and completes.
    expect((await latest.result()).documents).toMatchObject([{ status: 'uploaded' }]);
  });

  it('continues as new over a long list and sums the counts across runs', async () => {
    const awaiting = await ordersAwaitingRepair('replay-long', 3);
    await stack.sandbox.control.setRules({ acceptedContentTypes: [...DEFAULT_TYPES, 'image/gif'] });
    const replay = await stack.temporal.client.workflow.start(WORKFLOW_TYPES.replayFailedUploads, {
      taskQueue: stack.taskQueue,
      workflowId: 'replay-long-list',
      args: [{ pageSize: 1, maxOrdersPerRun: 1, maxConcurrentSignals: 1 }],
    });
    const result = (await replay.result()) as ReplayFailedUploadsResult;
    // Signalled orders leave AwaitingRepair while the listing goes on; each one is found and signalled once.
    expect(result.found).toBe(3);
    expect(result.signalled).toBe(3);
    expect(result.errors).toBe(0);
    const firstRun = stack.temporal.client.workflow.getHandle('replay-long-list', replay.firstExecutionRunId);
    expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
    for (const handle of awaiting) {
      await handle.result();
      expect(await signalCount(handle)).toBe(1);
    }
  });
});
