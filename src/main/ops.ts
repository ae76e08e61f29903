/** Entry point of `npm run ops -- <command>`: configuration from the environment, then {@link runOps}. */
import { ConfigError, loadTemporalConfig } from '../config';
import { lazyClient } from '../temporal/connection';
import { runOps } from '../commands/ops-command';

async function main(): Promise<number> {
  const config = loadTemporalConfig();
  const client = lazyClient(config);
  try {
    return await runOps(process.argv.slice(2), {
      client,
      taskQueue: config.taskQueue,
      webUiUrl: config.webUiUrl,
      out: (text) => process.stdout.write(`${text}\n`),
      err: (text) => process.stderr.write(`${text}\n`),
    });
  } finally {
    await client.connection.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(
      error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error),
    );
    process.exitCode = 1;
  },
);
