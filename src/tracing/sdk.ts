/**
 * The OpenTelemetry SDK behind {@link Tracing}: loaded only when tracing is on (by `startTracing`), so a process
 * without an OTLP endpoint loads none of it.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { asyncLocalStorage as activityContext } from '@temporalio/activity';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { TracingConfig } from '../config';
import type { PlatformRequestEvent } from '../platform/types';
import type { Tracing } from './types';

/** Name of the tracer of the service's own spans (start calls, platform calls). */
const TRACER_NAME = 'badge-orders';

/** Span attributes of a platform call: OpenTelemetry's HTTP names, plus the activity's attempt. */
export function platformCallAttributes(event: PlatformRequestEvent, activityAttempt?: number): Attributes {
  return {
    'http.request.method': event.method,
    'http.route': event.path,
    'badge.platform.api': event.route,
    ...(typeof event.status === 'number'
      ? { 'http.response.status_code': event.status }
      : { 'error.type': event.status }),
    ...(activityAttempt !== undefined && { 'badge.activity.attempt': activityAttempt }),
  };
}

/** Starts the SDK: a batch exporter to `config.endpoint`, registered as the process's tracer provider. */
export function startSdk(
  config: TracingConfig & { readonly endpoint: string },
  serviceName: string,
): Tracing {
  const exporterOptions = {
    url: config.endpoint,
    headers: { ...config.headers },
    timeoutMillis: config.exportTimeoutMs,
  };
  const exporter =
    config.protocol === 'http/json'
      ? new JsonTraceExporter(exporterOptions)
      : new ProtobufTraceExporter(exporterOptions);
  const resource = new Resource({ 'service.name': serviceName });
  const spanProcessor = new BatchSpanProcessor(exporter, {
    scheduledDelayMillis: config.scheduleDelayMs,
    exportTimeoutMillis: config.exportTimeoutMs,
  });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Global: Temporal's interceptors read the active context (AsyncLocalStorage) and the W3C propagator from it.
  provider.register();
  const tracer = provider.getTracer(TRACER_NAME);
  return {
    serviceName,
    clientInterceptor: new OpenTelemetryWorkflowClientInterceptor({ tracer }),
    workerOptions: () => ({
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      sinks: { exporter: makeWorkflowExporter(spanProcessor, resource) },
    }),
    inSpan: (name, fn) =>
      tracer.startActiveSpan(name, async (span) => {
        try {
          return await fn();
        } catch (error) {
          // The error's name only: messages may quote input.
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: error instanceof Error ? error.name : 'error',
          });
          throw error;
        } finally {
          span.end();
        }
      }),
    recordPlatformCall(event) {
      const end = Date.now();
      const span = tracer.startSpan(
        `${event.method} ${event.path}`,
        {
          kind: SpanKind.CLIENT,
          startTime: end - event.durationMs,
          attributes: platformCallAttributes(event, activityContext.getStore()?.info.attempt),
        },
        context.active(),
      );
      if (typeof event.status !== 'number' || event.status >= 400) {
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end(end);
    },
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      await provider.shutdown();
      // Later spans of this process go nowhere rather than to a stopped exporter.
      trace.disable();
    },
  };
}
