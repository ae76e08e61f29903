/**
 * `npm run demo`: the main job end to end on embedded defaults — the local stack (a Temporal dev server with its
 * Web UI and a codec server, the sandbox platform, a worker) and three demo orders: a normal one, one whose stock
 * is unknown (fallback), and one with a document the sandbox rejects (it waits in AwaitingRepair), started
 * through the TypeScript client; and a fourth placed through the HTTP API (tools/demo/api-order.ts), whose `curl`
 * commands are printed at the end. Progress is printed as it happens. Ctrl-C stops everything; `--exit` stops once the orders have settled (for scripts and
 * CI).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { Runtime } from '@temporalio/worker';
import { generatePayloadKeyEntry } from '../../src/codec/key-ring';
import { workerConfigSchema } from '../../src/config';
import { DEFAULT_TASK_QUEUE, type BadgeOrderInput, type BadgeOrderStatusView } from '../../src/contract';
import { createLogger, sdkLoggerFor } from '../../src/logging';
import { DEMO_USER } from '../../src/sandbox';
import { webUiWorkflowLink } from '../../src/temporal/web-ui';
import { PROJECT_ROOT } from '../dev/child-process';
import { startLocalStack, type LocalStack } from '../stack';
import { curlCommands, DEMO_API_CLIENT, placeOrderThroughApi, startDemoApi } from './api-order';
import { createOrderProgress } from './order-progress';
import { runMain } from '../../src/main/run-main';

const DOCUMENTS_ROOT = join(PROJECT_ROOT, '.data', 'demo-documents');
/** The demo's payload key (git-ignored .data/), so the operator CLI can read the same payloads. */
const DEMO_KEYS_FILE = join(PROJECT_ROOT, '.data', 'demo-payload-keys');

/** The `PAYLOAD_KEYS` text, from the environment or a random demo key kept in {@link DEMO_KEYS_FILE}. */
function demoPayloadKeys(): { readonly text: string; readonly file: string | null } {
  if (process.env.PAYLOAD_KEYS) return { text: process.env.PAYLOAD_KEYS, file: null };
  const file = process.env.PAYLOAD_KEYS_FILE || DEMO_KEYS_FILE;
  if (file === DEMO_KEYS_FILE && !existsSync(DEMO_KEYS_FILE)) {
    mkdirSync(dirname(DEMO_KEYS_FILE), { recursive: true });
    writeFileSync(DEMO_KEYS_FILE, `${generatePayloadKeyEntry('demo')}\n`, { mode: 0o600 });
  }
  return { text: readFileSync(file, 'utf8').trim(), file };
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
  });
}

/** The usual port when it is free (so the usual URLs work), else 0 (a free one). */
async function preferred(port: number): Promise<number> {
  return (await portIsFree(port)) ? port : 0;
}

function writeDemoDocuments(stack: LocalStack): void {
  // A small valid-looking JPEG and PDF; the .txt is of a type the sandbox does not accept.
  stack.writeDocument(
    'vehicle-photo.jpg',
    Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(64 * 1024, 1)]),
  );
  stack.writeDocument('registration.pdf', '%PDF-1.4\n% demo vehicle registration\n');
  stack.writeDocument('handwritten-note.txt', 'A note the platform will not accept.\n');
  stack.writeDocument('handwritten-note.pdf', '%PDF-1.4\n% the note, scanned\n');
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

/** The order placed through the HTTP API, as a backend in any language would place it. */
const API_ORDER_REF = 'demo-api';
const apiOrder = (documentsRoot: string) => ({
  orderRef: API_ORDER_REF,
  body: { stockId: 1001, vehicle: { ...vehicle, licensePlate: 'B-AP 1717' }, badge },
  documentPath: join(documentsRoot, 'registration.pdf'),
  contentType: 'application/pdf',
});

const settled = (status: BadgeOrderStatusView): boolean =>
  status.phase === 'completed' || status.phase === 'failed' || status.phase === 'awaiting-repair';

