/**
 * The worker's Prometheus endpoint: a real worker process (the SDK runtime is installed once per process, so
 * the endpoint needs its own) with METRICS_PORT, a real order through the sandbox, then an HTTP GET of
 * /metrics. The SDK's metrics and ours are served together.
 */
import { createServer } from 'node:net';
import { METRIC_NAMES } from '../../src/metrics';
import { startTestStack, type TestStack, type WorkerProcess } from '../helpers/stack';
import { orderAwaitingRepair } from '../helpers/orders';
import { waitFor } from '../helpers/wait';
import { waitUntilServing } from '../../tools/oidc/binary-process';

const vehicle = { licensePlate: 'B-ME 1' };
const badge = { type: 'green' };

/** A port that was free a moment ago (the worker binds it right after). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

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
  let worker: WorkerProcess;
  let port: number;

  beforeAll(async () => {
    stack = await startTestStack();
    // The SDK binds the port it is given (it cannot report one it picked), so the test picks a free one. Another
    // process may take it before the worker binds it; the worker then exits at start and gets another port.
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      // The stack's prebuilt bundle comes from serviceBundleOptions(), so it carries the metrics interceptors.
      worker = stack.startWorkerProcess({ METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' });
      try {
        await waitUntilServing(worker, `http://127.0.0.1:${port}/metrics`);
        break;
      } catch (error) {
        // Rejected with its output: a worker still running did not serve in time; the third exit is no race.
        if (worker.running() || attempt === 3) throw error;
      }
    }
  });

  afterAll(async () => {
    await worker?.kill('SIGTERM');
    await stack?.teardown();
  });

  const scrape = async (): Promise<string> => {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
    return response.text();
  };

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

    const text = await waitFor(
      scrape,
      (body) => valueOf(body, METRIC_NAMES.documents, { outcome: 'failed' }) === 1,
      {
        what: `the metrics endpoint to count the failed document (worker output: ${worker.output().slice(-2000)})`,
      },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${worker.output().slice(-3000)}`);
    });

    expect(valueOf(text, METRIC_NAMES.orders, { outcome: 'completed', workflowType: 'badgeOrder' })).toBe(1);
    expect(valueOf(text, METRIC_NAMES.orders, { outcome: 'failed' })).toBeUndefined();
    expect(valueOf(text, METRIC_NAMES.documents, { outcome: 'uploaded' })).toBe(2);
    expect(valueOf(text, METRIC_NAMES.documents, { outcome: 'failed' })).toBe(1);
    expect(
      valueOf(text, METRIC_NAMES.platformRequests, { route: 'orders', method: 'POST', status: '201' }),
    ).toBe(2);
    expect(valueOf(text, METRIC_NAMES.platformRequests, { route: 'stocks', status: '200' })).toBe(1);
    expect(valueOf(text, METRIC_NAMES.platformRequests, { route: 'documents', status: '201' })).toBe(2);
    expect(valueOf(text, METRIC_NAMES.platformRequests, { route: 'documents', status: '422' })).toBe(1);
    // One login serves both orders: the token cache works, and the counter shows it.
    expect(valueOf(text, METRIC_NAMES.authCalls, { status: '200' })).toBe(1);
    // The SDK's own metrics are on the same endpoint.
    expect(text).toMatch(/^temporal_workflow_completed\{.*workflow_type="badgeOrder".*\} 1$/m);
    expect(text).toMatch(/^temporal_activity_execution_latency/m);
  });
});
