/**
 * Records representative workflows (badge orders and the nightly replay) for the replay tests: runs each scenario
 * against a fresh dev server and sandbox, with real worker processes (one in-process worker for the order whose
 * first step fails) and no payload codec, and writes each run's history to `<outDir>/<scenario>.json`.
 * `npm run histories:export` (export-histories.ts) writes them into `test/histories/<version>/`;
 * `test/replay/replay.test.ts` replays every version's against the current code.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import pino from 'pino';
import { findSecrets, textOf } from '../chaos/secrets';
import { BadgeOrderStatus, WORKFLOW_TYPES } from '../../src/workflow-contract';
import { retryUploadsSignal } from '../../src/workflow-messages';
import type { BadgeOrderInput, BadgeOrderStatusView, ReplayFailedUploadsResult } from '../../src/contract';
import {
  DEMO_USER,
  startSandbox,
  subjectUuid,
  type FaultConfig,
  type RunningSandbox,
} from '../../src/sandbox';
import { createBadgeOrderWorker } from '../../src/worker/create-worker';
import { badgeOrdersQuery } from '../../src/temporal/visibility';
import type { ChildProcessHandle } from '../dev/child-process';
import { holdingReceiver } from '../dev/holding-receiver';
import { pollUntil, waitUntil } from '../dev/poll';
import { startLocalStack, type LocalStack } from '../stack';

const vehicle = { licensePlate: 'B-HI 2024', fuel: 'diesel' };
const badge = { type: 'green' };

/** Polls the order's status until `until` holds, and returns that status. */
function waitForStatus(
  stack: LocalStack,
  orderRef: string,
  until: (status: BadgeOrderStatusView) => boolean,
): Promise<BadgeOrderStatusView> {
  return pollUntil(() => stack.orders().status(orderRef), until, {
    what: `the status of ${orderRef}`,
    timeoutMs: 120_000,
  });
}

/**
 * One scenario: runs a workflow to completion and returns what to record: an orderRef (the order's last
 * run), or named runs (`<scenario><suffix>.json` each) for a workflow that continued as new.
 */
type Scenario = (
  stack: LocalStack,
  worker: () => ChildProcessHandle,
) => Promise<string | readonly RecordedRun[]>;

/** A run to record: the file name's suffix, the workflow id and the run id. */
interface RecordedRun {
  readonly suffix: string;
  readonly workflowId: string;
  readonly runId: string;
}

/** An order that waits for repair with a refused .gif. */
function gifOrder(
  stack: LocalStack,
  orderRef: string,
  options: BadgeOrderInput['options'] = {},
): BadgeOrderInput {
  return {
    orderRef,
    vehicle,
    badge,
    documents: [{ path: stack.writeDocument(`${orderRef}/animation.gif`, `GIF89a ${orderRef}`) }],
    options,
  };
}

/** An order of stock `stockId` with one document: `path`, holding `text`. */
function stockOrder(
  stack: LocalStack,
  orderRef: string,
  stockId: number,
  document: { readonly path: string; readonly text: string },
): BadgeOrderInput {
  return {
    orderRef,
    stockId,
    vehicle,
    badge,
    documents: [{ path: stack.writeDocument(document.path, document.text) }],
  };
}

/** Lets the sandbox accept gifs while `run` runs. */
async function acceptingGifs<T>(stack: LocalStack, run: () => Promise<T>): Promise<T> {
  const rules = await stack.sandbox.control.rules();
  await stack.sandbox.control.setRules({
    acceptedContentTypes: [...rules.acceptedContentTypes, 'image/gif'],
  });
  try {
    return await run();
  } finally {
    await stack.sandbox.control.setRules({ acceptedContentTypes: rules.acceptedContentTypes });
  }
}

/**
 * Runs `run` on a worker process with `env` in place of the current worker, with the `faults` of its platform
 * (the stack's sandbox unless `platform` names another, which `env` then points the worker to); the platform is
 * healthy again and a worker like the others runs afterwards.
 */
