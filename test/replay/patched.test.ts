/**
 * The tested `patched()` examples of CONTRIBUTING.md, one per change of what a new order does first:
 * - 0.2.0 resolves the input through the `resolveOrderInput` local activity (a marker in history) instead of
 *   parsing it in workflow code (`resolved-input-recorded`);
 * - 0.3.0 resolves the input and signs in through one local activity, `resolveInputAndSignIn`, asking only its
 *   own patch (`input-with-sign-in`).
 * Orders started before a change never took its path, so it is guarded by `patched()`. Here the histories
 * recorded before each change replay on the guarded code, and fail on the same code with the guards taken away
 * (every `patched` answering true): the first change with a determinism error; the second with one, or with a
 * failed workflow task, because core matches a local activity's marker by its place, not its type, so the new
 * code may get `resolveOrderInput`'s recorded answer where it expects `resolveInputAndSignIn`'s, and fail on
 * it. A running order would be stuck either way. Last, the guard of a change deep in an order: 0.6.0 holds an
 * uncertain creation that 0.5.0 failed as rejected (`uncertain-creation-held`), tested on the one recorded
 * order that took that path. And 0.7.0's four fixes under one patch (`fixes-0.7.0`), each on a 0.6.0 order that
 * took the path it changes.
 */
import { ReplayError } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { WORKFLOW_TYPES } from '../../src/workflow-contract';
import { PATCHES } from '../../src/workflows/patches';
import { recordedHistories, workflowTypeOf } from './recorded-histories';
import { replayVariant } from './variants/replay-variant';

describe.each([
  { patch: PATCHES.resolvedInputRecorded, recordedBefore: '0.1.0', failsWith: [DeterminismViolationError] },
  {
    patch: PATCHES.inputWithSignIn,
    recordedBefore: '0.2.0',
    failsWith: [DeterminismViolationError, ReplayError],
  },
])('patched($patch)', ({ patch, recordedBefore, failsWith }) => {
  /** The badge orders recorded on the release before the change. */
  const beforeTheChange = recordedHistories([recordedBefore]).filter(
    (recorded) => workflowTypeOf(recorded.history) === WORKFLOW_TYPES.badgeOrder,
  );

  it(`has orders recorded on ${recordedBefore}, none of which holds the patch marker`, () => {
    expect(beforeTheChange.length).toBeGreaterThanOrEqual(6);
    for (const recorded of beforeTheChange) {
      expect(JSON.stringify(recorded.history)).not.toContain(patch);
    }
  });

  it('replays every order recorded before the change on the patched code', async () => {
    const results = await replayVariant(beforeTheChange);
    expect(results.filter((result) => result.error).map((result) => result.workflowId)).toEqual([]);
    expect(results).toHaveLength(beforeTheChange.length);
  });

  it(`fails those replays (${failsWith.map((type) => type.name).join(' or ')}) when the change is made without patched()`, async () => {
    const results = await replayVariant(beforeTheChange, [
      {
        request: '@temporalio/workflow',
        replacement: require.resolve('./variants/unguarded-patches'),
      },
    ]);
    expect(results).toHaveLength(beforeTheChange.length);
    for (const result of results) {
      expect(failsWith.some((type) => result.error instanceof type)).toBe(true);
    }
  });
});

describe(`patched(${PATCHES.uncertainCreationHeld})`, () => {
  // On 0.5.0 an order whose creation may have taken effect failed as rejected once its retry window passed.
  const gaveUp = recordedHistories(['0.5.0']).filter(
    (recorded) => recorded.scenario === 'creation-uncertain-until-window-passed',
  );

  it('replays the 0.5.0 order that failed as rejected after an uncertain creation on the patched code', async () => {
    expect(gaveUp).toHaveLength(1);
    const results = await replayVariant(gaveUp);
    expect(results.map((result) => result.error)).toEqual([undefined]);
  });

  it('fails that replay with a determinism error when the change is made without patched()', async () => {
    const results = await replayVariant(gaveUp, [
      { request: '@temporalio/workflow', replacement: require.resolve('./variants/unguarded-patches') },
    ]);
    expect(results).toHaveLength(1);
    expect(results[0]?.error).toBeInstanceOf(DeterminismViolationError);
  });
});

describe(`patched(${PATCHES.fixes070})`, () => {
  // Recorded on 0.6.0, one per fix (no payload codec, as the export records): a replacement queued while the run
  // was about to continue as new (stuck, then cancelled); creation resumed after {notCreated: true} once the
  // retry window had passed (rejected at the next 429); setDocumentOwner while a document was held (sent again);
  // a first step that failed for another reason than the input (the status left Running).
  const scenarios = [
    'replacement-while-continuing-then-cancelled',
    'creation-resumed-after-window',
    'owner-corrected-while-held',
    'first-step-failed',
  ];
  const before = recordedHistories(['0.6.0']).filter((recorded) => scenarios.includes(recorded.scenario));

  it('replays each 0.6.0 order that took a path the fixes change on the patched code', async () => {
    expect(before.map((recorded) => recorded.scenario).sort()).toEqual([...scenarios].sort());
    const results = await replayVariant(before);
    expect(results.map((result) => [result.workflowId, result.error])).toEqual(
      before.map((recorded) => [recorded.workflowId, undefined]),
    );
  });

  it('fails each of those replays with a determinism error when the fixes are made without their patch', async () => {
    const results = await replayVariant(before, [
      { request: './patches', replacement: require.resolve('./variants/fixes-unguarded') },
    ]);
    expect(results).toHaveLength(before.length);
    for (const result of results) {
      expect({ order: result.workflowId, error: result.error?.name }).toEqual({
        order: result.workflowId,
        error: DeterminismViolationError.name,
      });
      // Where the fix changes what the order does, not on a patch marker.
      expect(result.error?.message).not.toMatch(/patch marker/);
    }
  });
});
