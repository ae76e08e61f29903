/** Entry point of `npm run ops -- <command>`: configuration from the environment, then {@link runOps}. */
import { ConfigError, loadPlatformConfig, loadTemporalConfig } from '../config';
import { createLogger } from '../logging';
import { platformClientFromConfig } from '../worker/platform-client';
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
      platformClient: (baseUrl) =>
        platformClientFromConfig(
          { ...loadPlatformConfig(), ...(baseUrl !== undefined && { baseUrl }) },
          { logger: createLogger({ level: 'warn', name: 'badge-orders-probe' }) },
        ),
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
