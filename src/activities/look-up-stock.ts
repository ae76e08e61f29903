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
  return atBoundary((input) => lookUpStock(deps, input.stockId, Context.current().cancellationSignal));
}

/** Looks the stock up; only `signal`'s abort throws. */
export async function lookUpStock(
  deps: ActivityDependencies,
  stockId: LookUpStockInput['stockId'],
  signal: AbortSignal,
): Promise<LookUpStockResult> {
  const check = await deps.platform.checkStock(stockId, { signal });
  return {
    listed: check.verdict === 'unknown' ? null : check.verdict === 'listed',
    stockCount: check.stockCount,
  };
}
