/** The service's metrics: process counters, workflow interceptors, and the runtime's Prometheus endpoint. */
export { METRIC_NAMES } from './names';
export { createServiceMetrics } from './service-metrics';
export { metricsTelemetryOptions } from './runtime';
export { startStatusMetrics } from './status-metrics';

/**
 * Workflow interceptor modules to bundle with the workflows (`interceptors.workflowModules` of the worker, or
 * `workflowInterceptorModules` of `bundleWorkflowCode` for a prebuilt bundle).
 */
export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [require.resolve('./workflow-interceptors')];
