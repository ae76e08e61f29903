/** Reading workflow histories as text, with every payload decoded, to search them for secrets. */
import type { Client } from '@temporalio/client';

function collectText(value: unknown, out: string[]): void {
  if (value instanceof Uint8Array) {
    out.push(Buffer.from(value).toString('utf8'));
  } else if (typeof value === 'string') {
    out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectText(item, out);
  } else if (value && typeof value === 'object') {
    for (const item of Object.values(value as Record<string, unknown>)) collectText(item, out);
  }
}

/** Every string and decoded payload of a history, one per line. */
export function historyText(history: unknown): string {
  const out: string[] = [];
  collectText(history, out);
  return out.join('\n');
}

/** The decoded histories of every workflow the query finds (e.g. all runs on a task queue). */
export async function historiesOf(client: Client, query: string): Promise<Map<string, string>> {
  const histories = new Map<string, string>();
  for await (const execution of client.workflow.list({ query })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    histories.set(`${execution.workflowId}/${execution.runId}`, historyText(history));
  }
  return histories;
}
