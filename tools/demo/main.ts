/**
 * `npm run demo`: the main job end to end on embedded defaults — a Temporal dev server with its Web UI, the
 * sandbox platform, a worker, and three demo orders: a normal one, one whose stock is unknown (fallback), and
 * one with a document the sandbox rejects (it waits in AwaitingRepair). Progress is printed as it happens.
 * Ctrl-C stops everything; `--exit` stops once the orders have settled (for scripts and CI).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { Runtime } from '@temporalio/worker';
import { BadgeOrdersClient } from '../../src/client/badge-orders-client';
import { startCodecServer } from '../../src/codec/codec-server';
import { generatePayloadKeyEntry } from '../../src/codec/key-ring';
import { loadTemporalConfig, loadWorkerConfig } from '../../src/config';
import type { BadgeOrderInput, BadgeOrderStatusView } from '../../src/contract';
import { findFreePort, startDevServer } from '../dev/dev-server';
import { createLogger, sdkLoggerFor } from '../../src/logging';
import { createOrderProgress } from './order-progress';
import { DEMO_USER, startSandbox } from '../../src/sandbox';
import { webUiWorkflowLink } from '../../src/temporal/web-ui';
import { connectClient } from '../../src/temporal/connection';
import { createBadgeOrderWorker } from '../../src/worker/create-worker';

const DOCUMENTS_ROOT = resolve(__dirname, '..', '.data', 'demo-documents');
/** The demo's payload key (git-ignored .data/), so the operator CLI can read the same payloads. */
const DEMO_KEYS_FILE = resolve(__dirname, '..', '.data', 'demo-payload-keys');

/** PAYLOAD_KEYS(_FILE) from the environment, or a random demo key written to {@link DEMO_KEYS_FILE}. */
function demoPayloadKeysEnv(): Record<string, string> {
  if (process.env.PAYLOAD_KEYS || process.env.PAYLOAD_KEYS_FILE) return {};
  if (!existsSync(DEMO_KEYS_FILE)) {
    mkdirSync(dirname(DEMO_KEYS_FILE), { recursive: true });
    writeFileSync(DEMO_KEYS_FILE, `${generatePayloadKeyEntry('demo')}\n`, { mode: 0o600 });
  }
  return { PAYLOAD_KEYS_FILE: DEMO_KEYS_FILE };
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
  });
}

/** The preferred port when it is free, else 0 (a free one). */
async function preferred(port: number): Promise<number> {
  return (await portIsFree(port)) ? port : 0;
}

function writeDemoDocuments(): void {
  mkdirSync(DOCUMENTS_ROOT, { recursive: true });
  // A small valid-looking JPEG and PDF; the .txt is of a type the sandbox does not accept.
  writeFileSync(
    join(DOCUMENTS_ROOT, 'vehicle-photo.jpg'),
    Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(64 * 1024, 1)]),
  );
  writeFileSync(join(DOCUMENTS_ROOT, 'registration.pdf'), '%PDF-1.4\n% demo vehicle registration\n');
  writeFileSync(join(DOCUMENTS_ROOT, 'handwritten-note.txt'), 'A note the platform will not accept.\n');
  writeFileSync(join(DOCUMENTS_ROOT, 'handwritten-note.pdf'), '%PDF-1.4\n% the note, scanned\n');
}

const vehicle = {
  licensePlate: 'B-DE 2026',
  vin: 'WVWZZZ1JZXW000001',
  fuel: 'diesel',
  emissionClass: 'Euro 6',
};
const badge = { type: 'green', validFrom: '2027-01-01' };

const DEMO_ORDERS: readonly BadgeOrderInput[] = [
  {
    orderRef: 'demo-normal',
    stockId: 1001,
    vehicle,
    badge,
    documents: [{ path: 'vehicle-photo.jpg' }, { path: 'registration.pdf' }],
  },
  {
    orderRef: 'demo-stock-fallback',
    stockId: 4242,
    vehicle,
    badge,
    documents: [{ path: 'registration.pdf' }],
  },
  {
    orderRef: 'demo-awaiting-repair',
    vehicle,
    badge,
    documents: [{ path: 'vehicle-photo.jpg' }, { path: 'handwritten-note.txt' }],
  },
];

const settled = (status: BadgeOrderStatusView): boolean =>
  status.phase === 'completed' || status.phase === 'failed' || status.phase === 'awaiting-repair';

