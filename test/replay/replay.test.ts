/**
 * Replays the recorded histories in test/histories (written by `npm run histories:export`) against the current
 * workflow code. A change to workflow code that would break orders already running — a reordered or removed
 * activity call, a new timer, a changed branch without `patched()` — fails here with a determinism error.
 * See CONTRIBUTING.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { createDataConverter } from '../../src/codec/data-converter';
import { PayloadKeyRing } from '../../src/codec/key-ring';

const HISTORIES_DIR = join(__dirname, '..', 'histories');

/** The scenarios every workflow change must stay compatible with. */
const REQUIRED = [
  'happy-path',
  'stock-fallback',
  'stock-unlisted',
  'awaiting-repair-then-replaced',
  'awaiting-repair-then-retried',
  'resumed-after-worker-kill',
];

/**
 * The files hold `JSON.stringify(history)` of the fetched history (protobufjs' JSON form). `fromObject` reads
 * it back; the SDK's own `historyFromJSON` fails under jest (two copies of protobufjs in the module registry).
 */
function recordedHistories(): { workflowId: string; history: temporal.api.history.v1.History }[] {
  return readdirSync(HISTORIES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      workflowId: file.replace(/\.json$/, ''),
      history: temporal.api.history.v1.History.fromObject(
        JSON.parse(readFileSync(join(HISTORIES_DIR, file), 'utf8')) as Record<string, unknown>,
      ),
    }));
}

async function replayAll(workflowsPath: string): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  const replay = Worker.runReplayHistories(
    {
      workflowsPath,
      // As the workers run: the failure converter of src/codec, no keys (the histories are unencrypted).
      dataConverter: createDataConverter(PayloadKeyRing.empty()),
      replayName: 'badge-order-replay',
    },
    recordedHistories(),
  );
  for await (const result of replay) results.push(result);
  return results;
}

describe('replay of recorded histories', () => {
  it('has a history for every representative scenario', () => {
    const names = recordedHistories().map((history) => history.workflowId);
    expect(names).toEqual(expect.arrayContaining(REQUIRED));
  });

  it('replays every recorded history against the current workflow code without a determinism error', async () => {
    const results = await replayAll(require.resolve('../../src/workflows'));
    expect(results).toHaveLength(recordedHistories().length);
    const failures = results
      .filter((result) => result.error !== undefined)
      .map((result) => `${result.workflowId}: ${result.error?.message ?? ''}`);
    expect(failures).toEqual([]);
  });

  it('fails for workflow code that calls the activities in another order (control case)', async () => {
    const results = await replayAll(require.resolve('./incompatible-workflow'));
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) {
      expect(result.error).toBeInstanceOf(DeterminismViolationError);
    }
  });
});
