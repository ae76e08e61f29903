/**
 * What the rest of the service sees of tracing: one handle per process, or `undefined` when tracing is off.
 * Only types here, so that importing them loads no OpenTelemetry code.
 */
import type { WorkerOptions } from '@temporalio/worker';
import type { PlatformRequestEvent } from '../platform/types';
import type { ClientTracing } from './client';

/** The trace export of one process, started by {@link startTracing}. */
export interface Tracing extends ClientTracing {
  /** `service.name` of the spans this process exports. */
  readonly serviceName: string;
  /** For workers: the activity interceptors and the sink through which workflow spans leave the sandbox. */
  workerOptions(): Required<Pick<WorkerOptions, 'sinks'>> & {
    readonly interceptors: Required<Pick<NonNullable<WorkerOptions['interceptors']>, 'activity'>>;
  };
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
