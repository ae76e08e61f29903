/**
 * `npx tsx tools/histories/long-order.ts [--documents 500] [--cycles 25] [--parallel 4]`: the longest order the
 * service promises to carry. An order of 500 documents the platform refuses (a content type it does not take)
 * goes through 25 repair cycles (`retryUploads`, every document fails again), then the platform takes them and
 * the order completes. Each run's history must stay within 10 % of the server's 51,200-event limit, because the
 * workflow continues as new past its history budget (`historyBudgetEvents`). Prints each run's event count and
 * exits 1 when a run passes 5,120 events or the order does not complete. Figures: docs/benchmarks.md.
 */
import { parseArgs } from 'node:util';
import type { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { BadgeOrderStatusView } from '../../src/contract';
import { runMain } from '../../src/main/run-main';
import { DEMO_USER } from '../../src/sandbox';
import { pollUntil } from '../dev/poll';
import { startLocalStack, type LocalStack } from '../stack';

/** The server's default limit of events per run, and the share of it a run may use. */
const EVENT_LIMIT = 51_200;
const RUN_BUDGET = EVENT_LIMIT / 10;

/** Waits until `until` holds for the order's phase and the fewest attempts of any document; returns those. */
async function statusWhen(
  stack: LocalStack,
  orderRef: string,
  until: (attempts: number, phase: string) => boolean,
): Promise<number> {
  const fewestAttempts = (status: BadgeOrderStatusView): number =>
    Math.min(...status.documents.map((document) => document.attempts));
  // A status asked while the order is between runs (continuing as new) fails: pollUntil asks again.
  const status = await pollUntil(
    () => stack.orders().status(orderRef),
    (candidate) => until(fewestAttempts(candidate), candidate.phase),
    { what: `the next phase of ${orderRef}`, timeoutMs: 10 * 60_000, intervalMs: 250 },
  );
  return fewestAttempts(status);
}

/** Event counts of every run of the order, following the continue-as-new chain from the first run. */
async function runLengths(stack: LocalStack, workflowId: string, firstRunId: string): Promise<number[]> {
  const lengths: number[] = [];
  for (let runId: string | null = firstRunId; runId !== null;) {
    const history: temporal.api.history.v1.IHistory = await stack.temporal.client.workflow
      .getHandle(workflowId, runId)
      .fetchHistory();
    const events: temporal.api.history.v1.IHistoryEvent[] = history.events ?? [];
    lengths.push(events.length);
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? null;
  }
  return lengths;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      documents: { type: 'string', default: '500' },
      cycles: { type: 'string', default: '25' },
      parallel: { type: 'string', default: '4' },
    },
  });
  const documentCount = Number(values.documents);
  const cycles = Number(values.cycles);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const stack = await startLocalStack({
    user: DEMO_USER,
    stopOnSignals: true,
    log: (line) => console.error(line),
  });
  const started = Date.now();
  try {
    await stack.startWorker();
    const documents = Array.from({ length: documentCount }, (_, index) => ({
      path: stack.writeDocument(`long/${index}.gif`, `GIF89a document ${index}`),
    }));
    const orderRef = `long-order-${documentCount}x${cycles}`;
    const order = await stack.orders().startOrder({
      orderRef,
      vehicle: { licensePlate: 'L-ONG 500' },
      badge: { type: 'green' },
      documents,
      options: { maxParallelUploads: Number(values.parallel) },
    });
    const { workflowId, runId: firstRunId } = await order.handle.describe();
    let attempts = await statusWhen(stack, orderRef, (_, phase) => phase === 'awaiting-repair');
    for (let cycle = 1; cycle <= cycles; cycle += 1) {
      if (cycle === cycles) {
        const rules = await stack.sandbox.control.rules();
        await stack.sandbox.control.setRules({
          acceptedContentTypes: [...rules.acceptedContentTypes, 'image/gif'],
        });
        await stack.orders().retryUploads(orderRef);
        break;
      }
      await stack.orders().retryUploads(orderRef);
      const before = attempts;
      attempts = await statusWhen(
        stack,
        orderRef,
        (now, phase) => phase === 'awaiting-repair' && now > before,
      );
      console.error(`cycle ${cycle}: every document failed again (${attempts} attempts each)`);
    }
    const result = await order.handle.result();
    const lengths = await runLengths(stack, workflowId, firstRunId);
    const platform = await stack.sandbox.control.state();
    const stored = platform.documents.filter((document) => document.document_type_id === result.orderId);
    const report = {
      documents: documentCount,
      repairCycles: cycles,
      completed: result.documents.length === documentCount,
      documentsStored: stored.length,
      runs: lengths.length,
      eventsPerRun: lengths,
      largestRun: Math.max(...lengths),
      largestRunShareOfLimit: `${((Math.max(...lengths) / EVENT_LIMIT) * 100).toFixed(1)} %`,
      totalEvents: lengths.reduce((sum, length) => sum + length, 0),
      minutes: Number(((Date.now() - started) / 60_000).toFixed(1)),
    };
    console.log(JSON.stringify(report, null, 2));
    if (!report.completed || report.largestRun > RUN_BUDGET || stored.length !== documentCount) {
      throw new Error(`a run passed ${RUN_BUDGET} events, or the order did not complete with every document`);
    }
  } finally {
    await stack.stop();
  }
}

runMain(main);