async function onWorkerWith<T>(
  stack: LocalStack,
  worker: () => ChildProcessHandle,
  settings: {
    readonly env: Record<string, string>;
    readonly faults: FaultConfig;
    readonly platform?: RunningSandbox;
  },
  run: () => Promise<T>,
): Promise<T> {
  const platform = settings.platform ?? stack.sandbox;
  await worker().stop();
  const special = stack.startWorkerProcess({ env: settings.env });
  try {
    await platform.control.setFaults(settings.faults);
    return await run();
  } finally {
    await platform.control.setFaults({});
    await special.stop();
    worker();
  }
}

/**
 * Starts the order, waits until it awaits reconciliation, answers `reconcileOrder` as an operator would with the
 * order the platform created last (the one the order may have made), and waits for the order to complete.
 */
async function placeAndReconcile(stack: LocalStack, input: BadgeOrderInput): Promise<string> {
  const started = await stack.orders().startOrder(input);
  await waitForStatus(stack, input.orderRef, (status) => status.phase === 'awaiting-reconciliation');
  const created = (await stack.sandbox.control.state()).orders.at(-1)?.id;
  if (created === undefined) throw new Error(`${input.orderRef}: the platform holds no order`);
  await stack.orders().reconcileOrder(input.orderRef, { orderId: created });
  await started.handle.result();
  return input.orderRef;
}

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
    const input = stockOrder(stack, 'history-stock-fallback', 1003, {
      path: 'fallback/form.pdf',
      text: '%PDF-1.4 stock fallback form',
    });
    const result = await (await stack.orders().startOrder(input)).handle.result();
    if (!result.stockFallback) throw new Error('stock-fallback: the order did not fall back');
    return input.orderRef;
  },

  /** Stock 999 is not among the user's stocks: ordered without one before trying. */
  async 'stock-unlisted'(stack) {
    const input = stockOrder(stack, 'history-stock-unlisted', 999, {
      path: 'unlisted/form.pdf',
      text: '%PDF-1.4 unlisted stock form',
    });
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
    await acceptingGifs(stack, async () => {
      await stack.orders().retryUploads(input.orderRef);
      await started.handle.result();
    });
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

  /**
   * The platform stores the order and answers 500: the order waits in AwaitingReconciliation until an
   * operator's `reconcileOrder` names the id the platform holds.
   */
  async 'reconciled-by-operator'(stack) {
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'commit-then-500' }] });
    const orderRef = await placeAndReconcile(stack, {
      orderRef: 'history-reconciled-by-operator',
      vehicle,
      badge,
      documents: [{ path: stack.writeDocument('reconciled/form.pdf', '%PDF-1.4 reconciled form') }],
    });
    await stack.sandbox.control.setFaults({});
    return orderRef;
  },

  /**
   * A worker told that the platform honours Idempotency-Key: the platform stores the order and answers 500,
   * then answers 500 to every attempt with the same key until the order's retry window has passed. Since 0.6.0
   * the order then waits for `reconcileOrder`, which the operator answers with the id the platform holds (0.5.0
   * failed it as rejected: its recorded history).
   */
  async 'creation-uncertain-until-window-passed'(stack, worker) {
    const env = { BADGE_IDEMPOTENCY_KEYS: 'honoured' };
    const faults: FaultConfig = {
      failNext: [
        { route: 'orders', kind: 'commit-then-500' },
        { route: 'orders', kind: 'error-500', count: 20 },
      ],
    };
    return onWorkerWith(stack, worker, { env, faults }, () =>
      placeAndReconcile(stack, {
        orderRef: 'history-creation-uncertain',
        vehicle,
        badge,
        documents: [{ path: stack.writeDocument('uncertain/form.pdf', '%PDF-1.4 uncertain form') }],
        options: { platformRetryWindowMs: 3_000 },
      }),
    );
  },

  /**
   * A worker that holds uploads of unknown outcome (`BADGE_UPLOAD_UNKNOWN_OUTCOME=hold`, since 0.6.0): one upload
   * is stored and answered 500, the other answered 500 unstored, so both are held. The nightly replay's signal
   * (`retryUploads` with `skipHeld`, sent here as the replay sends it) leaves them; a person answers
   * `reconcileDocument` for each (stored under the platform's id; not stored, so it is sent again) and the order
   * completes.
   */
  async 'upload-held-then-reconciled'(stack, worker) {
    const env = { BADGE_UPLOAD_UNKNOWN_OUTCOME: 'hold' };
    const faults: FaultConfig = {
      failNext: [
        { route: 'documents', kind: 'commit-then-500' },
        { route: 'documents', kind: 'error-500' },
      ],
    };
    return onWorkerWith(stack, worker, { env, faults }, async () => {
      const input: BadgeOrderInput = {
        orderRef: 'history-upload-held',
        vehicle,
        badge,
        documents: [
          { path: stack.writeDocument('held/front.pdf', '%PDF-1.4 front of the car') },
          { path: stack.writeDocument('held/back.pdf', '%PDF-1.4 back of the car') },
        ],
        options: { maxParallelUploads: 1 },
      };
      const started = await stack.orders().startOrder(input);
      const held = await waitForStatus(
        stack,
        input.orderRef,
        (status) => status.phase === 'awaiting-repair' && status.documents.every((document) => document.held),
      );
      await started.handle.signal(retryUploadsSignal, { skipHeld: true });
      const stored = (await stack.sandbox.control.state()).documents.at(-1);
      const storedPath = held.documents.find(
        (document) => stored !== undefined && document.idempotencyKey === stored.idempotency_key,
      )?.path;
      const unstoredPath = held.documents.find((document) => document.path !== storedPath)?.path;
      if (stored === undefined || storedPath === undefined || unstoredPath === undefined) {
        throw new Error('upload-held-then-reconciled: the platform holds no held document');
      }
      await stack.orders().reconcileDocument(input.orderRef, { path: storedPath, documentId: stored.id });
      await stack.orders().reconcileDocument(input.orderRef, { path: unstoredPath, notStored: true });
      await started.handle.result();
      return input.orderRef;
    });
  },

  /**
   * A worker that delivers webhooks to a receiver holding every delivery: `retryUploads` cycles on a refused .gif
   * grow the history past a small budget, and the run waits for its deliveries before it continues as new. A
   * `replaceDocument` with a PDF is queued meanwhile; then the receiver answers. Since 0.7.0 the run uploads the
   * replacement and the order completes in that run (0.6.0 waited for the update, which waited for the upload:
   * its recorded order stayed Running until it was cancelled, hence the name, which pairs the recordings).
   */
  async 'replacement-while-continuing-then-cancelled'(stack, worker) {
    const secretsFile = join(stack.scratchDir, 'webhook-secrets.json');
    writeFileSync(secretsFile, JSON.stringify({ default: 'history-webhook-secret-0123456789' }));
    const receiver = await holdingReceiver();
    const env = {
      WEBHOOK_SECRETS_FILE: secretsFile,
      WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
      // A listed host receives webhooks on the port its entry names only.
      WEBHOOK_ALLOWED_HOSTS: new URL(receiver.callbackUrl).host,
    };
    try {
      return await onWorkerWith(stack, worker, { env, faults: {} }, async () => {
        const input: BadgeOrderInput = {
          ...gifOrder(stack, 'history-replaced-while-continuing', { historyBudgetEvents: 100 }),
          callbackUrl: receiver.callbackUrl,
        };
        const path = input.documents[0]?.path ?? '';
        const newPath = stack.writeDocument('continuing/scan.pdf', '%PDF-1.4 the scan, replaced');
        const started = await stack.orders().startOrder(input);
        // Each cycle fails the .gif again; the first that ends past the budget leaves the run `uploading`,
        // waiting for its held deliveries before it continues as new, where one under it awaits repair.
        let status = await waitForStatus(stack, input.orderRef, (view) => view.phase === 'awaiting-repair');
        for (let cycle = 1; status.phase === 'awaiting-repair'; cycle += 1) {
          if (cycle > 20) throw new Error(`${input.orderRef}: still awaiting repair after 20 cycles`);
          const attempts = status.documents[0]?.attempts ?? 0;
          await stack.orders().retryUploads(input.orderRef);
          status = await waitForStatus(
            stack,
            input.orderRef,
            (view) => view.documents[0]?.status === 'failed' && (view.documents[0]?.attempts ?? 0) > attempts,
          );
        }
        if (status.phase !== 'uploading' || (status.webhooks?.pending ?? 0) === 0) {
          throw new Error(`${input.orderRef}: the run does not wait for its deliveries (${status.phase})`);
        }
        const replaced = stack.orders().replaceDocument(input.orderRef, { path, newPath });
        await waitForStatus(
          stack,
          input.orderRef,
          (view) => view.documents[0]?.sourcePath === newPath && view.documents[0]?.status === 'pending',
        );
        receiver.release();
        if ((await replaced).status !== 'uploaded')
          throw new Error(`${input.orderRef}: the PDF was not uploaded`);
        await started.handle.result();
        if ((await started.handle.describe()).runId !== started.runId) {
          throw new Error(`${input.orderRef}: the order continued as new instead of completing in its run`);
        }
        return input.orderRef;
      });
    } finally {
      await receiver.close();
    }
  },

  /**
   * A worker told that the platform honours Idempotency-Key: creation answers 500 (nothing stored) until the
   * retry window has passed, so the order waits for `reconcileOrder`; the operator answers `{ notCreated: true }`
   * and the resumed creation is answered 429 first. Since 0.7.0 it retries within a window counted from the
   * answer and the order completes (0.6.0 counted from the first attempt: its recorded order failed as rejected).
   */
  async 'creation-resumed-after-window'(stack, worker) {
    const env = { BADGE_IDEMPOTENCY_KEYS: 'honoured' };
    const faults: FaultConfig = { failNext: [{ route: 'orders', kind: 'error-500', count: 20 }] };
    return onWorkerWith(stack, worker, { env, faults }, async () => {
      const input: BadgeOrderInput = {
        orderRef: 'history-creation-resumed-after-window',
        vehicle,
        badge,
        documents: [{ path: stack.writeDocument('resumed/form.pdf', '%PDF-1.4 resumed form') }],
        options: { platformRetryWindowMs: 2_000 },
      };
      const started = await stack.orders().startOrder(input);
      // Held only once the window has passed: the resumed creation starts past it.
      await waitForStatus(stack, input.orderRef, (status) => status.phase === 'awaiting-reconciliation');
      await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'rate-limit' }] });
      await stack.orders().reconcileOrder(input.orderRef, { notCreated: true });
      await started.handle.result();
      if ((await stack.sandbox.control.faults()).failNext !== undefined) {
        throw new Error(`${input.orderRef}: the resumed creation was not answered 429`);
      }
      return input.orderRef;
    });
  },

  /**
   * A worker that holds uploads of unknown outcome, against a sandbox of its own playing the keycloak profile,
   * which checks `document_owner` (the reference profile does not). The order names the token's subject as
   * owner: the first upload is answered 500 unstored (held), the second refused for its owner. `setDocumentOwner`
   * names the user id; since 0.7.0 only the refused document is sent again and the held one stays held (0.6.0
   * sent both again), so a person answers `reconcileDocument` (not stored) and the order completes.
   */
  async 'owner-corrected-while-held'(stack, worker) {
    const platform = await startSandbox({ port: 0, profile: 'keycloak' });
    try {
      const env = { BADGE_BASE_URL: platform.baseUrl, BADGE_UPLOAD_UNKNOWN_OUTCOME: 'hold' };
      const faults: FaultConfig = { failNext: [{ route: 'documents', kind: 'error-500' }] };
      return await onWorkerWith(stack, worker, { env, faults, platform }, async () => {
        const orderRef = 'history-owner-corrected-while-held';
        const heldPath = stack.writeDocument('owner/front.jpg', 'photo of the front');
        const refusedPath = stack.writeDocument('owner/back.jpg', 'photo of the back');
        const started = await stack.orders().startOrder({
          orderRef,
          vehicle,
          badge,
          documents: [{ path: heldPath }, { path: refusedPath }],
          documentOwner: subjectUuid(DEMO_USER.id),
          options: { maxParallelUploads: 1 },
        });
        await waitForStatus(
          stack,
          orderRef,
          (status) =>
            status.phase === 'awaiting-repair' &&
            status.documents.every((document) => document.status === 'failed') &&
            status.documents[0]?.held === true &&
            status.documents[1]?.held === false,
        );
        const corrected = await stack.orders().setDocumentOwner(orderRef, { documentOwner: DEMO_USER.id });
        if (!corrected.documents[0]?.held) throw new Error(`${orderRef}: the held document was sent again`);
        await waitForStatus(
          stack,
          orderRef,
          (status) => status.phase === 'awaiting-repair' && status.documents[1]?.status === 'uploaded',
        );
        await stack.orders().reconcileDocument(orderRef, { path: heldPath, notStored: true });
        await started.handle.result();
        return orderRef;
      });
    } finally {
      await platform.close();
    }
  },

  /**
   * An in-process worker whose first step (`resolveInputAndSignIn`) fails for another reason than the input,
   * on a task queue of its own. Since 0.7.0 the failed order publishes BadgeOrderStatus `Failed`, as an invalid
   * input does (0.6.0 left it `Running`).
   */
  async 'first-step-failed'(stack) {
    const taskQueue = `${stack.taskQueue}-first-step-fails`;
    const { worker, connection, client } = await createBadgeOrderWorker(
      {
        ...stack.workerConfig,
        temporal: { ...stack.workerConfig.temporal, address: stack.temporal.server.address, taskQueue },
      },
      pino({ level: 'silent' }),
      {
        workflowBundle: stack.workflowBundle.bundle,
        activities: {
          resolveInputAndSignIn: () => Promise.reject(new Error('the worker cannot resolve orders')),
        },
      },
    );
    const orderRef = 'history-first-step-failed';
    try {
      await worker.runUntil(async () => {
        const started = await stack.orders(taskQueue).startOrder({ orderRef, vehicle, badge, documents: [] });
        const failed = await started.handle.result().then(
          () => false,
          () => true,
        );
        const description = await started.handle.describe();
        if (!failed || description.searchAttributes[BadgeOrderStatus.name]?.[0] !== 'Failed') {
          throw new Error(`${orderRef}: the order did not end Failed`);
        }
      });
    } finally {
      await client.connection.close();
      await connection.close();
    }
    return orderRef;
  },

  /**
   * A refused .gif keeps the order in AwaitingRepair; `retryUploads` cycles grow the history past a small
   * budget, so the run continues as new; then the sandbox accepts gifs and the next run completes. Both runs
   * are recorded: the one that continued, and the one that went on from the continuation.
   */
  async 'continued-as-new-awaiting-repair'(stack) {
    const input = gifOrder(stack, 'history-continued-as-new', { historyBudgetEvents: 100 });
    const started = await stack.orders().startOrder(input);
    const firstRunId = started.runId ?? (await started.handle.describe()).runId;
    let status = await waitForStatus(stack, input.orderRef, (view) => view.phase === 'awaiting-repair');
    while ((await stack.orders().getHandle(input.orderRef).describe()).runId === firstRunId) {
      const attempts = status.documents[0]?.attempts ?? 0;
      await stack.orders().retryUploads(input.orderRef);
      status = await waitForStatus(
        stack,
        input.orderRef,
        (view) => view.phase === 'awaiting-repair' && (view.documents[0]?.attempts ?? 0) > attempts,
      );
    }
    await acceptingGifs(stack, async () => {
      await stack.orders().retryUploads(input.orderRef);
      await stack.orders().getHandle(input.orderRef).result();
    });
    const { runId: lastRunId, workflowId } = await stack.orders().getHandle(input.orderRef).describe();
    return [
      { suffix: '', workflowId, runId: firstRunId },
      { suffix: '-next-run', workflowId, runId: lastRunId },
    ];
  },

  /** The nightly replay finds an order awaiting repair (a refused .gif) and sends it `retryUploads`. */
  async 'nightly-replay'(stack) {
    const input = gifOrder(stack, 'history-nightly-replay');
    const started = await stack.orders().startOrder(input);
    await waitForStatus(stack, input.orderRef, (view) => view.phase === 'awaiting-repair');
    // The replay lists orders through visibility, which lags behind the order's own state.
    const query = `${badgeOrdersQuery({ status: 'AwaitingRepair', openOnly: true })} AND BadgeOrderRef = '${input.orderRef}'`;
    await waitUntil(
      'nightly-replay: the order to show as awaiting repair',
      async () => (await stack.temporal.client.workflow.count(query)).count > 0,
      { timeoutMs: 60_000 },
    );
    const workflowId = 'history-nightly-replay';
    const result = await acceptingGifs(stack, async () => {
      const replay = await stack.temporal.client.workflow.start(WORKFLOW_TYPES.replayFailedUploads, {
        taskQueue: stack.taskQueue,
        workflowId,
        args: [{ pageSize: 10 }],
      });
      const counts = (await replay.result()) as ReplayFailedUploadsResult;
      await started.handle.result();
      return { counts, runId: replay.firstExecutionRunId };
    });
    if (result.counts.signalled < 1) throw new Error('nightly-replay: no order was signalled');
    return [{ suffix: '', workflowId, runId: result.runId }];
  },
};

