/** Reading workflow histories as text, with every payload decoded, to search them for secrets. */
import type { Client } from '@temporalio/client';
import { textOf } from '../../tools/chaos/secrets';

/** Every string and decoded payload of a history, one per line. */
export const historyText = textOf;

/** The decoded histories of every workflow the query finds (e.g. all runs on a task queue). */
export async function historiesOf(client: Client, query: string): Promise<Map<string, string>> {
  const histories = new Map<string, string>();
  for await (const execution of client.workflow.list({ query })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    histories.set(`${execution.workflowId}/${execution.runId}`, historyText(history));
  }
  return histories;
}
