/**
 * `npm run demo`: the whole service on embedded defaults — a Temporal dev server with its Web UI.
 * Ctrl-C stops everything it started.
 */
import { startDevServer } from '../src/dev/dev-server';

async function main(): Promise<void> {
  const server = await startDevServer({ uiPort: 8233, port: 7233, log: (message) => console.log(message) });
  console.log(`Temporal Web UI: ${server.uiUrl ?? '(headless)'} — press Ctrl-C to stop.`);
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
