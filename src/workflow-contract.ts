/**
 * The part of the contract (src/contract.ts, which exports all of it too) that workflow code needs at run time:
 * workflow types, search attribute keys, message definitions, webhook event types. It holds no zod schema, so a
 * workflow execution — whose bundle evaluates every module it imports once per execution — does not build the
 * contract's schemas (about 2 ms of CPU per order); workflow code loads those only when it parses something.
 * Deterministic like the rest of workflow code: no Node built-ins, no I/O.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type {
  BadgeOrderStatusValue,
  BadgeOrderStatusView,
  DocumentState,
  ReconcileOrderInput,
  ReplaceDocumentInput,
  SetDocumentOwnerInput,
} from './contract';

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

/** The transitions an order sends a webhook for (docs/webhooks.md), by the status it enters. */
export const WEBHOOK_EVENT_TYPES = {
  AwaitingRepair: 'order.awaiting_repair',
  AwaitingReconciliation: 'order.awaiting_reconciliation',
  Completed: 'order.completed',
  Failed: 'order.failed',
  Cancelled: 'order.cancelled',
} as const satisfies Partial<Record<BadgeOrderStatusValue, string>>;

/** Query: the order's phase and each document's state. */
export const statusQuery = defineQuery<BadgeOrderStatusView>('status');
/** Signal: retry every failed document now. */
export const retryUploadsSignal = defineSignal('retryUploads');
/** Update: swap a failed document's file, retry it and return its new state. */
export const replaceDocumentUpdate = defineUpdate<DocumentState, [ReplaceDocumentInput]>('replaceDocument');
/** Update: resolve an order awaiting reconciliation; returns the order's status after the answer is taken. */
export const reconcileOrderUpdate = defineUpdate<BadgeOrderStatusView, [ReconcileOrderInput]>(
  'reconcileOrder',
);
/**
 * Update: correct whose documents these are after the platform refused the owner (422 naming
 * `document_owner`); the failed documents are sent again with the new owner. Returns the order's status.
 */
export const setDocumentOwnerUpdate = defineUpdate<BadgeOrderStatusView, [SetDocumentOwnerInput]>(
  'setDocumentOwner',
);
