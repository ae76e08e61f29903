/** Readiness of worker processes: they count as started once they poll their task queue. */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { ChildProcessHandle } from '../dev/child-process';
import { waitUntil } from '../dev/poll';

const { TaskQueueType } = temporal.api.enums.v1;

async function pollerIdentities(client: Client, taskQueue: string, type: number): Promise<string[]> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: type,
  });
  return (response.pollers ?? []).map((poller) => poller.identity ?? '');
}

/**
 * Resolves once every process polls `taskQueue` for workflow and activity tasks (the SDK's default identity
 * starts with `<pid>@`); rejects when one exits or `timeoutMs` passes.
 */
export async function waitUntilPolling(
  client: Client,
  taskQueue: string,
  processes: readonly ChildProcessHandle[],
  timeoutMs = 120_000,
): Promise<void> {
  const polls = (pid: number, identities: readonly string[]): boolean =>
    identities.some((identity) => identity.startsWith(`${pid}@`));
  await waitUntil(
    `workers to poll ${taskQueue}`,
    async () => {
      const [workflowPollers, activityPollers] = await Promise.all([
        pollerIdentities(client, taskQueue, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
        pollerIdentities(client, taskQueue, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
      ]);
      return processes.every((p) => polls(p.pid, workflowPollers) && polls(p.pid, activityPollers));
    },
    { processes, timeoutMs, intervalMs: 250 },
  );
}
