/**
 * A deliberately incompatible `badgeOrder` for the replay test's control case: it calls the activities in
 * another order (stock lookup before authentication), as a careless refactoring might. Replaying the recorded
 * histories against it must fail, which proves the replay test can catch such a change.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../../src/activities';
import type { BadgeOrderInput } from '../../src/contract';

type Activities = ReturnType<typeof createActivities>;
const platform = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });

/** Same name and input as the real workflow; swapped activity calls. */
export async function badgeOrder(input: BadgeOrderInput): Promise<void> {
  await platform.lookUpStock({ stockId: input.stockId ?? 0 });
  await platform.authenticate();
}
