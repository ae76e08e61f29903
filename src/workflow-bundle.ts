/**
 * What every workflow bundle of the service contains: the workflows, the metrics interceptors and the failure
 * converter of the data converter. The worker bundles this at start-up; the container image, the tests, the
 * chaos run and the benchmarks prebuild the same bundle, so they all run what production runs.
 */
import { bundleWorkflowCode, type BundleOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from './codec/data-converter';
import { WORKFLOW_INTERCEPTOR_MODULES } from './metrics';

/** The workflows module the worker registers. */
export const WORKFLOWS_PATH = require.resolve('./workflows');

/** Bundler options of the service's workflow bundle. */
export function serviceBundleOptions(): Pick<
  BundleOptions,
  'workflowsPath' | 'workflowInterceptorModules' | 'failureConverterPath'
> {
  return {
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}

/** Builds the service's workflow bundle; bundler noise below warnings is dropped. */
export async function buildServiceBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ ...serviceBundleOptions(), logger: quietBundlerLogger });
}

const quietBundlerLogger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  log: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
