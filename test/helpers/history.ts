/** Reading workflow histories: as text, with every payload decoded (to search them for secrets), and by step. */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import type { PayloadKeyRing } from '../../src/codec/key-ring';
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

/**
 * The Web UI timeline's summary of each step, in order: of activities, and of local activities (on their
 * markers). Summaries are encrypted like any payload, so they are decoded with the stack's keys.
 */
export async function stepSummaries(handle: WorkflowHandle, keys: PayloadKeyRing): Promise<unknown[]> {
  const history = await handle.fetchHistory();
  const codec = new EncryptionCodec(keys);
  const summaries: unknown[] = [];
  for (const event of history.events ?? []) {
    const step = event.activityTaskScheduledEventAttributes ?? event.markerRecordedEventAttributes;
    const summary = step ? event.userMetadata?.summary : undefined;
    if (!summary) continue;
    const [decoded] = await codec.decode([summary]);
    summaries.push(defaultPayloadConverter.fromPayload(decoded as Payload));
  }
  return summaries;
}

/**
 * The messages of every failed attempt of one activity type, decoded (failure messages are encrypted like any
 * payload): what an operator reads in the Web UI.
 */
export async function activityFailureMessages(
  handle: WorkflowHandle,
  keys: PayloadKeyRing,
  activityType: string,
): Promise<string[]> {
  const history = await handle.fetchHistory();
  const codec = new EncryptionCodec(keys);
  const types = new Map<string, string>();
  const messages: string[] = [];
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) types.set(String(event.eventId), scheduled.activityType?.name ?? '');
    const failed = event.activityTaskFailedEventAttributes;
    if (!failed || types.get(String(failed.scheduledEventId)) !== activityType) continue;
    const encoded = failed.failure?.encodedAttributes;
    if (!encoded) continue;
    const [decoded] = await codec.decode([encoded]);
    const attributes = defaultPayloadConverter.fromPayload<{ message?: string }>(decoded as Payload);
    messages.push(attributes.message ?? '');
  }
  return messages;
}
