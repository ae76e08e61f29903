/**
 * `src/order-options.ts` as a later release might ship it: one default changed (`maxParallelUploads` 4 → 1). An
 * order that took its options from the code it replays on would schedule its uploads differently on replay; one
 * that recorded its resolved options does not notice.
 */
import type { BadgeOrderOptions, ResolvedBadgeOrderOptions } from '../../../src/contract';
import * as released from '../../../src/order-options';

export * from '../../../src/order-options';

/** The changed default. */
export const DEFAULT_ORDER_OPTIONS = { ...released.DEFAULT_ORDER_OPTIONS, maxParallelUploads: 1 } as const;

/** As released, over the changed default (the released function keeps the released defaults). */
export function withDefaultOptions(options: BadgeOrderOptions | undefined): ResolvedBadgeOrderOptions {
  return { ...DEFAULT_ORDER_OPTIONS, ...options };
}
