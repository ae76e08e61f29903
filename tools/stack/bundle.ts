/**
 * The service's workflow bundle, built once per process: every stack of a test file, the chaos run and the
 * benchmarks share it, and worker processes load it from a file instead of bundling again.
 */
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { buildServiceBundle } from '../../src/workflow-bundle';

let serviceBundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The production bundle (workflows, metrics interceptors, failure converter); a failed build is tried again. */
export function serviceBundleOnce(): Promise<WorkflowBundleWithSourceMap> {
  serviceBundle ??= buildServiceBundle().catch((error: unknown) => {
    serviceBundle = undefined;
    throw error;
  });
  return serviceBundle;
}
