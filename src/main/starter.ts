/**
 * `npm run start-order -- order.json [--wait]`: validates an order file, starts the order (or attaches to the
 * running one with the same orderRef) and prints its workflow id and Web UI link; `--wait` prints the result.
 */
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { BadgeOrdersClient } from '../client/badge-orders-client';
import { loadTemporalConfig, loadTracingConfig } from '../config';
import { InvalidOrderInputError, parseBadgeOrderInput } from '../contract';
import { connectClient } from '../temporal/connection';
import { webUiWorkflowLink } from '../temporal/web-ui';
import { startTracing } from '../tracing';
import { runMain } from './run-main';

/** Reads and parses an order file; JSON errors name the file. */
export async function readOrderFile(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidOrderInputError([`${path}: not valid JSON (${(error as Error).message})`]);
  }
}

async function main(argv: string[]): Promise<void> {
  const program = new Command()
    .name('start-order')
    .description('Start a badge order from a JSON file, or attach to the running one with the same orderRef.')
    .argument('<order-file>', 'JSON file with the order input')
    .option('--wait', 'wait for the order to finish and print its result')
    .parse(argv);
  const [orderFile] = program.args;
  const { wait } = program.opts<{ wait?: boolean }>();

  // Refuse bad input before touching Temporal, so the answer does not depend on the server being up.
  const input = parseBadgeOrderInput(await readOrderFile(orderFile ?? ''));
  const config = loadTemporalConfig();
  const tracing = await startTracing(loadTracingConfig(), { serviceName: 'badge-orders-starter' });
  const client = await connectClient(config);
  try {
    const orders = new BadgeOrdersClient({ client, taskQueue: config.taskQueue, tracing });
    const started = await orders.startOrder(input);
    console.log(`${started.attached ? 'Attached to' : 'Started'} ${started.workflowId}`);
    console.log(`Web UI: ${webUiWorkflowLink(config, started.workflowId)}`);
    if (wait) console.log(JSON.stringify(await started.handle.result(), null, 2));
  } finally {
    await client.connection.close();
    await tracing?.shutdown();
  }
}

if (require.main === module) {
  runMain(() => main(process.argv), {
    exitCode: (error) => (error instanceof InvalidOrderInputError ? 2 : 1),
  });
}
