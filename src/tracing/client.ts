/**
 * The part of tracing a Temporal client needs (backend code, the starter, the API): a span around each start,
 * and the active trace carried to the workflow. No OpenTelemetry or worker code is loaded from here, so the
 * client package can carry it.
 */
import { Client, type ClientInterceptors, type WorkflowClientInterceptor } from '@temporalio/client';

/** What a client sees of its process's tracing (a `Tracing` from `startTracing` is one). */
export interface ClientTracing {
  /**
   * Wraps starts, signals, updates and queries in spans and carries the active trace to the workflow in the
   * call's headers (see {@link tracedClient}).
   */
  readonly clientInterceptor: WorkflowClientInterceptor;
  /** Runs `fn` in a new span, active for everything `fn` calls (so a start and its look-ups share one trace). */
  inSpan<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * The same client with the tracing interceptor added (same connection, namespace and data converter), or
 * `client` itself when tracing is off. For every process that starts or messages orders: starter, backend code.
 */
export function tracedClient(client: Client, tracing: ClientTracing | undefined): Client {
  if (tracing === undefined) return client;
  const interceptors: ClientInterceptors = {
    ...client.options.interceptors,
    workflow: [...workflowInterceptorList(client.options.interceptors), tracing.clientInterceptor],
  };
  return new Client({
    connection: client.connection,
    namespace: client.options.namespace,
    dataConverter: client.options.dataConverter,
    identity: client.options.identity,
    interceptors,
  });
}

function workflowInterceptorList(
  interceptors: ClientInterceptors | undefined,
): NonNullable<Extract<ClientInterceptors['workflow'], readonly unknown[]>> {
  const workflow = interceptors?.workflow;
  if (workflow === undefined) return [];
  if (Array.isArray(workflow)) return workflow;
  throw new Error('tracedClient: the client has workflow interceptors in the legacy object form');
}

/** Runs `fn` in a span named `name` when tracing is on; just runs it when off. */
export function inSpan<T>(
  tracing: ClientTracing | undefined,
  name: string,
  fn: () => Promise<T>,
): Promise<T> {
  return tracing === undefined ? fn() : tracing.inSpan(name, fn);
}
