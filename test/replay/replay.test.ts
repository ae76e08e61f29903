/**
 * Replays the recorded histories of every released version (test/histories/<version>/, written by
 * `npm run histories:export`) against the current workflow code. A change to workflow code that would break
 * orders already running — a reordered or removed activity call, a new timer, a changed branch without
 * `patched()` — fails here with a determinism error. See CONTRIBUTING.md.
 */
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, type ReplayResult, type ReplayWorkerOptions } from '@temporalio/worker';
import { createDataConverter } from '../../src/codec/data-converter';
import { PayloadKeyRing } from '../../src/codec/key-ring';
import { buildServiceBundle } from '../../src/workflow-bundle';
import { WORKFLOW_TYPES } from '../../src/workflow-contract';
import {
  historyVersions,
  recordedHistories,
  workflowTypeOf,
  type RecordedHistory,
} from './recorded-histories';

/** The scenarios the newest version folder must hold: every change must stay compatible with them. */
const REQUIRED = [
  'happy-path',
  'stock-fallback',
  'stock-unlisted',
  'awaiting-repair-then-replaced',
  'awaiting-repair-then-retried',
  'resumed-after-worker-kill',
  'reconciled-by-operator',
  'continued-as-new-awaiting-repair',
  'nightly-replay',
  'creation-uncertain-until-window-passed',
  'upload-held-then-reconciled',
  'replacement-while-continuing-then-cancelled',
  'creation-resumed-after-window',
  'owner-corrected-while-held',
  'first-step-failed',
];

async function replayAll(
  code: Pick<ReplayWorkerOptions, 'workflowsPath' | 'workflowBundle'>,
  histories: readonly RecordedHistory[],
): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  const replay = Worker.runReplayHistories(
    {
      ...code,
      // As the workers run: the failure converter of src/codec, no keys (the histories are unencrypted).
      dataConverter: createDataConverter(PayloadKeyRing.empty()),
      replayName: 'badge-order-replay',
    },
    histories.map(({ workflowId, history }) => ({ workflowId, history })),
  );
  for await (const result of replay) results.push(result);
  return results;
}

describe('replay of recorded histories', () => {
  it('keeps the histories per released version, the newest holding every representative scenario', () => {
    const versions = historyVersions();
    expect(versions.length).toBeGreaterThan(0);
    for (const version of versions) expect(version).toMatch(/^\d+\.\d+\.\d+([-+][\w.-]+)?$/);
    const newest = versions[versions.length - 1] ?? '';
    const scenarios = recordedHistories([newest]).map((history) => history.scenario);
    expect(scenarios).toEqual(expect.arrayContaining(REQUIRED));
  });

  it('records both workflow types', () => {
    const types = new Set(recordedHistories().map((recorded) => workflowTypeOf(recorded.history)));
    expect([...types].sort()).toEqual([WORKFLOW_TYPES.badgeOrder, WORKFLOW_TYPES.replayFailedUploads].sort());
  });

  it('replays every history of every version against the current workflow code without a determinism error', async () => {
    const histories = recordedHistories();
    // The bundle the workers run: the workflows with the service's interceptors, built by its bundler options.
    const results = await replayAll({ workflowBundle: await buildServiceBundle() }, histories);
    expect(results.map((result) => result.workflowId).sort()).toEqual(
      histories.map((history) => history.workflowId).sort(),
    );
    const failures = results
      .filter((result) => result.error !== undefined)
      .map((result) => `${result.workflowId}: ${result.error?.message ?? ''}`);
    expect(failures).toEqual([]);
  });

  it('fails for workflow code that calls the activities in another order (control case)', async () => {
    const orders = recordedHistories().filter(
      (recorded) => workflowTypeOf(recorded.history) === WORKFLOW_TYPES.badgeOrder,
    );
    const results = await replayAll({ workflowsPath: require.resolve('./incompatible-workflow') }, orders);
    expect(results).toHaveLength(orders.length);
    for (const result of results) {
      expect(result.error).toBeInstanceOf(DeterminismViolationError);
    }
  });
});
