/**
 * The bench's peer does what the report says it does: it places each order on the platform itself — signs in,
 * looks the stock up, creates the order, uploads every document with plain axios and form-data — as one regular
 * activity per step, with no encryption, no search attributes and no idempotency keys. What the bench holds
 * badgeOrder against rests on this. A real dev server, the sandbox, the peer's worker process and a few orders;
 * the assertions read what the sandbox stored and what the histories hold.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import { BADGE, VEHICLE } from '../../bench/order-data';
import { runTemporalScenario, type ScenarioResult } from '../../bench/scenario';
import type { BenchStack, WorkerSet } from '../../bench/stack';
import { pollUntil } from '../../tools/dev/poll';
import { startTestBenchStack } from './bench-stack';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The demo user of the sandbox the bench signs in as (`src/sandbox/fixtures.ts`). */
const DEMO_USER_ID = '4711';

describe('bench peer', () => {
  let stack: BenchStack | undefined;
  let workers: WorkerSet | undefined;

  beforeAll(async () => {
    stack = await startTestBenchStack();
    workers = await stack.startPeerWorkers(1);
  }, 300_000);

  afterAll(async () => {
    await workers?.stop();
    await stack?.teardown();
  });

  function running(): { stack: BenchStack; workers: WorkerSet } {
    if (!stack || !workers) throw new Error('the bench stack starts in beforeAll');
    return { stack, workers };
  }

  /** Runs `orders` peer orders of 2 documents with `stockId`; returns the scenario and the orders it stored. */
  async function peerOrders(name: string, orders: number, stockId: number) {
    const { stack: bench, workers: set } = running();
    const known = new Set((await bench.sandbox.control.listOrders()).map((order) => order.id));
    const shape = { documents: bench.writeDocuments(name, 2, 2048), documentBytes: 2048, stockId };
    const result = await runTemporalScenario(bench, 'peer', set, {
      orders,
      warmupOrders: 0,
      concurrency: orders,
      shape,
      runId: `peer-${name}`,
    });
    const state = await bench.sandbox.control.state();
    const stored = state.orders.filter((order) => !known.has(order.id));
    return { result, shape, stored, documents: state.documents };
  }

  function requestsPerOrder(result: ScenarioResult): Readonly<Record<string, number>> {
    expect(result.failures).toBe(0);
    return result.requestsPerOrder;
  }

  /** The histories of the peer orders of `runId`: one regular activity per step, plain, no visibility writes. */
  async function expectPlainRegularActivities(count: number): Promise<void> {
    const { stack: bench, workers: set } = running();
    const client = bench.plainClient;
    const executions = await pollUntil(
      async () => {
        const listed: { workflowId: string; runId: string }[] = [];
        for await (const execution of client.workflow.list({ query: `TaskQueue = '${set.taskQueue}'` })) {
          listed.push(execution);
        }
        return listed;
      },
      (listed) => listed.length === count,
      { what: `visibility to list the ${count} peer orders` },
    );
    for (const { workflowId, runId } of executions) {
      const events: HistoryEvent[] =
        (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
      const started = events[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.workflowType?.name).toBe('peerOrder');
      expect(Buffer.from(started?.input?.payloads?.[0]?.metadata?.encoding ?? '').toString()).toBe(
        'json/plain',
      );
      expect(Object.keys(started?.searchAttributes?.indexedFields ?? {})).toEqual([]);
      const activities = events.flatMap((event) => {
        const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
        return name ? [name] : [];
      });
      expect(activities).toEqual([
        'signIn',
        'lookUpStock',
        'createOrder',
        'uploadDocument',
        'uploadDocument',
      ]);
      expect(events.filter((event) => event.markerRecordedEventAttributes)).toEqual([]);
      expect(events.filter((event) => event.upsertWorkflowSearchAttributesEventAttributes)).toEqual([]);
      expect(events.filter((event) => event.userMetadata?.summary)).toEqual([]);
    }
  }

  it('places every order and uploads every document on the platform, one regular activity per step', async () => {
    const { result, shape, stored, documents } = await peerOrders('stocked', 3, 1001);
    expect(result.latency.count).toBe(3);
    // A sign-in per order (the token is reused within the order only), the lookup, the creation, the uploads.
    expect(requestsPerOrder(result)).toEqual({ auth: 1, stocks: 1, orders: 1, documents: 2 });
    expect(stored).toHaveLength(3);
    const files = shape.documents.map((path) => {
      const bytes = readFileSync(join(running().stack.documentsRoot, path));
      return { filename: path, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    });
    for (const order of stored) {
      expect(order).toMatchObject({
        user_id: DEMO_USER_ID,
        stock_id: 1001,
        vehicle: VEHICLE,
        badge: BADGE,
        idempotency_key: null,
      });
      const linked = documents.filter((document) => document.document_type_id === order.id);
      expect(
        linked
          .map((document) => ({
            filename: document.filename,
            size: document.size,
            sha256: document.sha256,
            owner: document.document_owner,
            part: document.file_part,
            contentType: document.content_type,
            idempotencyKey: document.idempotency_key,
          }))
          .sort((a, b) => a.filename.localeCompare(b.filename)),
      ).toEqual(
        files.map((file) => ({
          ...file,
          owner: DEMO_USER_ID,
          part: 'file',
          contentType: 'application/pdf',
          idempotencyKey: null,
        })),
      );
    }
    await expectPlainRegularActivities(3);
  });

  it.each([
    // 1003 is listed but retired: the creation answers 404, and the peer creates the order without it.
    ['a stock the platform refuses', 1003, { auth: 1, stocks: 1, orders: 2, documents: 2 }],
    // 9999 is not listed: the peer creates the order without it straight away.
    ['a stock the user does not have', 9999, { auth: 1, stocks: 1, orders: 1, documents: 2 }],
  ])(
    'with %s, creates the order without a stock, as the specification says',
    async (_name, stockId, calls) => {
      const { result, stored, documents } = await peerOrders(`stock-${stockId}`, 1, stockId);
      expect(requestsPerOrder(result)).toEqual(calls);
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ user_id: DEMO_USER_ID, stock_id: null });
      expect(documents.filter((document) => document.document_type_id === stored[0]?.id)).toHaveLength(2);
    },
  );
});
