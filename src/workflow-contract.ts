/**
 * The names of the contract that workflow code needs at run time: workflow types, search attribute keys, order
 * statuses, webhook event types, a document's source. No zod and no import of the rest of the contract: a
 * workflow execution evaluates every module it imports eagerly (its bundle keeps a module cache per execution), and
 * building the contract's schemas (src/contract.ts, which builds on these names) would cost every order about
 * 2 ms of CPU. Workflow code loads the schemas only when it parses something (`src/workflows/contract-schemas.ts`).
 * Deterministic like the rest of workflow code: no Node built-ins, no I/O.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Workflow type names as registered by the worker. */
export const WORKFLOW_TYPES = {
  badgeOrder: 'badgeOrder',
  replayFailedUploads: 'replayFailedUploads',
} as const;

/** Search attribute: the caller's order reference. */
export const BadgeOrderRef = defineSearchAttributeKey('BadgeOrderRef', SearchAttributeType.KEYWORD);
/** Search attribute: the platform's order id, once the order is created. */
export const BadgeOrderId = defineSearchAttributeKey('BadgeOrderId', SearchAttributeType.KEYWORD);
/** Search attribute: where the order stands, one of {@link BADGE_ORDER_STATUSES}. */
export const BadgeOrderStatus = defineSearchAttributeKey('BadgeOrderStatus', SearchAttributeType.KEYWORD);
/**
 * Search attribute: the client that owns the order (its `clientId`: the API client that placed it), set when the
 * order starts. Absent for orders placed without a client (the starter, the TypeScript client without one).
 */
export const BadgeOrderClient = defineSearchAttributeKey('BadgeOrderClient', SearchAttributeType.KEYWORD);

/** Every custom search attribute the service needs on its namespace. */
export const BADGE_SEARCH_ATTRIBUTES = [
  BadgeOrderRef,
  BadgeOrderId,
  BadgeOrderStatus,
  BadgeOrderClient,
] as const;

/** Values of the `BadgeOrderStatus` search attribute. */
export const BADGE_ORDER_STATUSES = [
  'Running',
  'AwaitingRepair',
  'AwaitingReconciliation',
  'Completed',
  'Failed',
  'Cancelled',
] as const;
/** Where an order stands, as operators filter for it in the Web UI. */
export type BadgeOrderStatusValue = (typeof BADGE_ORDER_STATUSES)[number];

/** The transitions an order sends a webhook for (docs/webhooks.md), by the status it enters. */
export const WEBHOOK_EVENT_TYPES = {
  AwaitingRepair: 'order.awaiting_repair',
  AwaitingReconciliation: 'order.awaiting_reconciliation',
  Completed: 'order.completed',
  Failed: 'order.failed',
  Cancelled: 'order.cancelled',
} as const satisfies Partial<Record<BadgeOrderStatusValue, string>>;

/**
 * Where a document's bytes come from: its `ref` when it has one, else its `path`. This string is the document's
 * key in the order (`DocumentState.path`, the `path` of `replaceDocument`) and the source the worker opens.
 */
export function documentSourceOf(document: { readonly path?: string; readonly ref?: string }): string {
  const source = document.ref ?? document.path;
  // Unreachable after validation; a plain error names the bug instead of uploading "undefined".
  if (source === undefined) throw new Error('a document has neither path nor ref');
  return source;
}

/**
 * The `Idempotency-Key` an order's creation is sent with: one per run of the order's workflow id, one for
 * ordering without the stock, and a new one each time a creation the platform refused because of a setting is
 * sent again (`repairs`). The workflow sends it; the client names it when an order may exist.
 */
export function creationIdempotencyKey(workflowId: string, withStock: boolean, repairs = 0): string {
  const key = withStock ? `${workflowId}:create` : `${workflowId}:create:without-stock`;
  // After a refusal fixed by a setting a new key: a platform may answer a key it saw with its first answer.
  return repairs === 0 ? key : `${key}:r${repairs}`;
}
