/**
 * Temporal for tests without the whole stack: a dev server with a client (the stack module's Temporal part),
 * workflow bundles of test workflow modules, and unique task queues.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { DevServerOptions } from '../../tools/dev/dev-server';
import { startLocalTemporal, type LocalTemporal, type LocalTemporalClientOptions } from '../../tools/stack';
import { bundleWorkflows as bundleQuietly } from '../../src/workflow-bundle';

/** A dev server and a client connected to it. */
export interface TestTemporal extends LocalTemporal {
  /** Closes the connection and stops the server (the same as `stop()`). */
  teardown(): Promise<void>;
}

/** Gives a running Temporal the test helpers' `teardown()`. */
export function asTestTemporal(temporal: LocalTemporal): TestTemporal {
  return { ...temporal, teardown: () => temporal.stop() };
}

/**
 * Starts a dev server (in memory unless `dbFilename` is given) and connects a client, with `dataConverter`
 * (the payload codec) when given.
 */
export async function startTestTemporal(
  options: DevServerOptions = {},
  clientOptions: LocalTemporalClientOptions = {},
): Promise<TestTemporal> {
  return asTestTemporal(await startLocalTemporal(options, clientOptions));
}

/**
 * Builds a workflow bundle from a workflows module path (once per test file, in `beforeAll`), with the
 * failure converter the workers use when given.
 */
export async function bundleWorkflows(
  workflowsPath: string,
  options: { readonly failureConverterPath?: string } = {},
): Promise<WorkflowBundleWithSourceMap> {
  return bundleQuietly({ workflowsPath, failureConverterPath: options.failureConverterPath });
}

/** A task queue no other test uses. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}
