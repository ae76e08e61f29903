/**
 * Workflow interceptors bundled with the workflows (`TRACING_WORKFLOW_INTERCEPTOR_MODULES`): Temporal's
 * OpenTelemetry interceptors, for a workflow whose start carried a trace (a traced client started it, or the
 * run before it continued as new while traced). Any other workflow runs exactly as without them: no span, no
 * SDK flag, no extra await, so histories recorded without tracing replay unchanged and an untraced order
 * costs nothing. The decision reads only the history (the start's headers), so it is the same on replay.
 */
import type { Headers } from '@temporalio/common';
import type {
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowInterceptorsFactory,
  WorkflowInternalsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

/**
 * The header Temporal's OpenTelemetry interceptors carry a span context in (`TRACE_HEADER` of
 * `@temporalio/interceptors-opentelemetry/lib/instrumentation`; a unit test keeps the two equal). Spelt out here
 * because importing it would evaluate OpenTelemetry's modules in every workflow execution.
 */
export const TRACE_HEADER = '_tracer-data';

const carriesTrace = (headers: Headers): boolean => TRACE_HEADER in headers;

/**
 * Temporal's OpenTelemetry workflow interceptors, loaded on first use. The bundle evaluates its modules once per
 * workflow execution (each has its own module cache), and OpenTelemetry's modules cost more than the rest of an
 * order's workflow code together; an untraced order never loads them.
 */
function openTelemetryInterceptors(): WorkflowInterceptors {
  // A plain require: webpack bundles the module as usual but evaluates it only when this line runs.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors') as {
    interceptors: () => WorkflowInterceptors;
  };
  return loaded.interceptors();
}

/** Picked up by the bundler from `TRACING_WORKFLOW_INTERCEPTOR_MODULES`; one set per workflow execution. */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let traced = false;
  let tracing: WorkflowInterceptors | undefined;
  // Temporal's interceptors are built on first use only: building them sets up a tracer in the sandbox.
  const otel = (): WorkflowInterceptors => (tracing ??= openTelemetryInterceptors());
  const inbound = (): WorkflowInboundCallsInterceptor => otel().inbound?.[0] ?? {};
  const outbound = (): WorkflowOutboundCallsInterceptor => otel().outbound?.[0] ?? {};
  const internals = (): WorkflowInternalsInterceptor => otel().internals?.[0] ?? {};

  const inboundInterceptor: WorkflowInboundCallsInterceptor = {
    execute(input, next) {
      traced = carriesTrace(input.headers);
      const target = traced ? inbound() : undefined;
      return target?.execute ? target.execute(input, next) : next(input);
    },
    handleSignal(input, next) {
      const target = traced || carriesTrace(input.headers) ? inbound() : undefined;
      return target?.handleSignal ? target.handleSignal(input, next) : next(input);
    },
    handleUpdate(input, next) {
      const target = traced || carriesTrace(input.headers) ? inbound() : undefined;
      return target?.handleUpdate ? target.handleUpdate(input, next) : next(input);
    },
    validateUpdate(input, next) {
      const target = traced || carriesTrace(input.headers) ? inbound() : undefined;
      return target?.validateUpdate ? target.validateUpdate(input, next) : next(input);
    },
    // Queries are not traced: they change nothing, and status polling would bury an order's trace in them.
  };

  const outboundInterceptor: WorkflowOutboundCallsInterceptor = {
    scheduleActivity(input, next) {
      const target = traced ? outbound() : undefined;
      return target?.scheduleActivity ? target.scheduleActivity(input, next) : next(input);
    },
    scheduleLocalActivity(input, next) {
      const target = traced ? outbound() : undefined;
      return target?.scheduleLocalActivity ? target.scheduleLocalActivity(input, next) : next(input);
    },
    startChildWorkflowExecution(input, next) {
      const target = traced ? outbound() : undefined;
      return target?.startChildWorkflowExecution
        ? target.startChildWorkflowExecution(input, next)
        : next(input);
    },
    continueAsNew(input, next) {
      // Carries the trace into the next run's headers, so a long repair stays one trace.
      const target = traced ? outbound() : undefined;
      return target?.continueAsNew ? target.continueAsNew(input, next) : next(input);
    },
    signalWorkflow(input, next) {
      const target = traced ? outbound() : undefined;
      return target?.signalWorkflow ? target.signalWorkflow(input, next) : next(input);
    },
    getLogAttributes(input, next) {
      const target = traced ? outbound() : undefined;
      return target?.getLogAttributes ? target.getLogAttributes(input, next) : next(input);
    },
  };

  const internalsInterceptor: WorkflowInternalsInterceptor = {
    dispose(input, next) {
      const target = tracing === undefined ? undefined : internals();
      return target?.dispose ? target.dispose(input, next) : next(input);
    },
  };

  return {
    inbound: [inboundInterceptor],
    outbound: [outboundInterceptor],
    internals: [internalsInterceptor],
  };
};
