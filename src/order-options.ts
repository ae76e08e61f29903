/**
 * An order's options with today's defaults, and its input as the workflow runs it: validated, with every option
 * resolved to a number. Resolved once, when the order starts (the order's first local activity), and then
 * carried: in history (the local activity's marker), through continue-as-new and in the `status` query. A later
 * release that tightens the schema or changes a default therefore never changes an order already running:
 * replay takes the resolved input from history, not from today's code. Used by that activity and by the
 * workflow; it imports the contract for its types only, so workflow code does not build the contract's schemas.
 */
import type { BadgeOrderOptions, ResolvedBadgeOrderOptions, ValidBadgeOrderInput } from './contract';

/** Default tuning of one order (see `badgeOrderOptionsSchema`). */
export const DEFAULT_ORDER_OPTIONS = {
  maxParallelUploads: 4,
  uploadRetryWindowMs: 30 * 60 * 1000,
  uploadHeartbeatTimeoutMs: 60 * 1000,
  platformRetryWindowMs: 24 * 60 * 60 * 1000,
  repairWindowMs: 7 * 24 * 60 * 60 * 1000,
  reconciliationWindowMs: 7 * 24 * 60 * 60 * 1000,
  replacementGraceMs: 24 * 60 * 60 * 1000,
  // A run checks its history before each repair wait; one more upload round of a 500-document order adds about
  // 3,000 events, so a run stays under 10 % of the server's 51,200-event limit.
  historyBudgetEvents: 2_000,
} as const;

/** A validated order input whose options are all resolved. */
export type ResolvedBadgeOrderInput = ValidBadgeOrderInput & { readonly options: ResolvedBadgeOrderOptions };

/** `options` with today's defaults for those it leaves out. */
export function withDefaultOptions(options: BadgeOrderOptions | undefined): ResolvedBadgeOrderOptions {
  return { ...DEFAULT_ORDER_OPTIONS, ...options };
}
