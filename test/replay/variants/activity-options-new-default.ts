/**
 * `src/workflows/activity-options.ts` as a later release might ship it: one default changed
 * (`maxParallelUploads` 4 → 1). An order that took its options from the code it replays on would schedule its
 * uploads differently on replay; one that recorded its resolved options does not notice.
 */
import * as released from '../../../src/workflows/activity-options';

export * from '../../../src/workflows/activity-options';

/** The changed default. */
export const DEFAULT_ORDER_OPTIONS = { ...released.DEFAULT_ORDER_OPTIONS, maxParallelUploads: 1 } as const;
