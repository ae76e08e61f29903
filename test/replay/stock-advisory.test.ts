/**
 * Since 0.4.0 the stock lookup only advises; before, a complete list without the stock made the order go without
 * it. Orders recorded before keep their path (`patched('stock-lookup-advisory')`). The change issues the same
 * commands with another input (`createOrder` with the stock instead of without), and core matches an activity by
 * its type and place, not its input: without the guard the replay would pass silently while the order claimed
 * a stock it was never created with. Here a replay reports the stock each `createOrder` is scheduled with.
 */
import { recordedHistories } from './recorded-histories';
import { replayVariant } from './variants/replay-variant';
import { PayloadKeyRing } from '../../src/codec/key-ring';
import type { CreationSinks } from './variants/record-creations';

/** The orders recorded before 0.4.0 whose stock a complete list lacked (stock 999). */
const unlisted = recordedHistories().filter(
  (recorded) =>
    recorded.scenario === 'stock-unlisted' &&
    recorded.version.localeCompare('0.4.0', 'en', { numeric: true }) < 0,
);

/** The stock of every `createOrder` the replayed code schedules, and the replay's errors. */
async function creationsOnReplay(unguarded: boolean): Promise<{ stocks: unknown[]; errors: unknown[] }> {
  const stocks: unknown[] = [];
  const results = await replayVariant(
    unlisted,
    unguarded
      ? [
          {
            request: '@temporalio/workflow',
            replacement: require.resolve('./variants/stock-advisory-unguarded'),
          },
        ]
      : [],
    PayloadKeyRing.empty(),
    {
      sinks: {
        creations: {
          created: {
            fn: (_info: unknown, stockId: unknown): void => {
              stocks.push(stockId);
            },
            callDuringReplay: true,
          },
        },
      } satisfies { [K in keyof CreationSinks]: unknown },
      interceptors: { workflowModules: [require.resolve('./variants/record-creations')] },
    },
  );
  return { stocks, errors: results.filter((result) => result.error).map((result) => result.error) };
}

describe('patched(stock-lookup-advisory)', () => {
  it('has an unlisted-stock order recorded on every release before the change', () => {
    expect(unlisted.map((recorded) => recorded.version)).toEqual(['0.1.0', '0.2.0', '0.3.0']);
  });

  it('replays those orders as they ran: created without the stock the list lacked', async () => {
    expect(await creationsOnReplay(false)).toEqual({ stocks: [null, null, null], errors: [] });
  });

  it('would replay them silently with the stock when the change were made without patched()', async () => {
    // The 0.3.0 order takes the new path: no determinism error, and a creation with the stock it never had.
    const { stocks, errors } = await creationsOnReplay(true);
    expect(errors).toEqual([]);
    expect(stocks.filter((stock) => stock === '999')).toHaveLength(1);
    expect(stocks.filter((stock) => stock === null)).toHaveLength(2);
  });
});
