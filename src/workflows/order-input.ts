/** What an order shows before its input is resolved. */
import type { BadgeOrderStatusView } from '../contract';
import { DocumentTracker } from './document-tracker';

/**
 * The `status` answer while a new order's input is being resolved (a moment, before the first step): what
 * the raw input shows, read defensively, because it is not validated yet.
 */
export function startingView(input: unknown): BadgeOrderStatusView {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const listed: readonly unknown[] = Array.isArray(fields.documents) ? fields.documents : [];
  const paths = listed.flatMap((document) => {
    const path: unknown =
      typeof document === 'object' && document !== null ? (document as { path?: unknown }).path : undefined;
    return typeof path === 'string' ? [{ path }] : [];
  });
  return {
    orderRef: typeof fields.orderRef === 'string' ? fields.orderRef : '',
    phase: 'authenticating',
    searchStatus: 'Running',
    orderId: null,
    stockFallback: false,
    stockFallbackReason: null,
    documents: new DocumentTracker(paths, '').view(),
    repairDeadline: null,
    reconciliation: null,
    reconciliationDeadline: null,
    failure: null,
  };
}
