/**
 * The document collector: deletes stored documents that no order needs any more, so uploads do not pile up
 * forever. A document is deleted only when all of these hold:
 *
 * - nobody stored it or named it in an order (`PUT /v1/orders/…` claims each reference) for the grace period;
 * - no running order names it: every running order is asked (its `status` query lists each document's source
 *   and replacement), so an order uploading it, or waiting in `AwaitingRepair` for days, keeps it; an order
 *   that does not answer stops the whole round (nothing is deleted on a partial answer);
 * - it is still unused when it is deleted: the store looks again right before (a document stored again, or
 *   claimed, meanwhile is kept).
 *
 * An upload in progress is not a stored document yet (it lands in the store's `incoming/` first, and nothing
 * there is touched), and it is fresh once stored.
 */
import type { Logger } from 'pino';
import type { BadgeOrdersClient } from '../client/badge-orders-client';
import { isDocumentReference } from '../contract';
import type { DocumentStore } from '../documents';

/** How long each running order may take to answer. */
const QUERY_TIMEOUT_MS = 10_000;

interface CollectDocumentsInput {
  readonly store: DocumentStore;
  readonly orders: BadgeOrdersClient;
  /** How long a document stays after it was last stored or claimed (`DOCUMENT_COLLECTION_GRACE_MS`). */
  readonly graceMs: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * One round of collection; see the module comment. Throws (deleting nothing) when a running order does not answer.
 * Answers what it did: documents `stored`, of them `unused` for the grace period, of those `inUse` by a running
 * order (so kept), and `deleted`.
 */
export async function collectDocuments(input: CollectDocumentsInput) {
  const unusedSince = new Date((input.now ?? Date.now)() - input.graceMs);
  const stored = await input.store.listStored();
  const unused = stored.filter((document) => document.lastUsedAt < unusedSince);
  if (unused.length === 0) return { stored: stored.length, unused: 0, inUse: 0, deleted: 0 };
  const named = await input.orders.documentsOfRunningOrders({
    queryTimeoutMs: QUERY_TIMEOUT_MS,
  });
  const inUse = new Set([...named].filter(isDocumentReference));
  let deleted = 0;
  for (const { ref } of unused) {
    if (!inUse.has(ref) && (await input.store.remove(ref, { unusedSince }))) deleted += 1;
  }
  return {
    stored: stored.length,
    unused: unused.length,
    inUse: unused.filter(({ ref }) => inUse.has(ref)).length,
    deleted,
  };
}

/**
 * Collects every `intervalMs` (the first round after one interval) until stopped; a failed round is logged and
 * the next one tries again. Returns the function that stops it (and waits for a round in progress).
 */
export function startDocumentCollector(
  input: CollectDocumentsInput & { readonly intervalMs: number; readonly logger?: Logger },
): () => Promise<void> {
  let round: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    round = round.then(async () => {
      try {
        const result = await collectDocuments(input);
        if (result.deleted > 0 || result.inUse > 0) input.logger?.info(result, 'document collection');
      } catch (error) {
        input.logger?.warn({ err: error }, 'document collection stopped; the next round tries again');
      }
    });
  }, input.intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await round;
  };
}
