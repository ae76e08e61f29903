/**
 * What the rest of the service sees of tracing: one handle per process, or `undefined` when tracing is off.
 * Only types here, so that importing them loads no OpenTelemetry code.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';
import type { PlatformRequestEvent } from '../platform/types';

/** The trace export of one process, started by {@link startTracing}. */
export interface Tracing {
  /** `service.name` of the spans this process exports. */
  readonly serviceName: string;
  /**
   * For Temporal clients: wraps starts, signals, updates and queries in spans and carries the active trace to
   * the workflow in the call's headers (see `tracedClient`).
   */
  readonly clientInterceptor: WorkflowClientInterceptor;
  /** For workers: the activity interceptors and the sink through which workflow spans leave the sandbox. */
  workerOptions(): Required<Pick<WorkerOptions, 'sinks'>> & {
    readonly interceptors: Required<Pick<NonNullable<WorkerOptions['interceptors']>, 'activity'>>;
  };
  /** Runs `fn` in a new span, active for everything `fn` calls (so a start and its look-ups share one trace). */
  inSpan<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Records one platform HTTP attempt as a client span, a child of the span active when it ended (the
   * activity's): method, route template, status and the activity's attempt; never a body, header, token or
   * query string.
   */
  recordPlatformCall(event: PlatformRequestEvent): void;
  /** Sends every finished span now. */
  forceFlush(): Promise<void>;
  /** Sends what is left and stops exporting (at process exit). */
  shutdown(): Promise<void>;
}