async function main(): Promise<void> {
  const exitWhenSettled = process.argv.includes('--exit');
  const say = (message: string): void => console.log(message);
  const keys = demoPayloadKeys();
  const logger = createLogger({
    level: workerConfigSchema.shape.logLevel.parse(process.env.LOG_LEVEL ?? 'error'),
    name: 'demo-worker',
  });
  Runtime.install({ logger: sdkLoggerFor(logger, 'WARN'), shutdownSignals: [] });
  // Payloads are encrypted end to end; the codec server lets the Web UI show them decrypted.
  const stack = await startLocalStack({
    sandbox: { port: await preferred(4010) },
    temporal: { port: await preferred(7233) },
    webUi: { port: await preferred(8233) },
    codecServer: { port: await preferred(8888) },
    payloadKeys: keys.text,
    taskQueue: process.env.TEMPORAL_TASK_QUEUE || DEFAULT_TASK_QUEUE,
    user: DEMO_USER,
    documentsRoot: DOCUMENTS_ROOT,
    logger,
    stopOnSignals: true,
    log: say,
  });
  try {
    say(
      `Sandbox user ${DEMO_USER.username}; payloads are encrypted, the Web UI decrypts them via the codec server`,
    );
    writeDemoDocuments(stack);
    await stack.startWorker();
    say(`Worker polling task queue ${stack.taskQueue}`);

    const orders = stack.orders();
    for (const input of DEMO_ORDERS) {
      const started = await orders.startOrder(input);
      say(
        `${started.attached ? 'Attached to' : 'Started'} ${started.workflowId}: ${webUiWorkflowLink(stack.workerConfig.temporal, started.workflowId)}`,
      );
    }

    // The fourth order through the HTTP API, on a free port with a key made for this run.
    const api = await startDemoApi({ orders, documentsRoot: stack.documentsRoot });
    stack.onStop('the HTTP API', () => api.close());
    const viaApi = apiOrder(stack.documentsRoot);
    const placed = await placeOrderThroughApi(api, viaApi);
    say(`Placed ${API_ORDER_REF} through the HTTP API at ${api.url} (PUT answered ${placed.putStatus})`);
    // The API's order is its client's: it is found by its orderRef and that client.
    const orderKeys = [
      ...DEMO_ORDERS.map((input) => ({ orderRef: input.orderRef })),
      { orderRef: API_ORDER_REF, clientId: DEMO_API_CLIENT },
    ];

    // Show each order's and document's progress (bars on a terminal, plain lines in logs) until all settle.
    const progress = createOrderProgress({ stream: process.stdout });
    stack.onStop('the progress display', () => progress.stop());
    for (;;) {
      const statuses = await Promise.all(orderKeys.map((order) => orders.status(order)));
      progress.update(statuses);
      if (statuses.every(settled)) break;
      await new Promise((resolveTick) => setTimeout(resolveTick, 250));
    }
    progress.stop();

    say('');
    say(`Web UI: ${stack.webUiUrl ?? '(headless)'}  — filter with: BadgeOrderStatus="AwaitingRepair"`);
    say(
      'demo-awaiting-repair waits for repair: its .txt document was rejected (422). To repair it, run in another',
    );
    say('terminal (same TEMPORAL_ADDRESS):');
    const keysHint = keys.file ? `PAYLOAD_KEYS_FILE=${keys.file} ` : '';
    say(
      `  TEMPORAL_ADDRESS=${stack.temporal.server.address} ${keysHint}npm run ops -- replace demo-awaiting-repair ` +
        'handwritten-note.txt handwritten-note.pdf',
    );
    say('');
    say(`The HTTP API (${api.url}/docs) with this run's key; ${API_ORDER_REF} by hand, from a shell:`);
    for (const command of curlCommands(api, viaApi, placed)) say(`  ${command}`);
    if (exitWhenSettled) {
      await stack.stop();
      return;
    }
    say('Press Ctrl-C to stop the dev server, the sandbox, the worker and the API.');
  } catch (error) {
    await stack.stop().catch(() => undefined);
    throw error;
  }
}

runMain(main);
