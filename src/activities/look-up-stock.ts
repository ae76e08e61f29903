/**
 * Step: is the requested stock among the user's stocks? Only advice: an odd answer, paging we cannot finish or
 * an error gives "unknown", and creation's 404 stays the authority on whether the stock can be used.
 */
import { Context } from '@temporalio/activity';
import { atBoundary } from './boundary';
import type { ActivityDependencies } from './dependencies';
import type { LookUpStockInput, LookUpStockResult } from './types';

/** Creates the `lookUpStock` activity. */
export function lookUpStockActivity(
  deps: ActivityDependencies,
): (input: LookUpStockInput) => Promise<LookUpStockResult> {
  return atBoundary(async (input) => {
    const check = await deps.platform.checkStock(input.stockId, {
      signal: Context.current().cancellationSignal,
    });
    return {
      listed: check.verdict === 'unknown' ? null : check.verdict === 'listed',
      stockCount: check.stockCount,
    };
  });
}
