/**
 * The `badge-nightly-upload-replay` Schedule: created or updated idempotently (`apply`), paused, unpaused,
 * triggered and described — the same operations the Web UI offers on its Schedules page.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleDescription,
  type ScheduleHandle,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleSpec,
} from '@temporalio/client';
import {
  REPLAY_SCHEDULE_ID,
  type ReplayFailedUploadsInput,
  type ReplayFailedUploadsWorkflow,
} from '../contract';
import type { loadReplayScheduleConfig } from '../config';
import { WORKFLOW_TYPES } from '../workflow-contract';

/** What the Schedule looks like: the settings of `loadReplayScheduleConfig`, and the orders' task queue. */
export type ReplayScheduleSettings = Pick<
  ReturnType<typeof loadReplayScheduleConfig>,
  'time' | 'timezone' | 'maxConcurrentSignals'
> & {
  readonly taskQueue: string;
  /** @default {@link REPLAY_SCHEDULE_ID} */
  readonly scheduleId?: string;
};

/** The Schedule's spec, action and policies: what `apply` creates, or sets on the existing Schedule. */
function definitionOf(settings: ReplayScheduleSettings) {
  const input: ReplayFailedUploadsInput = { maxConcurrentSignals: settings.maxConcurrentSignals };
  const action: ScheduleOptionsStartWorkflowAction<ReplayFailedUploadsWorkflow> = {
    type: 'startWorkflow',
    workflowType: WORKFLOW_TYPES.replayFailedUploads,
    // The Schedule appends the start time, so each night's run has its own id.
    workflowId: settings.scheduleId ?? REPLAY_SCHEDULE_ID,
    taskQueue: settings.taskQueue,
    args: [input],
    staticSummary: 'Nightly replay of failed badge document uploads',
  };
  const spec: ScheduleSpec = {
    calendars: [{ hour: settings.time.hour, minute: settings.time.minute, comment: 'nightly upload replay' }],
    timezone: settings.timezone,
  };
  const policies = {
    // A replay still running when the next one is due (a huge backlog) is left to finish; the next is skipped.
    overlap: ScheduleOverlapPolicy.SKIP,
    // After an outage, one catch-up run within a day is enough: the replay covers every order anyway.
    catchupWindow: '1 day',
  } as const;
  return { spec, action, policies };
}

/**
 * Creates the Schedule, or updates its spec, action and policies when it exists. Whether it is paused (and
 * the note saying why) is kept: `apply` in a deployment must not unpause a Schedule an operator paused.
 */
export async function applyReplaySchedule(
  client: Client,
  settings: ReplayScheduleSettings,
): Promise<'created' | 'updated'> {
  const scheduleId = settings.scheduleId ?? REPLAY_SCHEDULE_ID;
  const handle = client.schedule.getHandle(scheduleId);
  const update = async (): Promise<'updated'> => {
    await handle.update<ReplayFailedUploadsWorkflow>((previous: ScheduleDescription) => ({
      ...definitionOf(settings),
      state: { paused: previous.state.paused, note: previous.state.note },
    }));
    return 'updated';
  };
  try {
    await handle.describe();
    return await update();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
  try {
    await client.schedule.create({
      scheduleId,
      ...definitionOf(settings),
      state: { note: 'Created by npm run schedule -- apply' },
    });
    return 'created';
  } catch (error) {
    // Another apply won the race: update what it created.
    if (error instanceof ScheduleAlreadyRunning) return update();
    throw error;
  }
}

export function replayScheduleHandle(client: Client, scheduleId = REPLAY_SCHEDULE_ID): ScheduleHandle {
  return client.schedule.getHandle(scheduleId);
}

/**
 * Starts a replay now. The Schedule's overlap policy (skip) applies: while a replay runs, a trigger does
 * nothing — the running one already covers every order.
 */
export async function triggerReplay(client: Client, scheduleId = REPLAY_SCHEDULE_ID): Promise<void> {
  await replayScheduleHandle(client, scheduleId).trigger(ScheduleOverlapPolicy.SKIP);
}

function two(value: unknown): string {
  return String(value).padStart(2, '0');
}

/** A plain summary of the Schedule for people and scripts. */
export async function describeReplaySchedule(client: Client, scheduleId = REPLAY_SCHEDULE_ID) {
  const description = await replayScheduleHandle(client, scheduleId).describe();
  return {
    scheduleId,
    paused: description.state.paused,
    note: description.state.note ?? null,
    calendars: (description.spec.calendars ?? []).map((calendar) => {
      const hours = calendar.hour.map((range) => two(range.start)).join(',');
      const minutes = calendar.minute.map((range) => two(range.start)).join(',');
      return `${hours}:${minutes}`;
    }),
    timezone: description.spec.timezone ?? null,
    taskQueue: description.action.taskQueue ?? null,
    actionCount: description.info.numActionsTaken,
    nextRuns: description.info.nextActionTimes.map((time) => time.toISOString()),
    recentRuns: description.info.recentActions.map((action) => ({
      workflowId: action.action.workflow.workflowId,
      runId: action.action.workflow.firstExecutionRunId,
      at: action.takenAt.toISOString(),
    })),
  };
}
