/** Entry point of `npm run ops -- <command>`: configuration from the environment, then {@link runOps}. */
import { loadPlatformConfig, loadTemporalConfig } from '../config';
import { createLogger } from '../logging';
import { platformClientFromConfig } from '../worker/platform-client';
import { lazyClient } from '../temporal/connection';
import { runOps, type OpsTemporal } from '../commands/ops-command';
import { runMain } from './run-main';

async function main(): Promise<number> {
  // Read and connected only when a command needs Temporal: `probe` needs only the platform's settings.
  let temporal: OpsTemporal | undefined;
  try {
    return await runOps(process.argv.slice(2), {
      temporal: () => {
        if (temporal === undefined) {
          const config = loadTemporalConfig();
          temporal = { client: lazyClient(config), taskQueue: config.taskQueue, webUiUrl: config.webUiUrl };
        }
        return temporal;
      },
      out: (text) => process.stdout.write(`${text}\n`),
      err: (text) => process.stderr.write(`${text}\n`),
      platformClient: (baseUrl) =>
        platformClientFromConfig(
          { ...loadPlatformConfig(process.env), ...(baseUrl !== undefined && { baseUrl }) },
          { logger: createLogger({ level: 'warn', name: 'badge-orders-probe' }) },
        ),
    });
  } finally {
    await temporal?.client.connection.close();
  }
}

runMain(main, { letOutputFinish: true });
