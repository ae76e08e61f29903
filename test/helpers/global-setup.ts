/**
 * Runs once before all test files: makes sure the Temporal CLI is installed, so parallel test files never
 * race to install it.
 */
import { describeTemporalCli, resolveTemporalCli } from '../../tools/dev/temporal-cli';

export default async function globalSetup(): Promise<void> {
  const cli = await resolveTemporalCli({ log: (message) => console.log(message) });
  if (cli.kind === 'binary') process.env.TEMPORAL_CLI_PATH = cli.path;
  console.log(`\n${describeTemporalCli(cli)}`);
}
