/**
 * The whole service for a test file: the local stack (tools/stack) with a real Temporal dev server, the real
 * sandbox over HTTP, a documents root with files, and workers — in this process, or as real child processes
 * that tests may SIGKILL. Everything started here is stopped by `teardown()`.
 */
import type { BadgeOrdersClient } from '../../src/client/badge-orders-client';
import { generatePayloadKeyEntry, type PayloadKeyRing } from '../../src/codec/key-ring';
import type { WorkerConfig } from '../../src/config';
import type { RunningSandbox, StartSandboxOptions } from '../../src/sandbox';
import type { ChildProcessHandle } from '../../tools/dev/child-process';
import type { DevServerOptions } from '../../tools/dev/dev-server';
import { startLocalStack, type InProcessWorker, type LocalStack, type StackUser } from '../../tools/stack';
import { asTestTemporal, type TestTemporal } from './temporal';

export type { InProcessWorker } from '../../tools/stack';

/** A worker running as a child process (`src/main/worker.ts`, as `npm run worker` runs it). */
export type WorkerProcess = ChildProcessHandle;

export interface TestStackOptions {
  readonly sandbox?: StartSandboxOptions;
  /**
   * The dev server's options; `persistent: true` keeps its data in the stack's scratch folder (removed at
   * teardown), which `restartTemporal()` needs, as does a `dbFilename` of the test's own.
   */
  readonly temporal?: DevServerOptions & { readonly persistent?: boolean };
  /** Platform user the workers log in as. @default the sandbox's demo user */
  readonly user?: StackUser;
  /** More platform settings of the workers, as their documented variables (`BADGE_REQUEST_PROFILE`, …). */
  readonly platformEnv?: Readonly<Record<string, string>>;
  /** The workers' `maxDocumentBytes` (`MAX_DOCUMENT_BYTES`). @default the worker config's default */
  readonly maxDocumentBytes?: number;
  /** Run the dev server's Web UI, decoding payloads through a codec server with the stack's keys. */
  readonly webUi?: boolean;
}

/** A running stack; see the module comment. */
export interface TestStack {
  readonly temporal: TestTemporal;
  readonly sandbox: RunningSandbox;
  readonly documentsRoot: string;
  readonly taskQueue: string;
  readonly orders: BadgeOrdersClient;
  readonly workerConfig: WorkerConfig;
  /** The stack's random payload key (workers and `temporal.client` encrypt; `temporal.rawClient` does not). */
  readonly payloadKeys: PayloadKeyRing;
  /** The local stack behind this one, for what the test API does not name. */
  readonly local: LocalStack;
  /** Writes a file under the documents root and returns its relative path. */
  writeDocument(relativePath: string, content: string | Buffer): string;
  startWorker(): Promise<InProcessWorker>;
  /** `env` adds to or overrides the worker's environment (e.g. `METRICS_PORT`). */
  startWorkerProcess(env?: Readonly<Record<string, string>>): WorkerProcess;
  /** Restarts the Temporal dev server on the same port and db file (with `temporal.persistent` or `dbFilename`). */
  restartTemporal(): Promise<void>;
  teardown(): Promise<void>;
}

/** Starts the stack; call `teardown()` in `afterAll`. */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const local = await startLocalStack({
    sandbox: options.sandbox,
    temporal: options.temporal,
    user: options.user,
    ...(options.platformEnv !== undefined && { platformEnv: options.platformEnv }),
    // A random key per stack: every test runs with encryption, as production does.
    payloadKeys: generatePayloadKeyEntry('test-stack'),
    webUi: options.webUi ?? false,
    codecServer: options.webUi ?? false,
    // Worker processes log at info: a failing test shows what the worker did.
    worker: { maxDocumentBytes: options.maxDocumentBytes, logLevel: 'info' },
  });
  let temporal = asTestTemporal(local.temporal);
  return {
    get temporal() {
      if (temporal.server !== local.temporal.server) temporal = asTestTemporal(local.temporal);
      return temporal;
    },
    sandbox: local.sandbox,
    documentsRoot: local.documentsRoot,
    taskQueue: local.taskQueue,
    get orders() {
      return local.orders();
    },
    workerConfig: local.workerConfig,
    payloadKeys: local.payloadKeys,
    local,
    writeDocument: (relativePath, content) => local.writeDocument(relativePath, content),
    startWorker: () => local.startWorker(),
    startWorkerProcess: (env = {}) => local.startWorkerProcess({ env }),
    restartTemporal: () => local.restartTemporal(),
    teardown: () => local.stop(),
  };
}

/** A stack for one test file (or `describe` block): the stack itself, once its `beforeAll` has run. */
export type StackFixture = TestStack & {
  /** Stops the in-process worker early (e.g. before a test that runs worker processes only). */
  stopWorker(): Promise<void>;
  /** Starts the in-process worker again after `stopWorker()`; it stops with the stack, or at `stopWorker()`. */
  resumeWorker(): Promise<void>;
  /**
   * Runs `work` with a worker process of its own (its environment plus `env`) instead of the in-process worker,
   * which runs again afterwards. A new process holds no token, so an order's sign-in reaches the platform.
   */
  withWorkerProcess(env: Readonly<Record<string, string>>, work: () => Promise<void>): Promise<void>;
};

/**
 * Registers `beforeAll`/`afterAll` hooks that start a stack (and an in-process worker with `worker: true`)
 * and always stop them, and returns the stack, usable inside tests and later hooks; `resetSandbox` also
 * resets the sandbox before each test. Test files need no start-up or teardown code of their own.
 */
export function useTestStack(
  options: TestStackOptions & { readonly worker?: boolean; readonly resetSandbox?: boolean } = {},
): StackFixture {
  let stack: TestStack | undefined;
  let worker: InProcessWorker | undefined;
  beforeAll(async () => {
    stack = await startTestStack(options);
    if (options.worker) worker = await stack.startWorker();
  });
  afterAll(async () => {
    await worker?.stop();
    await stack?.teardown();
  });
  if (options.resetSandbox) {
    beforeEach(async () => {
      await stack?.sandbox.control.reset();
    });
  }
  const stopWorker = async (): Promise<void> => {
    await worker?.stop();
    worker = undefined;
  };
  const resumeWorker = async (): Promise<void> => {
    if (stack === undefined) throw new Error('the test stack starts in beforeAll');
    worker ??= await stack.startWorker();
  };
  const withWorkerProcess = async (
    env: Readonly<Record<string, string>>,
    work: () => Promise<void>,
  ): Promise<void> => {
    if (stack === undefined) throw new Error('the test stack starts in beforeAll');
    await stopWorker();
    const own = stack.startWorkerProcess(env);
    try {
      await work();
    } finally {
      await own.stop();
      await resumeWorker();
    }
  };
  // Tests hold this object from the start; its properties are the stack's once beforeAll has started it.
  return new Proxy({} as StackFixture, {
    get(_target, property) {
      if (property === 'stopWorker') return stopWorker;
      if (property === 'resumeWorker') return resumeWorker;
      if (property === 'withWorkerProcess') return withWorkerProcess;
      if (stack === undefined) throw new Error('the test stack starts in beforeAll');
      const value: unknown = Reflect.get(stack, property, stack);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(stack) : value;
    },
  });
}
