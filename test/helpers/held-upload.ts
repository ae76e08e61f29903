/**
 * Faults that must land in the middle of an upload: the sandbox holds document uploads (its latency), the
 * test waits until one runs on a worker and the sandbox holds its request, applies the fault and lets uploads
 * through again; afterwards the history shows what the fault did to that upload.
 */
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { BadgeOrderHandle } from '../../src/client/badge-orders-client';
import type { SandboxControl } from '../../src/sandbox';
import { pollUntil } from '../../tools/dev/poll';

/** Uploads the sandbox is holding, from {@link holdUploads}. */
export interface HeldUploads {
  /** Requests the sandbox had delayed before (its `latency` counter). */
  readonly heldBefore: number;
}

/**
 * Makes the sandbox hold every document upload for `ms` before answering it; `setFaults({})` lets later ones
 * through at once (a request already held stays held for its time).
 */
export async function holdUploads(control: SandboxControl, ms: number): Promise<HeldUploads> {
  await control.setFaults({ latencyMs: ms, routes: ['documents'] });
  return { heldBefore: (await control.stats()).faults.latency ?? 0 };
}

/**
 * Waits until an `uploadDocument` activity of the order runs on a worker and the sandbox holds an upload
 * request; returns that activity's id.
 */
export async function uploadInFlight(
  handle: BadgeOrderHandle,
  control: SandboxControl,
  held: HeldUploads,
): Promise<string> {
  const running = await pollUntil(
    async () => {
      const description = await handle.describe();
      const upload = (description.raw.pendingActivities ?? []).find(
        (activity) =>
          activity.activityType?.name === 'uploadDocument' &&
          activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
      );
      const heldNow = (await control.stats()).faults.latency ?? 0;
      return { activityId: upload?.activityId ?? undefined, held: heldNow > held.heldBefore };
    },
    (state) => state.activityId !== undefined && state.held,
    { what: 'an upload running on a worker, its request held by the sandbox' },
  );
  return running.activityId as string;
}

/**
 * Lets uploads through again once the upload request the sandbox still holds for a killed worker has ended:
 * call it while no worker runs, so that request alone can take the fault it waits on. Woken later, it would
 * take the next test's faults or replay its keys.
 */
export async function killedUploadEnded(control: SandboxControl): Promise<void> {
  await control.setFaults({ failNext: [{ route: 'documents', kind: 'error-500', count: 1 }] });
  await pollUntil(
    () => control.faults(),
    (faults) => faults.failNext === undefined,
    { what: 'the upload request held for the killed worker to end' },
  );
}

/** The attempt of activity `activityId` that the order's history records as started (its last one). */
export async function startedAttemptOf(handle: BadgeOrderHandle, activityId: string): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = events.find(
    (event) => event.activityTaskScheduledEventAttributes?.activityId === activityId,
  );
  if (!scheduled) throw new Error(`activity ${activityId} is not in the history`);
  const started = events.find(
    (event) =>
      String(event.activityTaskStartedEventAttributes?.scheduledEventId ?? '') === String(scheduled.eventId),
  );
  if (!started) throw new Error(`activity ${activityId} never started`);
  return started.activityTaskStartedEventAttributes?.attempt ?? 0;
}

/** When the order's history recorded the run's completion (ms since the epoch). */
export async function completedAt(handle: BadgeOrderHandle): Promise<number> {
  const events = (await handle.fetchHistory()).events ?? [];
  const completed = events.find((event) => event.workflowExecutionCompletedEventAttributes);
  if (!completed) throw new Error(`${handle.workflowId} has not completed`);
  return tsToMs(completed.eventTime);
}
