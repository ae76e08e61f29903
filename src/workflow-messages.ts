/**
 * The `badgeOrder` workflow's signals, queries and updates, defined once for the workflow, the client, the ops
 * CLI and the HTTP API. Their argument and answer types come from the contract's schemas (src/contract.ts) as
 * types only, so workflow code that registers the handlers builds no schema.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  BadgeOrderStatusView,
  DocumentState,
  ReconcileDocumentInput,
  ReconcileOrderInput,
  ReplaceDocumentInput,
  SetDocumentOwnerInput,
} from './contract';

/** Query: the order's phase and each document's state. */
export const statusQuery = defineQuery<BadgeOrderStatusView>('status');
/**
 * Signal: retry every failed document now; with `skipHeld` (the nightly replay) every one but those held for a
 * person (see `DocumentState.held`).
 */
export const retryUploadsSignal = defineSignal<[{ readonly skipHeld?: boolean }?]>('retryUploads');
/** Update: swap a failed document's file, retry it and return its new state. */
export const replaceDocumentUpdate = defineUpdate<DocumentState, [ReplaceDocumentInput]>('replaceDocument');
/** Update: resolve an order awaiting reconciliation; returns the order's status after the answer is taken. */
export const reconcileOrderUpdate = defineUpdate<BadgeOrderStatusView, [ReconcileOrderInput]>(
  'reconcileOrder',
);
/**
 * Update: a person's answer about a held document after checking the platform: stored under an id (it counts as
 * uploaded) or not stored (sent again now). Returns the order's status.
 */
export const reconcileDocumentUpdate = defineUpdate<BadgeOrderStatusView, [ReconcileDocumentInput]>(
  'reconcileDocument',
);
/**
 * Update: correct whose documents these are after the platform refused the owner (422 naming
 * `document_owner`); the failed documents are sent again with the new owner. Returns the order's status.
 */
export const setDocumentOwnerUpdate = defineUpdate<BadgeOrderStatusView, [SetDocumentOwnerInput]>(
  'setDocumentOwner',
);
