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

const carriesTrace = (headers?: Headers): boolean => headers !== undefined && TRACE_HEADER in headers;

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

/** A method of an interceptor, as seen by {@link forwarding}. */
type Forwarded = (input: { readonly headers?: Headers }, next: (input: unknown) => unknown) => unknown;

/**
 * An interceptor whose methods `names` each call Temporal's interceptor method of the same name, when `target`
 * gives an interceptor for the call, and otherwise pass the call straight to `next`.
 */
function forwarding<I extends object>(
  names: readonly (keyof I & string)[],
  target: (name: keyof I, input: { readonly headers?: Headers }) => I | undefined,
): I {
  const methods = names.map((name): [string, Forwarded] => [
    name,
    (input, next) => {
      const to = target(name, input);
      const method = to?.[name] as Forwarded | undefined;
      return method === undefined ? next(input) : method.call(to, input, next);
    },
  ]);
  return Object.fromEntries(methods) as I;
}

/** Picked up by the bundler from `TRACING_WORKFLOW_INTERCEPTOR_MODULES`; one set per workflow execution. */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let traced = false;
  let tracing: WorkflowInterceptors | undefined;
  // Temporal's interceptors are built on first use only: building them sets up a tracer in the sandbox.
  const otel = (): WorkflowInterceptors => (tracing ??= openTelemetryInterceptors());

  return {
    // Queries are not traced: they change nothing, and status polling would bury an order's trace in them.
    inbound: [
      forwarding<WorkflowInboundCallsInterceptor>(
        ['execute', 'handleSignal', 'handleUpdate', 'validateUpdate'],
        (name, input) => {
          if (name === 'execute') traced = carriesTrace(input.headers);
          return traced || carriesTrace(input.headers) ? otel().inbound?.[0] : undefined;
        },
      ),
    ],
    // continueAsNew carries the trace into the next run's headers, so a long repair stays one trace.
    outbound: [
      forwarding<WorkflowOutboundCallsInterceptor>(
        [
          'scheduleActivity',
          'scheduleLocalActivity',
          'startChildWorkflowExecution',
          'continueAsNew',
          'signalWorkflow',
          'getLogAttributes',
        ],
        () => (traced ? otel().outbound?.[0] : undefined),
      ),
    ],
    internals: [
      forwarding<WorkflowInternalsInterceptor>(['dispose'], () =>
        tracing === undefined ? undefined : otel().internals?.[0],
      ),
    ],
  };
};
