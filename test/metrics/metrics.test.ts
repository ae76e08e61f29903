/**
 * The worker's Prometheus endpoint: a real worker process (the SDK runtime is installed once per process, so
 * the endpoint needs its own) with METRICS_PORT, a real order through the sandbox, then an HTTP GET of
 * /metrics. The SDK's metrics and ours are served together.
 */
import { METRIC_NAMES } from '../../src/metrics';
import { startMetricsWorker, type MetricsWorker } from '../helpers/metrics-worker';
import { startTestStack, type TestStack } from '../helpers/stack';
import { orderAwaitingRepair } from '../helpers/orders';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'B-ME 1' };
const badge = { type: 'green' };

/** The value of the series `name{labels…}` whose labels include all of `labels`, or undefined. */
function valueOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+([-+\d.eE]+|NaN)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = new Map(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((label) => [label[1], label[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => present.get(key) === value)) return Number(match[3]);
  }
  return undefined;
}

describe('metrics endpoint', () => {
  let stack: TestStack;
  let metrics: MetricsWorker;

  beforeAll(async () => {
    stack = await startTestStack();
    // The stack's prebuilt bundle comes from serviceBundleOptions(), so it carries the metrics interceptors.
    // Uploads that may have stored the file are held for a person (and counted as held, not failed).
    metrics = await startMetricsWorker(stack, { BADGE_UPLOAD_UNKNOWN_OUTCOME: 'hold' });
  });

  afterAll(async () => {
    await metrics?.worker.kill('SIGTERM');
    await stack?.teardown();
  });

  it('serves the SDK metrics and the service counters after an order', async () => {
    stack.writeDocument('metrics/form.pdf', '%PDF metrics');
    stack.writeDocument('metrics/photo.jpg', Buffer.alloc(512, 3));
    const completed = await stack.orders.startOrder({
      orderRef: 'metrics-ok',
      stockId: 1001,
      vehicle,
      badge,
      documents: [{ path: 'metrics/form.pdf' }, { path: 'metrics/photo.jpg' }],
    });
    await completed.handle.result();
    await orderAwaitingRepair(stack, 'metrics-stuck', vehicle);
    // The platform stores the next document and answers 500: the upload may have stored it, so it is held.
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'documents', kind: 'commit-then-500' }] });
    await stack.orders.startOrder({
      orderRef: 'metrics-held',
      vehicle,
      badge,
      documents: [{ path: stack.writeDocument('metrics/held.pdf', '%PDF held') }],
    });

    const text = await pollUntil(
      () => metrics.scrape(),
      (body) =>
        valueOf(body, METRIC_NAMES.documents, { outcome: 'failed' }) === 1 &&
        valueOf(body, METRIC_NAMES.documents, { outcome: 'held' }) === 1,
      { what: 'the metrics endpoint to count the failed and the held document' },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nworker output: ${metrics.worker.output().slice(-3000)}`);
    });

    expect(valueOf(text, METRIC_NAMES.orders, { outcome: 'completed', workflowType: 'badgeOrder' })).toBe(1);
    expect(valueOf(text, METRIC_NAMES.orders, { outcome: 'failed' })).toBeUndefined();
    expect(valueOf(text, METRIC_NAMES.documents, { outcome: 'uploaded' })).toBe(2);
    expect(valueOf(text, METRIC_NAMES.documents, { outcome: 'failed' })).toBe(1);
    expect(valueOf(text, METRIC_NAMES.documents, { outcome: 'held' })).toBe(1);
    expect(
      valueOf(text, METRIC_NAMES.platformRequests, { route: 'orders', method: 'POST', status: '201' }),
    ).toBe(3);
    expect(valueOf(text, METRIC_NAMES.platformRequests, { route: 'stocks', status: '200' })).toBe(1);
    expect(valueOf(text, METRIC_NAMES.platformRequests, { route: 'documents', status: '201' })).toBe(2);
    expect(valueOf(text, METRIC_NAMES.platformRequests, { route: 'documents', status: '422' })).toBe(1);
    expect(valueOf(text, METRIC_NAMES.platformRequests, { route: 'documents', status: '500' })).toBe(1);
    // One login serves every order: the token cache works, and the counter shows it.
    expect(valueOf(text, METRIC_NAMES.authCalls, { status: '200' })).toBe(1);
    // The SDK's own metrics are on the same endpoint.
    expect(text).toMatch(/^temporal_workflow_completed\{.*workflow_type="badgeOrder".*\} 1$/m);
    expect(text).toMatch(/^temporal_activity_execution_latency/m);
  });
});
