/**
 * The Temporal floors: workflows whose activities do nothing, so what they cost is Temporal's own cost of
 * running the steps.
 *
 * - `floorOrder`, the **own-shape floor**: the same shape as `badgeOrder` — authenticate (in `badgeOrder` the
 *   same local activity also resolves the input) and look up the stock (when one is given) as local
 *   activities, create the order as an activity, then one `uploadDocument` per document with the same
 *   activity options and the same bounded parallelism.
 * - `naiveFloorOrder`, the **naive-shape floor**: one regular activity per step (authenticate, stock lookup,
 *   create, each upload) — what a first design on Temporal does, and what the bench measured before.
 *
 * `floorOrder` can also make badgeOrder's visibility writes and give its steps summaries (`searchAttributes`,
 * `summaries`): the bench's `floorSearchAttributes` and `featuredFloor`, which say what those features cost.
 *
 * Deterministic workflow code, like src/workflows.
 */
import { patched, proxyActivities, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { BadgeOrderId, BadgeOrderStatus } from '../../src/workflow-contract';
import { DEFAULT_ORDER_OPTIONS } from '../../src/order-options';
import { platformCallOptions, uploadOptions } from '../../src/workflows/activity-options';
import { runWithConcurrency } from '../../src/concurrency';
import type { FloorActivities } from './activities';

/** Input of {@link floorOrder}: what shapes the run, as in a badge order input. */
export interface FloorOrderInput {
  readonly orderRef: string;
  readonly stockId?: string | number;
  readonly vehicle: Record<string, unknown>;
  readonly badge: Record<string, unknown>;
  /** Document paths (never read). */
  readonly documents: readonly string[];
  readonly maxParallelUploads?: number;
  /**
   * Also make badgeOrder's visibility writes (`--floor-search-attributes`, `--featured-floor`): the start
   * carries `BadgeOrderRef` and `BadgeOrderStatus`, one patch (a marker and a `TemporalChangeVersion` upsert),
   * `BadgeOrderId` upserted after creation, `BadgeOrderStatus` upserted at the end.
   */
  readonly searchAttributes?: boolean;
  /** Give every step a summary for the Web UI, as badgeOrder does (`--featured-floor`). */
  readonly summaries?: boolean;
}

/** Result of {@link floorOrder}. */
export interface FloorOrderResult {
  readonly orderId: number;
  readonly documents: number;
}

/** The proxies of one step, with its summary when the input asks for summaries. */
type Step = (summary: string) => FloorActivities;

/** The own-shape floor; see the module comment. */
export async function floorOrder(input: FloorOrderInput): Promise<FloorOrderResult> {
  const options = platformCallOptions(DEFAULT_ORDER_OPTIONS.platformRetryWindowMs);
  return placeAndUpload(input, (summary) =>
    proxyLocalActivities<FloorActivities>(withSummary(input, options, summary)),
  );
}

/** The naive-shape floor; see the module comment. */
export async function naiveFloorOrder(input: FloorOrderInput): Promise<FloorOrderResult> {
  const options = platformCallOptions(DEFAULT_ORDER_OPTIONS.platformRetryWindowMs);
  return placeAndUpload(input, (summary) =>
    proxyActivities<FloorActivities>(withSummary(input, options, summary)),
  );
}

function withSummary<T extends object>(input: FloorOrderInput, options: T, summary: string): T {
  return input.summaries === true ? { ...options, summary } : options;
}

async function placeAndUpload(input: FloorOrderInput, read: Step): Promise<FloorOrderResult> {
  const platformOptions = platformCallOptions(DEFAULT_ORDER_OPTIONS.platformRetryWindowMs);
  const uploadStepOptions = uploadOptions({
    retryWindowMs: DEFAULT_ORDER_OPTIONS.uploadRetryWindowMs,
    heartbeatTimeoutMs: DEFAULT_ORDER_OPTIONS.uploadHeartbeatTimeoutMs,
  });
  if (input.searchAttributes === true) patched('bench-floor-search-attributes');
  const session = await read('Sign in').authenticate();
  if (input.stockId !== undefined) {
    await read(`Look up stock ${String(input.stockId)}`).lookUpStock({ stockId: input.stockId });
  }
  const creation = proxyActivities<FloorActivities>(withSummary(input, platformOptions, 'Create order'));
  const { orderId } = await creation.createOrder({
    idempotencyKey: `${input.orderRef}:create`,
    vehicle: input.vehicle,
    badge: input.badge,
    ...(input.stockId === undefined ? {} : { stockId: input.stockId }),
  });
  if (input.searchAttributes === true) {
    upsertSearchAttributes([{ key: BadgeOrderId, value: String(orderId) }]);
  }
  const indexed = input.documents.map((path, index) => ({ path, index }));
  await runWithConcurrency(
    indexed,
    input.maxParallelUploads ?? DEFAULT_ORDER_OPTIONS.maxParallelUploads,
    async ({ path, index }) => {
      const summary = `Upload document ${index + 1}/${indexed.length} to order ${orderId}`;
      await proxyActivities<FloorActivities>(withSummary(input, uploadStepOptions, summary)).uploadDocument({
        idempotencyKey: `${input.orderRef}:doc:${index}`,
        orderId,
        documentOwner: session.userId ?? '',
        path,
      });
    },
  );
  if (input.searchAttributes === true) {
    upsertSearchAttributes([{ key: BadgeOrderStatus, value: 'Completed' }]);
  }
  return { orderId, documents: input.documents.length };
}
