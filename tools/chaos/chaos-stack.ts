/**
 * The processes of a chaos run, all on loopback: a Temporal dev server persisted to a SQLite file (so it can be
 * restarted on the same port), the sandbox platform in this process, and worker processes (`src/main/worker.ts`,
 * as `npm run worker` runs it) that the run kills with SIGKILL. `teardown()` stops everything it started.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { BadgeOrdersClient } from '../../src/client/badge-orders-client';
import { startTsProcess, workerProcessEnv, type ChildProcessHandle } from '../dev/child-process';
import { startDevServer, type DevServer } from '../dev/dev-server';
import { startSandbox, type RunningSandbox, type StartSandboxOptions } from '../../src/sandbox';
import { buildServiceBundle } from '../../src/workflow-bundle';

/** A worker child process. */
export type ChaosWorker = ChildProcessHandle;

/** Options of {@link startChaosStack}. */
export interface ChaosStackOptions {
  readonly sandbox: StartSandboxOptions;
  readonly user: { readonly username: string; readonly password: string };
  /** Progress lines. */
  readonly log: (message: string) => void;
}

/** A running chaos stack. */
export interface ChaosStack {
  readonly sandbox: RunningSandbox;
  readonly documentsRoot: string;
  readonly taskQueue: string;
  /** The client of the server now running (a new one after each restart). */
  client(): Client;
  orders(): BadgeOrdersClient;
  writeDocument(relativePath: string, content: string | Buffer): string;
  startWorker(): ChaosWorker;
  /** Stops the dev server and starts it again on the same port and database file. */
  restartTemporal(): Promise<void>;
  teardown(): Promise<void>;
}

interface ConnectedServer {
  readonly server: DevServer;
  readonly client: Client;
}

async function startServer(dbFilename: string, port: number): Promise<ConnectedServer> {
  const server = await startDevServer({ dbFilename, port });
  try {
    const connection = await Connection.connect({ address: server.address });
    return { server, client: new Client({ connection, namespace: server.namespace }) };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

async function stopServer(running: ConnectedServer): Promise<void> {
  await running.client.connection.close().catch(() => undefined);
  await running.server.stop();
}

/** Starts the stack; always call `teardown()`. */
export async function startChaosStack(options: ChaosStackOptions): Promise<ChaosStack> {
  const cleanups: (() => Promise<void>)[] = [];
  const workers = new Set<ChaosWorker>();
  const teardown = async (): Promise<void> => {
    for (const worker of workers) await worker.kill('SIGKILL').catch(() => undefined);
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const scratch = mkdtempSync(join(tmpdir(), 'badge-chaos-'));
    cleanups.push(() => Promise.resolve(rmSync(scratch, { recursive: true, force: true })));
    const documentsRoot = join(scratch, 'documents');
    mkdirSync(documentsRoot);

    const sandbox = await startSandbox({ port: 0, ...options.sandbox });
    cleanups.push(() => sandbox.close());
    options.log(`sandbox at ${sandbox.baseUrl}`);

    const dbFilename = join(scratch, 'temporal.db');
    let temporal = await startServer(dbFilename, 0);
    cleanups.push(() => stopServer(temporal));
    options.log(`Temporal dev server at ${temporal.server.address} (database ${dbFilename})`);

    // Bundled once here, so each worker process starts without bundling again.
    const bundle = await buildServiceBundle();
    const bundlePath = join(scratch, 'workflow-bundle.js');
    writeFileSync(bundlePath, bundle.code);

    const taskQueue = `badge-chaos-${Date.now().toString(36)}`;

    const startWorker = (): ChaosWorker => {
      const worker = startTsProcess({
        name: 'worker',
        script: 'src/main/worker.ts',
        env: workerProcessEnv({
          temporal: { address: temporal.server.address, namespace: temporal.server.namespace, taskQueue },
          platform: { baseUrl: sandbox.baseUrl, ...options.user },
          documentsRoot,
          workflowBundlePath: bundlePath,
        }),
      });
      workers.add(worker);
      void worker.exited.then(() => workers.delete(worker));
      return worker;
    };

    return {
      sandbox,
      documentsRoot,
      taskQueue,
      client: () => temporal.client,
      orders: () => new BadgeOrdersClient({ client: temporal.client, taskQueue }),
      writeDocument(relativePath, content) {
        const path = join(documentsRoot, relativePath);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, content);
        return relativePath;
      },
      startWorker,
      async restartTemporal() {
        const port = Number(temporal.server.address.split(':').pop());
        await stopServer(temporal);
        temporal = await startServer(dbFilename, port);
      },
      teardown,
    };
  } catch (error) {
    await teardown();
    throw error;
  }
}
