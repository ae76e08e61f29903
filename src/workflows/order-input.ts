/**
 * An order's input as the workflow uses it: validated, with every option resolved to a number. Resolved once,
 * when the order starts, and then carried: in history (the local activity's marker), through continue-as-new
 * and in the `status` query. A later release that tightens the schema or changes a default therefore never
 * changes an order already running — replay takes the resolved input from history, not from today's code.
 */
import type {
  BadgeOrderOptions,
  BadgeOrderStatusView,
  ResolvedBadgeOrderOptions,
  ValidBadgeOrderInput,
} from '../contract';
import { DEFAULT_ORDER_OPTIONS } from './activity-options';
import { contractSchemas } from './contract-schemas';
import { DocumentTracker } from './document-tracker';

/** A validated order input whose options are all resolved. */
export type ResolvedBadgeOrderInput = ValidBadgeOrderInput & { readonly options: ResolvedBadgeOrderOptions };

/** The options of `input` with today's defaults for those it leaves out. */
export function withDefaultOptions(options: BadgeOrderOptions | undefined): ResolvedBadgeOrderOptions {
  return { ...DEFAULT_ORDER_OPTIONS, ...options };
}

/**
 * Validates an order input and resolves its options; throws `InvalidOrderInputError` naming each invalid
 * field. Run by the `resolveOrderInput` local activity when an order starts, never again on replay.
 */
export function resolveBadgeOrderInput(input: unknown): ResolvedBadgeOrderInput {
  // Runs in the activity; workflow code that imports this module for the rest does not build the schemas.
  const valid = contractSchemas().parseBadgeOrderInput(input);
  return { ...valid, options: withDefaultOptions(valid.options) };
}

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
