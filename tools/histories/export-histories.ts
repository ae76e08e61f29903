/**
 * `npm run histories:export [scenario …]`: records the histories of this release into
 * `test/histories/<version>/`, `<version>` being package.json's (see record-histories.ts and CONTRIBUTING.md, for
 * when to record them).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { runMain } from '../../src/main/run-main';
import { PROJECT_ROOT } from '../dev/child-process';
import { recordHistories } from './record-histories';

/** The version the histories are recorded with: package.json's, the folder they are written to. */
function currentVersion(): string {
  const parsed = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  if (typeof parsed.version !== 'string') throw new Error('package.json names no version');
  return parsed.version;
}

runMain(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const recorded = await recordHistories({
    outDir: join(PROJECT_ROOT, 'test', 'histories', currentVersion()),
    only: process.argv.slice(2),
    stopOnSignals: true,
    log: (line) => console.error(line),
  });
  for (const { name, file, history } of recorded) {
    console.log(`${name}: ${history.events?.length ?? 0} events -> ${file}`);
  }
});
