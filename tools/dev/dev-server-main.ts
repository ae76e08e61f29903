/**
 * `npm run dev-server`: a Temporal dev server with its Web UI and the service's search attributes, kept in
 * `.data/temporal.db` across restarts. Ctrl-C stops it.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startDevServer } from './dev-server';

async function main(): Promise<void> {
  const dataDir = resolve(__dirname, '..', '.data');
  mkdirSync(dataDir, { recursive: true });
  const server = await startDevServer({
    port: 7233,
    uiPort: 8233,
    dbFilename: join(dataDir, 'temporal.db'),
    log: (message) => console.log(message),
  });
  console.log(
    `Temporal dev server at ${server.address}, Web UI at ${server.uiUrl ?? '(headless)'}. Ctrl-C stops it.`,
  );
  const stop = (): void => {
    void server.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
