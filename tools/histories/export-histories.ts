/**
 * `npm run histories:export`: runs representative badge orders against a fresh dev server and sandbox, with
 * real worker processes and no payload codec, and writes each finished workflow's history to
 * `test/histories/<scenario>.json`. `test/replay/replay.test.ts` replays them against the current workflow
 * code, so a change that would break orders already running fails CI. See CONTRIBUTING.md for when to
 * regenerate them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { findSecrets, textOf } from '../chaos/secrets';
import type { BadgeOrderInput, BadgeOrderStatusView } from '../../src/contract';
import { DEMO_USER } from '../../src/sandbox';
import { PROJECT_ROOT, type ChildProcessHandle } from '../dev/child-process';
import { startLocalStack, type LocalStack } from '../stack';

const OUT_DIR = join(PROJECT_ROOT, 'test', 'histories');
const vehicle = { licensePlate: 'B-HI 2024', fuel: 'diesel' };
const badge = { type: 'green' };

async function waitForStatus(
  stack: LocalStack,
  orderRef: string,
  until: (status: BadgeOrderStatusView) => boolean,
): Promise<BadgeOrderStatusView> {
  const deadline = Date.now() + 120_000;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const status = await stack.orders().status(orderRef);
      if (until(status)) return status;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolveTick) => setTimeout(resolveTick, 100));
  }
  throw new Error(`${orderRef}: timed out waiting for its status (${String(lastError)})`);
}

/** One scenario: runs an order to completion and returns its orderRef. */
type Scenario = (stack: LocalStack, worker: () => ChildProcessHandle) => Promise<string>;

const SCENARIOS: Record<string, Scenario> = {
  /** Stock listed, two documents uploaded. */
  async 'happy-path'(stack) {
    stack.writeDocument(
      'happy/photo.jpg',
      Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(4096, 1)]),
    );
    stack.writeDocument('happy/form.pdf', '%PDF-1.4 happy path form');
    const input: BadgeOrderInput = {
      orderRef: 'history-happy-path',
      stockId: 1001,
      vehicle,
      badge,
      documents: [{ path: 'happy/photo.jpg' }, { path: 'happy/form.pdf', filename: 'application.pdf' }],
    };
    await (await stack.orders().startOrder(input)).handle.result();
    return input.orderRef;
  },

  /** Stock 1003 is listed but retired: the platform answers 404 and the order is placed without a stock. */
  async 'stock-fallback'(stack) {
    stack.writeDocument('fallback/form.pdf', '%PDF-1.4 stock fallback form');
    const input: BadgeOrderInput = {
      orderRef: 'history-stock-fallback',
      stockId: 1003,
      vehicle,
      badge,
      documents: [{ path: 'fallback/form.pdf' }],
    };
    const result = await (await stack.orders().startOrder(input)).handle.result();
    if (!result.stockFallback) throw new Error('stock-fallback: the order did not fall back');
    return input.orderRef;
  },

  /** Stock 999 is not among the user's stocks: ordered without one before trying. */
  async 'stock-unlisted'(stack) {
    stack.writeDocument('unlisted/form.pdf', '%PDF-1.4 unlisted stock form');
    const input: BadgeOrderInput = {
      orderRef: 'history-stock-unlisted',
      stockId: 999,
      vehicle,
      badge,
      documents: [{ path: 'unlisted/form.pdf' }],
    };
    await (await stack.orders().startOrder(input)).handle.result();
    return input.orderRef;
  },

  /** A .txt is rejected (422): AwaitingRepair, then `replaceDocument` with a PDF completes the order. */
  async 'awaiting-repair-then-replaced'(stack) {
    stack.writeDocument(
      'repair/photo.jpg',
      Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(2048, 3)]),
    );
    stack.writeDocument('repair/note.txt', 'not an accepted content type');
    stack.writeDocument('repair/note.pdf', '%PDF-1.4 the note, scanned');
    const input: BadgeOrderInput = {
      orderRef: 'history-awaiting-repair-then-replaced',
      vehicle,
      badge,
      documents: [{ path: 'repair/photo.jpg' }, { path: 'repair/note.txt' }],
    };
    const started = await stack.orders().startOrder(input);
    await waitForStatus(stack, input.orderRef, (status) => status.phase === 'awaiting-repair');
    const replaced = await stack
      .orders()
      .replaceDocument(input.orderRef, { path: 'repair/note.txt', newPath: 'repair/note.pdf' });
    if (replaced.status !== 'uploaded') throw new Error(`replaceDocument left the note ${replaced.status}`);
    await started.handle.result();
    return input.orderRef;
  },

  /** A .gif is rejected; the sandbox then accepts gifs and `retryUploads` completes the order. */
  async 'awaiting-repair-then-retried'(stack) {
    stack.writeDocument('retry/animation.gif', 'GIF89a retried');
    const input: BadgeOrderInput = {
      orderRef: 'history-awaiting-repair-then-retried',
      vehicle,
      badge,
      documents: [{ path: 'retry/animation.gif' }],
    };
    const started = await stack.orders().startOrder(input);
    await waitForStatus(stack, input.orderRef, (status) => status.phase === 'awaiting-repair');
    const rules = await stack.sandbox.control.rules();
    await stack.sandbox.control.setRules({
      acceptedContentTypes: [...rules.acceptedContentTypes, 'image/gif'],
    });
    await stack.orders().retryUploads(input.orderRef);
    await started.handle.result();
    await stack.sandbox.control.setRules({ acceptedContentTypes: rules.acceptedContentTypes });
    return input.orderRef;
  },

  /** The worker process is killed with SIGKILL after the first upload; a new one finishes the order. */
  async 'resumed-after-worker-kill'(stack, worker) {
    await stack.sandbox.control.setFaults({ latencyMs: 400, routes: ['documents'] });
    const documents = Array.from({ length: 4 }, (_, index) => ({
      path: stack.writeDocument(`kill/document-${index}.pdf`, `%PDF-1.4 resumed document ${index}`),
    }));
    const input: BadgeOrderInput = {
      orderRef: 'history-resumed-after-worker-kill',
      vehicle,
      badge,
      documents,
      options: { maxParallelUploads: 1, uploadHeartbeatTimeoutMs: 3_000 },
    };
    const started = await stack.orders().startOrder(input);
    await waitForStatus(stack, input.orderRef, (status) =>
      status.documents.some((d) => d.status === 'uploaded'),
    );
    await worker().kill('SIGKILL');
    worker();
    await started.handle.result();
    await stack.sandbox.control.setFaults({});
    return input.orderRef;
  },
};

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const only = process.argv.slice(2);
  // No payload codec: the histories must replay without keys.
  const stack = await startLocalStack({
    payloadKeys: null,
    user: DEMO_USER,
    stopOnSignals: true,
    log: (line) => console.error(line),
  });
  let current = stack.startWorkerProcess();
  // The current worker; called again after the current one died, it starts a new one.
  const worker = (): ChildProcessHandle =>
    current.running() ? current : (current = stack.startWorkerProcess());
  try {
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      if (only.length > 0 && !only.includes(name)) continue;
      const orderRef = await scenario(stack, worker);
      const history = await stack.orders().getHandle(orderRef).fetchHistory();
      const secrets = findSecrets(textOf(history), [{ name: 'the password', value: DEMO_USER.password }]);
      if (secrets.length > 0) throw new Error(`${name}: the history holds ${secrets.join(', ')}`);
      const file = join(OUT_DIR, `${name}.json`);
      writeFileSync(file, `${JSON.stringify(history, null, 2)}\n`);
      console.log(`${name}: ${history.events?.length ?? 0} events -> ${file}`);
    }
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
