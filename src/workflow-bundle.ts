/**
 * What every workflow bundle of the service contains: the workflows, the metrics and tracing interceptors and the failure
 * converter of the data converter. The worker bundles this at start-up; the container image, the tests, the
 * chaos run and the benchmarks prebuild the same bundle, so they all run what production runs.
 */
import { bundleWorkflowCode, type BundleOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from './codec/data-converter';
import { WORKFLOW_INTERCEPTOR_MODULES } from './metrics';
import { TRACING_WORKFLOW_INTERCEPTOR_MODULES } from './tracing';

/** The workflows module the worker registers. */
export const WORKFLOWS_PATH = require.resolve('./workflows');

/**
 * Modules evaluated once per worker instead of once per workflow execution: the SDK's reusable V8 context keeps a
 * module cache per execution, so without this every order evaluated zod's modules again (the largest share of
 * the worker's CPU per order). zod keeps no per-workflow state; the contract's schemas are still built per
 * execution (zod completes schema objects lazily, and the SDK freezes what it preloads).
 */
const PRELOADED_WORKFLOW_MODULES: readonly string[] = [require.resolve('./workflow-preload')];

/**
 * Webpack joins the ES modules it can into one scope (its production mode's scope hoisting; the SDK bundles in
 * development mode, one module per file). The reusable V8 context evaluates every bundled module once per
 * workflow execution, so each module of ours cost every order webpack's require and an export getter per name.
 * The joined module is evaluated per execution as its parts were, and a part required lazily (the contract's
 * schemas, OpenTelemetry) is still evaluated only by its first require.
 */
const hoistScopes: NonNullable<BundleOptions['webpackConfigHook']> = (config) => ({
  ...config,
  optimization: { ...config.optimization, concatenateModules: true },
});

/** Bundler options of the service's workflow bundle. */
export function serviceBundleOptions(): Pick<
  BundleOptions,
  | 'workflowsPath'
  | 'workflowInterceptorModules'
  | 'failureConverterPath'
  | 'preloadModules'
  | 'webpackConfigHook'
> {
  return {
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES, ...TRACING_WORKFLOW_INTERCEPTOR_MODULES],
    failureConverterPath: FAILURE_CONVERTER_PATH,
    preloadModules: [...PRELOADED_WORKFLOW_MODULES],
    webpackConfigHook: hoistScopes,
  };
}

/**
 * Bundles workflow code with the one quiet bundler logger (warnings and errors only): for the service's bundle
 * and for other workflow modules of tests and benchmarks.
 */
export async function bundleWorkflows(
  options: Omit<BundleOptions, 'logger'>,
): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ ...options, logger: quietBundlerLogger });
}

/**
 * Builds the service's workflow bundle; `workflowsPath` replaces the workflows module (the interceptors and the
 * failure converter stay, as a prebuilt bundle must carry them).
 */
export async function buildServiceBundle(
  options: { readonly workflowsPath?: string } = {},
): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflows({
    ...serviceBundleOptions(),
    workflowsPath: options.workflowsPath ?? WORKFLOWS_PATH,
  });
}

/** Webpack's progress and statistics are noise; warnings and errors are not. */
const quietBundlerLogger: BundleOptions['logger'] = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  log: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
