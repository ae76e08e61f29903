/**
 * The one place where tests start Temporal: a dev server per test file, a client connected to it, the
 * workflow bundle built once per file, and a teardown that stops everything that was started.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { startDevServer, type DevServer, type DevServerOptions } from '../../tools/dev/dev-server';

/** A dev server and a client connected to it. */
export interface TestTemporal {
  readonly server: DevServer;
  readonly connection: Connection;
  readonly client: Client;
  /** A client without the payload codec: sees histories as the server stores them. */
  readonly rawClient: Client;
  /** Closes the connection and stops the server. */
  teardown(): Promise<void>;
}

/**
 * Starts a dev server (in memory unless `dbFilename` is given) and connects a client, with `dataConverter`
 * (the payload codec) when given.
 */
export async function startTestTemporal(
  options: DevServerOptions = {},
  clientOptions: { readonly dataConverter?: DataConverter } = {},
): Promise<TestTemporal> {
  const server = await startDevServer(options);
  try {
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({
      connection,
      namespace: server.namespace,
      dataConverter: clientOptions.dataConverter,
    });
    const rawClient = new Client({ connection, namespace: server.namespace });
    return {
      server,
      connection,
      client,
      rawClient,
      async teardown() {
        await connection.close();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/**
 * Builds a workflow bundle from a workflows module path (once per test file, in `beforeAll`), with the
 * failure converter the workers use when given.
 */
export async function bundleWorkflows(
  workflowsPath: string,
  options: { readonly failureConverterPath?: string } = {},
): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath,
    failureConverterPath: options.failureConverterPath,
    logger: silentBundlerLogger,
  });
}

const silentBundlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
  log: () => undefined,
};

/** A task queue no other test uses. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}
