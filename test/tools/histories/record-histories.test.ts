/**
 * The release tooling that records the replay tests' histories (`npm run histories:export`, CONTRIBUTING.md):
 * every scenario still runs to its end on this code, each recorded run is written as a file, and what it wrote
 * replays on the current workflow code. So a release finds its recorder working, not broken since the last one.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordHistories, SCENARIO_NAMES } from '../../../tools/histories/record-histories';
import { replayVariant } from '../../replay/variants/replay-variant';

/** Fifteen scenarios on one stack, a worker killed and restarted among them, on a loaded machine. */
jest.setTimeout(600_000);

describe('recording the histories of a release', () => {
  let outDir: string;
  beforeAll(() => {
    outDir = mkdtempSync(join(tmpdir(), 'badge-histories-'));
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('runs every scenario, writes each run, and what it wrote replays on the current code', async () => {
    const recorded = await recordHistories({ outDir, log: () => undefined });

    const scenarios = new Set(recorded.map(({ name }) => name.replace(/-next-run$/, '')));
    expect([...scenarios].sort()).toEqual([...SCENARIO_NAMES].sort());
    expect(readdirSync(outDir).sort()).toEqual(recorded.map(({ name }) => `${name}.json`).sort());
    for (const { file, history } of recorded) {
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(history)));
    }

    const results = await replayVariant(recorded.map(({ name, history }) => ({ workflowId: name, history })));
    const errors = Object.fromEntries(results.map(({ workflowId, error }) => [workflowId, error?.message]));
    expect(errors).toEqual(Object.fromEntries(recorded.map(({ name }) => [name, undefined])));
  });
});