async function main(): Promise<void> {
  const exitWhenSettled = process.argv.includes('--exit');
  const say = (message: string): void => console.log(message);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  let stopping = false;
  const onSignal = (): void => {
    if (stopping) return;
    stopping = true;
    say('\nStopping ...');
    void stopAll().then(() => process.exit(0));
  };

  try {
    // Payloads are encrypted end to end; a codec server lets the Web UI show them decrypted.
    const keysEnv = demoPayloadKeysEnv();
    const uiPort = (await preferred(8233)) || (await findFreePort());
    const codec = await startCodecServer({
      keys: loadTemporalConfig({ ...process.env, ...keysEnv }).codec.payloadKeys,
      corsOrigin: `http://127.0.0.1:${uiPort}`,
      port: await preferred(8888),
      // The dev server's UI sends no credentials; the server listens on loopback only.
      allowUnauthenticatedOnLoopback: true,
    });
    stops.push(() => codec.close());
    const server = await startDevServer({
      port: await preferred(7233),
      uiPort,
      uiCodecEndpoint: codec.url,
      log: say,
    });
    stops.push(() => server.stop());
    say(`Codec server at ${codec.url}: payloads are encrypted; the Web UI decrypts them through it`);
    const sandbox = await startSandbox({ port: await preferred(4010) });
    stops.push(() => sandbox.close());
    say(`Sandbox platform at ${sandbox.baseUrl} (user ${DEMO_USER.username})`);
    writeDemoDocuments();

    const config = loadWorkerConfig({
      ...process.env,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_WEB_UI_URL: server.uiUrl ?? undefined,
      BADGE_BASE_URL: sandbox.baseUrl,
      BADGE_USERNAME: DEMO_USER.username,
      BADGE_PASSWORD: DEMO_USER.password,
      ...keysEnv,
      DOCUMENTS_ROOT,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
    });
    const logger = createLogger({ level: config.logLevel, name: 'demo-worker' });
    Runtime.install({ logger: sdkLoggerFor(logger, 'WARN'), shutdownSignals: [] });
    const { worker, connection } = await createBadgeOrderWorker(config, logger);
    const running = worker.run();
    stops.push(async () => {
      worker.shutdown();
      await running;
      await connection.close();
    });
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    say(`Worker polling task queue ${config.temporal.taskQueue}`);

    const client = await connectClient(config.temporal);
    stops.push(() => client.connection.close());
    const orders = new BadgeOrdersClient({ client, taskQueue: config.temporal.taskQueue });
    for (const input of DEMO_ORDERS) {
      const started = await orders.startOrder(input);
      say(
        `${started.attached ? 'Attached to' : 'Started'} ${started.workflowId}: ${webUiWorkflowLink(config.temporal, started.workflowId)}`,
      );
    }

    // Show each order's and document's progress (bars on a terminal, plain lines in logs) until all settle.
    const progress = createOrderProgress({ stream: process.stdout });
    stops.push(() => Promise.resolve(progress.stop()));
    for (;;) {
      const statuses = await Promise.all(DEMO_ORDERS.map((input) => orders.status(input.orderRef)));
      progress.update(statuses);
      if (statuses.every(settled)) break;
      await new Promise((resolveTick) => setTimeout(resolveTick, 250));
    }
    progress.stop();

    say('');
    say(`Web UI: ${server.uiUrl ?? '(headless)'}  — filter with: BadgeOrderStatus="AwaitingRepair"`);
    say(
      'demo-awaiting-repair waits for repair: its .txt document was rejected (422). To repair it, run in another',
    );
    say('terminal (same TEMPORAL_ADDRESS):');
    const keysHint = keysEnv.PAYLOAD_KEYS_FILE ? `PAYLOAD_KEYS_FILE=${keysEnv.PAYLOAD_KEYS_FILE} ` : '';
    say(
      `  TEMPORAL_ADDRESS=${server.address} ${keysHint}npm run ops -- replace demo-awaiting-repair ` +
        'handwritten-note.txt handwritten-note.pdf',
    );
    if (exitWhenSettled) {
      await stopAll();
      return;
    }
    say('Press Ctrl-C to stop the dev server, the sandbox and the worker.');
  } catch (error) {
    await stopAll();
    throw error;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