/** The history of a recorded run, checked for secrets. */
async function recordedHistory(
  stack: LocalStack,
  name: string,
  run: RecordedRun,
): Promise<temporal.api.history.v1.IHistory> {
  const history = await stack.temporal.client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
  const secrets = findSecrets(textOf(history), [{ name: 'the password', value: DEMO_USER.password }]);
  if (secrets.length > 0) throw new Error(`${name}: the history holds ${secrets.join(', ')}`);
  return history;
}

/** One recorded run: the file it was written to and its history. */
export interface RecordedRunFile {
  readonly name: string;
  readonly file: string;
  readonly history: temporal.api.history.v1.IHistory;
}

/** What to record, and where. */
export interface RecordHistoriesOptions {
  /** The folder the histories are written to (created when missing). */
  readonly outDir: string;
  /** The scenarios to run (default: every one). */
  readonly only?: readonly string[];
  /** Stops the stack on SIGINT/SIGTERM (a command line run). */
  readonly stopOnSignals?: boolean;
  readonly log: (line: string) => void;
}

/** The scenarios {@link recordHistories} runs, by name. */
export const SCENARIO_NAMES: readonly string[] = Object.keys(SCENARIOS);

/** Runs the scenarios on a stack of its own, which it stops, and writes each recorded run's history. */
export async function recordHistories(options: RecordHistoriesOptions): Promise<RecordedRunFile[]> {
  const wanted = options.only !== undefined && options.only.length > 0 ? options.only : SCENARIO_NAMES;
  const unknown = wanted.filter((name) => !SCENARIO_NAMES.includes(name));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}`);
  // No payload codec: the histories must replay without keys.
  const stack = await startLocalStack({
    payloadKeys: null,
    user: DEMO_USER,
    stopOnSignals: options.stopOnSignals ?? false,
    log: options.log,
  });
  let current = stack.startWorkerProcess();
  // The current worker; called again after the current one died, it starts a new one.
  const worker = (): ChildProcessHandle =>
    current.running() ? current : (current = stack.startWorkerProcess());
  mkdirSync(options.outDir, { recursive: true });
  const recorded: RecordedRunFile[] = [];
  try {
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      if (!wanted.includes(name)) continue;
      const outcome = await scenario(stack, worker);
      const runs: readonly RecordedRun[] =
        typeof outcome === 'string'
          ? [{ suffix: '', ...(await stack.orders().getHandle(outcome).describe()) }]
          : outcome;
      for (const run of runs) {
        const history = await recordedHistory(stack, name, run);
        const file = join(options.outDir, `${name}${run.suffix}.json`);
        writeFileSync(file, `${JSON.stringify(history, null, 2)}\n`);
        recorded.push({ name: `${name}${run.suffix}`, file, history });
      }
    }
  } finally {
    await stack.stop();
  }
  return recorded;
}
