/**
 * The bench's floors do what the report says they do: the plain own-shape floor makes no visibility write and
 * stores plain payloads; `floorSearchAttributes` makes badgeOrder's visibility writes; `featuredFloor` also gives
 * every step a summary and encrypts its payloads. The cost the bench puts on those features rests on this, and
 * so does its count of the server's work (visibility tasks, from the dev server's own counters). A real dev
 * server, the floor worker processes and a few orders of each.
 */
import type { temporal } from '@temporalio/proto';
import { ENCRYPTED_ENCODING } from '../../src/codec/encryption-codec';
import { readServerWork } from '../../bench/metrics';
import { runTemporalScenario, type FloorKind } from '../../bench/scenario';
import type { BenchStack, WorkerSet } from '../../bench/stack';
import { pollUntil } from '../../tools/dev/poll';
import { startTestBenchStack } from './bench-stack';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What a floor order's history shows of the features. */
interface FeaturesSeen {
  readonly startSearchAttributes: string[];
  readonly upserted: string[];
  readonly patchMarkers: number;
  readonly summaries: number;
  readonly inputEncoding: string;
}

/** Three orders of a floor: what each one's history shows, and the server's visibility tasks for them. */
interface OrdersSeen {
  readonly features: FeaturesSeen[];
  /**
   * The server's visibility tasks and definition reads per order, once it has counted at least
   * `visibilityTasks` visibility tasks per order (it counts a task a moment after writing its record): a count
   * short of that times out, one above it shows.
   */
  serverWorkPerOrder(visibilityTasks: number): Promise<{ visibilityTasks: number; definitionReads: number }>;
}

function featuresOf(events: readonly HistoryEvent[]): FeaturesSeen {
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const encoding = started?.input?.payloads?.[0]?.metadata?.encoding;
  return {
    startSearchAttributes: Object.keys(started?.searchAttributes?.indexedFields ?? {}).sort(),
    upserted: events.flatMap((event) =>
      Object.keys(event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}),
    ),
    patchMarkers: events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')
      .length,
    summaries: events.filter((event) => event.userMetadata?.summary).length,
    inputEncoding: encoding ? Buffer.from(encoding).toString() : '',
  };
}

describe('bench floors', () => {
  let stack: BenchStack | undefined;
  const sets: WorkerSet[] = [];

  beforeAll(async () => {
    stack = await startTestBenchStack();
  }, 300_000);

  afterAll(async () => {
    await Promise.all(sets.map((set) => set.stop()));
    await stack?.teardown();
  });

  /** Runs 3 orders of `kind`: the features each one's history shows, and the server's visibility tasks. */
  async function ordersOf(kind: FloorKind, encrypted: boolean): Promise<OrdersSeen> {
    const metricsUrl = stack?.server.metricsUrl;
    if (!stack || !metricsUrl) throw new Error('the bench stack (a CLI dev server) starts in beforeAll');
    const workers = await stack.startFloorWorkers(1, { encrypted });
    const before = await readServerWork(metricsUrl);
    sets.push(workers);
    const shape = { documents: stack.writeDocuments(kind, 2, 1024), documentBytes: 1024, stockId: 1001 };
    const result = await runTemporalScenario(stack, kind, workers, {
      orders: 3,
      warmupOrders: 0,
      concurrency: 3,
      shape,
      runId: `floors-${kind}`,
    });
    expect(result.latency.count).toBe(3);
    // Visibility lists an order as completed a moment after it completed: wait until it lists all three.
    const client = stack.plainClient;
    const query = `TaskQueue = '${workers.taskQueue}' AND ExecutionStatus = 'Completed'`;
    const executions = await pollUntil(
      async () => {
        const listed: { workflowId: string; runId: string }[] = [];
        for await (const execution of client.workflow.list({ query })) {
          listed.push(execution);
        }
        return listed;
      },
      (listed) => listed.length === 3,
      { what: `visibility to list the 3 ${kind} orders` },
    );
    const features: FeaturesSeen[] = [];
    for (const { workflowId, runId } of executions) {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      features.push(featuresOf(history.events ?? []));
    }
    const perOrder = async (): Promise<{ visibilityTasks: number; definitionReads: number }> => {
      const after = await readServerWork(metricsUrl);
      return {
        visibilityTasks: (after.visibilityTasks - before.visibilityTasks) / 3,
        definitionReads: (after.definitionReads - before.definitionReads) / 3,
      };
    };
    return {
      features,
      serverWorkPerOrder: (visibilityTasks) =>
        pollUntil(perOrder, (counted) => counted.visibilityTasks >= visibilityTasks, {
          what: `the server to count ${visibilityTasks} visibility tasks per ${kind} order`,
        }),
    };
  }

  it('the plain floor makes no visibility write and stores plain payloads', async () => {
    const seen = await ordersOf('floor', false);
    // The server's own: the start, the first workflow task's BuildIds upsert, the close.
    expect((await seen.serverWorkPerOrder(3)).visibilityTasks).toBe(3);
    expect(seen.features).toHaveLength(3);
    for (const features of seen.features) {
      expect(features).toEqual({
        startSearchAttributes: [],
        upserted: [],
        patchMarkers: 0,
        summaries: 0,
        inputEncoding: 'json/plain',
      });
    }
  });

  it.each([
    ['floorSearchAttributes', false, 0, 'json/plain'],
    ['featuredFloor', true, 1 + 2 + 1 + 2, ENCRYPTED_ENCODING],
  ] as const)(
    '%s makes badgeOrder’s visibility writes',
    async (kind, encrypted, summaries, inputEncoding) => {
      const seen = await ordersOf(kind, encrypted);
      // One more than the plain floor, BadgeOrderId's: the server collapses the visibility tasks of one
      // transaction, so the patch's upsert shares the first workflow task's and the final status the close's.
      const work = await seen.serverWorkPerOrder(4);
      expect(work.visibilityTasks).toBe(4);
      // The bench's server caches the search attributes' and the namespace's definitions, as a deployed one
      // does: the dev server's default reads both from its database at every upsert and history fetch.
      expect(work.definitionReads).toBeLessThan(1);
      expect(seen.features).toHaveLength(3);
      for (const features of seen.features) {
        expect(features).toEqual({
          startSearchAttributes: ['BadgeOrderRef', 'BadgeOrderStatus'],
          upserted: ['TemporalChangeVersion', 'BadgeOrderId', 'BadgeOrderStatus'],
          patchMarkers: 1,
          summaries,
          inputEncoding,
        });
      }
    },
  );
});
