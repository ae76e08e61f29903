/**
 * The tested `patched()` example of CONTRIBUTING.md. Release 0.2.0 changed what a new order does first: it
 * resolves its input through the `resolveOrderInput` local activity (a marker in history) instead of parsing it
 * in workflow code. Orders started on 0.1.0 never took that step, so the change is guarded by
 * `patched(PATCHES.resolvedInputRecorded)`. Here the 0.1.0 histories replay on the guarded code, and fail with a
 * determinism error on the same code with the guard taken away (every `patched` answering true).
 */
import { DeterminismViolationError } from '@temporalio/workflow';
import { WORKFLOW_TYPES } from '../../src/contract';
import { recordedHistories, workflowTypeOf } from './recorded-histories';
import { replayVariant } from './variants/replay-variant';

/** The badge orders recorded on 0.1.0, before the change. */
const beforeTheChange = recordedHistories(['0.1.0']).filter(
  (recorded) => workflowTypeOf(recorded.history) === WORKFLOW_TYPES.badgeOrder,
);

describe('patched(): recording the resolved input', () => {
  it('has orders recorded before the change, none of which holds the patch marker', () => {
    expect(beforeTheChange.length).toBeGreaterThanOrEqual(6);
    for (const recorded of beforeTheChange) {
      expect(JSON.stringify(recorded.history)).not.toContain('resolved-input-recorded');
    }
  });

  it('replays every order recorded before the change on the patched code', async () => {
    const results = await replayVariant(beforeTheChange);
    expect(results.filter((result) => result.error).map((result) => result.workflowId)).toEqual([]);
    expect(results).toHaveLength(beforeTheChange.length);
  });

  it('fails those replays with a determinism error when the change is made without patched()', async () => {
    const results = await replayVariant(beforeTheChange, [
      {
        request: '@temporalio/workflow',
        replacement: require.resolve('./variants/unguarded-patches'),
      },
    ]);
    expect(results).toHaveLength(beforeTheChange.length);
    for (const result of results) {
      expect(result.error).toBeInstanceOf(DeterminismViolationError);
    }
  });
});
