/**
 * `npm run dev-server`: a Temporal dev server with its Web UI and the service's search attributes, kept in
 * `.data/temporal.db` across restarts. Ctrl-C stops it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './child-process';
import { CleanupList } from '../stack/cleanup';
import { startDevServer } from './dev-server';
import { runMain } from '../../src/main/run-main';

async function main(): Promise<void> {
  const dataDir = join(PROJECT_ROOT, '.data');
  mkdirSync(dataDir, { recursive: true });
  const cleanups = new CleanupList();
  cleanups.stopOnSignals();
  const server = await startDevServer({
    port: 7233,
    uiPort: 8233,
    dbFilename: join(dataDir, 'temporal.db'),
    log: (message) => console.log(message),
  });
  cleanups.add('the dev server', () => server.stop());
  console.log(
    `Temporal dev server at ${server.address}, Web UI at ${server.uiUrl ?? '(headless)'}. Ctrl-C stops it.`,
  );
}

runMain(main);
