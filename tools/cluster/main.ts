/**
 * `npm run cluster [-- --workers N]`: the production-shaped stack on this machine (PostgreSQL, Temporal's four
 * services as separate processes, the Web UI, the codec server, the sandbox and N worker processes), running
 * until Ctrl-C, which stops all of it. Prints the Web UI's address and what a starter needs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { generatePayloadKeyEntry } from '../../src/codec/key-ring';
import { startCluster } from './cluster';
import { runMain } from '../../src/main/run-main';

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('a whole number from 1');
  return parsed;
}

async function main(): Promise<void> {
  const options = new Command('cluster')
    .description('Temporal on PostgreSQL as four services, the Web UI, the codec server and badge workers')
    .option('--workers <n>', 'badge-order worker processes', positiveInteger, 2)
    .option('--namespace <name>', 'the namespace', 'badge-orders')
    .parse()
    .opts<{ workers: number; namespace: string }>();
  const log = (message: string): void => console.log(message);
  const started = Date.now();
  const payloadKeys = generatePayloadKeyEntry('cluster');
  const cluster = await startCluster({
    workers: options.workers,
    namespace: options.namespace,
    stopOnSignals: true,
    // Worker processes log at info: this is for watching them work.
    stack: { payloadKeys, taskQueue: 'badge-orders', worker: { logLevel: 'info' } },
    log,
  });
  const { stack } = cluster;
  // The key goes to a file only this user reads, never to the terminal.
  const keysFile = join(stack.scratchDir, 'payload-keys');
  writeFileSync(keysFile, `${payloadKeys}\n`, { mode: 0o600 });
  log('');
  log(`Cluster up in ${Math.round((Date.now() - started) / 1000)} s:`);
  log(`  Web UI         ${cluster.webUiUrl ?? '(none)'}`);
  log(
    `  Temporal       ${cluster.temporal.address}  namespace ${cluster.namespace}  task queue ${stack.taskQueue}`,
  );
  log(`  PostgreSQL     ${cluster.postgres.host}:${cluster.postgres.port}`);
  log(`  codec server   ${stack.codecServer?.url ?? '(none)'}`);
  log(`  sandbox        ${stack.sandbox.baseUrl}  (user ${stack.user.username})`);
  log(`  documents      ${stack.documentsRoot}`);
  log(`  workers        ${cluster.workers.map((worker) => worker.process.pid).join(', ')}`);
  log('');
  log('Start an order (same payload keys and documents root as the workers):');
  log(
    `  TEMPORAL_ADDRESS=${cluster.temporal.address} TEMPORAL_NAMESPACE=${cluster.namespace} ` +
      `TEMPORAL_TASK_QUEUE=${stack.taskQueue} PAYLOAD_KEYS_FILE=${keysFile} npm run start-order -- …`,
  );
  log('Ctrl-C stops everything.');
}

runMain(main, { messageOnly: [] });
