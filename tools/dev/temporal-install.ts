/**
 * `npm run temporal:install`: finds or installs the Temporal CLI and says which one will be used.
 * Where only the SDK's download is left, it starts and stops a server once to prove the download works.
 */
import { describeTemporalCli, helpMessage, resolveTemporalCli } from './temporal-cli';
import { runMain } from '../../src/main/run-main';

async function main(): Promise<void> {
  const log = (message: string): void => console.log(message);
  const cli = await resolveTemporalCli({ log });
  if (cli.kind === 'sdk-download') {
    log('Trying the Temporal SDK download (needs internet) ...');
    try {
      // Loaded only here: the SDK is heavy and the common path should answer at once.
      const { startDevServer } = await import('./dev-server');
      const server = await startDevServer({ cli });
      await server.stop();
    } catch (error) {
      throw new Error(
        helpMessage(`the SDK download failed: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  }
  log(`Using ${describeTemporalCli(cli)}`);
}

runMain(main);
