/** Entry point of `npm run schedule -- <command>`: configuration from the environment, then the command. */
import { loadReplayScheduleConfig } from '../config';
import { lazyClient } from '../temporal/connection';
import { runScheduleCommand } from '../commands/schedule-command';
import { runMain } from './run-main';

async function main(): Promise<number> {
  const config = loadReplayScheduleConfig(process.env);
  const client = lazyClient(config.temporal);
  try {
    return await runScheduleCommand(process.argv.slice(2), {
      client,
      settings: { ...config, taskQueue: config.temporal.taskQueue },
      out: (text) => process.stdout.write(`${text}\n`),
      err: (text) => process.stderr.write(`${text}\n`),
    });
  } finally {
    await client.connection.close();
  }
}

runMain(main, { letOutputFinish: true });
