/** Readiness of worker processes: they count as started once they poll their task queue. */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { ChildProcessHandle } from '../dev/child-process';

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
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = processes.find((candidate) => !candidate.running());
    if (dead) throw new Error(`${dead.name} exited while starting:\n${dead.output()}`);
    const [workflowPollers, activityPollers] = await Promise.all([
      pollerIdentities(client, taskQueue, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
      pollerIdentities(client, taskQueue, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
    ]);
    const polls = (pid: number, identities: string[]): boolean =>
      identities.some((identity) => identity.startsWith(`${pid}@`));
    if (processes.every((p) => polls(p.pid, workflowPollers) && polls(p.pid, activityPollers))) return;
    if (Date.now() > deadline) {
      throw new Error(
        `workers did not poll ${taskQueue} within ${timeoutMs} ms:\n${processes.map((p) => p.output()).join('\n')}`,
      );
    }
    // Polling interval of a readiness probe.
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 250));
  }
}
