import { TRACE_HEADER as OPEN_TELEMETRY_TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { TRACE_HEADER } from '../../src/tracing/workflow-interceptors';

describe('tracing workflow interceptors', () => {
  it('look for the span context in the header that Temporal’s OpenTelemetry interceptors write', () => {
    // The workflow interceptors spell the header out so that untraced workflows never evaluate OpenTelemetry.
    expect(TRACE_HEADER).toBe(OPEN_TELEMETRY_TRACE_HEADER);
  });
});
