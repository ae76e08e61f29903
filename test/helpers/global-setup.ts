/**
 * Runs once before all test files: refuses a Node.js the service refuses (its workers run in-process here, so
 * the tests would otherwise wait out their timeouts), and makes sure the Temporal CLI is installed, so parallel
 * test files never race to install it.
 */
import { unsupportedRuntime } from '../../src/main/run-main';
import { describeTemporalCli, resolveTemporalCli } from '../../tools/dev/temporal-cli';

export default async function globalSetup(): Promise<void> {
  const unsupported = unsupportedRuntime();
  if (unsupported !== null) throw new Error(unsupported);
  const cli = await resolveTemporalCli({ log: (message) => console.log(message) });
  if (cli.kind === 'binary') process.env.TEMPORAL_CLI_PATH = cli.path;
  console.log(`\n${describeTemporalCli(cli)}`);
}
