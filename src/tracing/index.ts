/**
 * Tracing (docs/observability.md): one trace per order, from the start call through the workflow and its
 * activities to each platform HTTP call, exported over OTLP. Off unless an endpoint is configured; then no
 * OpenTelemetry code is loaded and every helper here passes things through unchanged.
 */
import type { TracingConfig } from '../config';
import type { PlatformRequestEvent } from '../platform/types';
import type { Tracing } from './types';

export type { Tracing } from './types';
export { inSpan } from './client';

/**
 * Workflow interceptor modules to bundle with the workflows. They trace only a workflow whose start carried a
 * trace, so a bundle built with them costs nothing for orders started without tracing, and histories recorded
 * without it replay unchanged.
 */
export const TRACING_WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [
  require.resolve('./workflow-interceptors'),
];

/**
 * Starts exporting spans when `config` names an endpoint (`undefined` otherwise), as the process's global
 * tracer provider. Call once per process, at its edge; `shutdown()` it before the process exits.
 * @param options.serviceName the `service.name` unless `OTEL_SERVICE_NAME` gives one
 */
export async function startTracing(
  config: TracingConfig,
  options: { readonly serviceName: string },
): Promise<Tracing | undefined> {
  const { endpoint } = config;
  if (endpoint === undefined) return undefined;
  const { startSdk } = await import('./sdk');
  return startSdk({ ...config, endpoint }, config.serviceName ?? options.serviceName);
}

/**
 * The platform client's `onRequest` hook with a span per HTTP attempt added when tracing is on; `hook` itself
 * when off.
 */
export function withPlatformSpans(
  tracing: Tracing | undefined,
  hook: (event: PlatformRequestEvent) => void,
): (event: PlatformRequestEvent) => void {
  if (tracing === undefined) return hook;
  return (event) => {
    hook(event);
    tracing.recordPlatformCall(event);
  };
}

/**
 * Worker options that export workflow and activity spans. When tracing is off only a sink that drops workflow
 * spans: a worker without tracing may still run an order a traced client started.
 */
export function tracingWorkerOptions(
  tracing: Tracing | undefined,
): ReturnType<Tracing['workerOptions']> | { readonly sinks: ReturnType<Tracing['workerOptions']>['sinks'] } {
  if (tracing !== undefined) return tracing.workerOptions();
  return { sinks: { exporter: { export: { fn: () => undefined, callDuringReplay: false } } } };
}
