/**
 * One trace per order, received over OTLP on loopback: the start call (this test process is the starter, with
 * the client's tracing), the workflow and its activities in a real worker process, and a span per platform HTTP
 * call. Also when the worker is SIGKILLed in the middle of an upload and the upload is retried by another
 * worker: still one connected trace. And when the order is placed through the HTTP API, whose request span is
 * then the root.
 */
import { temporal } from '@temporalio/proto';
import { BadgeOrdersClient } from '../../src/client/badge-orders-client';
import { loadTracingConfig } from '../../src/config';
import { badgeOrderWorkflowId } from '../../src/contract';
import { startTracing, type Tracing } from '../../src/tracing';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { startTestApi, TEST_KEYS } from '../api/api-server';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'TR-AC 1', owner: 'Erika Mustermann' };
const badge = { type: 'green' };
/** What a platform call's span may carry, and nothing else. */
const PLATFORM_SPAN_ATTRIBUTES = new Set([
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'error.type',
  'badge.platform.api',
  'badge.activity.attempt',
]);

const stack = useTestStack();
let receiver: OtlpReceiver;
let tracing: Tracing | undefined;
let orders: BadgeOrdersClient;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracing = await startTracing(
    loadTracingConfig({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    }),
    { serviceName: 'badge-orders-test-starter' },
  );
  orders = new BadgeOrdersClient({ client: stack.temporal.client, taskQueue: stack.taskQueue, tracing });
});

afterAll(async () => {
  await tracing?.shutdown();
  await receiver?.close();
});

/** The environment of a traced worker process: the standard variables, protobuf as in production. */
const tracedWorkerEnv = (): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
  OTEL_BSP_SCHEDULE_DELAY: '50',
});

const spansOf = (traceId: string): ReceivedSpan[] =>
  receiver.spans().filter((span) => span.traceId === traceId);
const named = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan[] =>
  spans.filter((span) => span.name === name);

/** The root span of `orderRef`'s trace: the start call's, or the HTTP API request's (`rootName`). */
async function rootOf(
  orderRef: string,
  rootName = 'StartBadgeOrder',
  workflowId = badgeOrderWorkflowId(orderRef),
): Promise<ReceivedSpan> {
  const [root] = await pollUntil(
    () =>
      Promise.resolve(
        receiver
          .spans()
          .filter(
            (span) =>
              span.name === rootName &&
              receiver
                .spans()
                .some(
                  (child) =>
                    child.traceId === span.traceId && child.attributes.temporalWorkflowId === workflowId,
                ),
          ),
      ),
    (roots) => roots.length === 1,
    { what: `the start span of ${orderRef}` },
  );
  return root!;
}

/** Every span's parent is in the trace, except the one root; all under one trace id. */
function expectConnected(spans: readonly ReceivedSpan[], root: ReceivedSpan): void {
  const ids = new Set(spans.map((span) => span.spanId));
  const orphans = spans.filter((span) => span !== root && !ids.has(span.parentSpanId));
  expect(orphans.map((span) => `${span.name} (${span.service})`)).toEqual([]);
  expect(root.parentSpanId).toBe('');
  expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
}

/**
 * The order's whole trace, once the workflow's span is in (it ends with the order, so the worker has sent
 * the rest before it), checked to be one connected tree under `root`.
 */
async function connectedOrderTrace(root: ReceivedSpan, what: string): Promise<readonly ReceivedSpan[]> {
  const spans = await pollUntil(
    () => Promise.resolve(spansOf(root.traceId)),
    (trace) => named(trace, 'RunWorkflow:badgeOrder').length === 1,
    { what },
  );
  expectConnected(spans, root);
  return spans;
}

/** The span's chain of names up to the root, e.g. `POST … < RunActivity:createOrder < StartActivity:… < …`. */
function ancestry(spans: readonly ReceivedSpan[], span: ReceivedSpan): string[] {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  const names: string[] = [];
  for (let current: ReceivedSpan | undefined = span; current; current = byId.get(current.parentSpanId)) {
    names.push(current.name);
  }
  return names;
}

function expectNoSecretsOrPersonalData(): void {
  const sent = receiver.bodies().join('\n');
  for (const secret of [stack.local.user.password, vehicle.licensePlate, vehicle.owner, 'Bearer ', 'eyJ']) {
    expect(sent).not.toContain(secret);
  }
  for (const span of receiver
    .spans()
    .filter((each) => each.name.startsWith('POST ') || each.name.startsWith('GET '))) {
    expect(Object.keys(span.attributes).filter((key) => !PLATFORM_SPAN_ATTRIBUTES.has(key))).toEqual([]);
    expect(String(span.attributes['http.route'])).toMatch(/^\/[\w/.-]+$/);
  }
}

it('traces an order from the start call through workflow and activities to each platform call', async () => {
  const worker = stack.startWorkerProcess(tracedWorkerEnv());
  try {
    stack.writeDocument('traced/form.pdf', '%PDF traced');
    const started = await orders.startOrder({
      orderRef: 'traced-1',
      stockId: 1001,
      vehicle,
      badge,
      documents: [{ path: 'traced/form.pdf' }],
    });
    await started.handle.result();
    await tracing?.forceFlush();
    const root = await rootOf('traced-1');
    expect(root.service).toBe('badge-orders-test-starter');
    const spans = await connectedOrderTrace(root, 'the workflow span');

    const [createOrder] = named(spans, 'POST /badge/v2/api/v1/orders');
    expect(createOrder?.service).toBe('badge-orders-worker');
    expect(createOrder?.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/badge/v2/api/v1/orders',
      'http.response.status_code': 201,
      'badge.platform.api': 'orders',
      'badge.activity.attempt': 1,
    });
    expect(ancestry(spans, createOrder!)).toEqual([
      'POST /badge/v2/api/v1/orders',
      'RunActivity:createOrder',
      'StartActivity:createOrder',
      'RunWorkflow:badgeOrder',
      'StartWorkflow:badgeOrder',
      'StartBadgeOrder',
    ]);
    expect(named(spans, 'GET /badge/v2/api/v1/stocks')).toHaveLength(1);
    const [upload] = named(spans, 'POST /document/api/v1/documents');
    expect(upload?.attributes['http.response.status_code']).toBe(201);
    expect(ancestry(spans, upload!).slice(1, 3)).toEqual([
      'RunActivity:uploadDocument',
      'StartActivity:uploadDocument',
    ]);
    expectNoSecretsOrPersonalData();
  } finally {
    await worker.kill('SIGTERM');
  }
});

it('keeps one connected trace when the worker is SIGKILLed in the middle of an upload and the upload is retried', async () => {
  // The first upload hangs until the worker is killed; the retry after it is answered at once.
  await stack.sandbox.control.setFaults({ latencyMs: 15_000, routes: ['documents'] });
  const first = stack.startWorkerProcess(tracedWorkerEnv());
  stack.writeDocument('killed/form.pdf', '%PDF killed');
  stack.writeDocument('killed/photo.jpg', Buffer.alloc(256, 7));
  const started = await orders.startOrder({
    orderRef: 'traced-killed',
    vehicle,
    badge,
    documents: [{ path: 'killed/form.pdf' }, { path: 'killed/photo.jpg' }],
    options: { maxParallelUploads: 1, uploadHeartbeatTimeoutMs: 5_000 },
  });
  await tracing?.forceFlush();
  const root = await rootOf('traced-killed');
  // Killed only once the first worker runs the upload, and has sent the spans of the steps it finished.
  await pollUntil(
    () => started.handle.describe(),
    (description) =>
      (description.raw.pendingActivities ?? []).some(
        (activity) =>
          activity.activityType?.name === 'uploadDocument' &&
          activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
      ),
    { what: 'the first upload to run' },
  );
  await pollUntil(
    () => Promise.resolve(spansOf(root.traceId)),
    (trace) =>
      named(trace, 'StartActivity:createOrder').length === 1 &&
      named(trace, 'RunActivity:createOrder').length === 1,
    { what: 'the first worker to send the spans of the order creation' },
  );
  await first.kill('SIGKILL');
  expect(first.child.signalCode).toBe('SIGKILL');

  await stack.sandbox.control.setFaults({});
  const second = stack.startWorkerProcess(tracedWorkerEnv());
  try {
    const result = await started.handle.result();
    expect(result.documents).toHaveLength(2);
  } finally {
    // A graceful stop sends the second worker's last spans.
    await second.kill('SIGTERM');
  }
  const spans = await connectedOrderTrace(root, 'the workflow span from the second worker');
  const uploads = named(spans, 'POST /document/api/v1/documents');
  // The killed attempt sent no span; the retry of the same activity (attempt 2, or later if a loaded
  // machine let an earlier heartbeat lapse on the first worker) runs under the same parent.
  const retried = uploads.filter((span) => Number(span.attributes['badge.activity.attempt']) > 1);
  expect(retried).toHaveLength(1);
  expect(ancestry(spans, retried[0]!).slice(1)).toEqual([
    'RunActivity:uploadDocument',
    'StartActivity:uploadDocument',
    'RunWorkflow:badgeOrder',
    'StartWorkflow:badgeOrder',
    'StartBadgeOrder',
  ]);
  expect(uploads.filter((span) => span.attributes['http.response.status_code'] === 201)).toHaveLength(2);
  expect(named(spans, 'StartActivity:uploadDocument')).toHaveLength(2);
  expectNoSecretsOrPersonalData();
});

it('starts the trace at the HTTP API when an order is placed through it', async () => {
  const worker = stack.startWorkerProcess(tracedWorkerEnv());
  const api = await startTestApi({ orders, tracing });
  try {
    stack.writeDocument('clients/writer/traced-api/form.pdf', '%PDF traced through the API');
    const placed = await fetch(`${api.url}/v1/orders/traced-api`, {
      method: 'PUT',
      headers: { 'x-api-key': TEST_KEYS.writer.key, 'content-type': 'application/json' },
      body: JSON.stringify({ vehicle, badge, documents: [{ path: 'clients/writer/traced-api/form.pdf' }] }),
    });
    expect(placed.status).toBe(201);
    await orders.getHandle({ orderRef: 'traced-api', clientId: 'writer' }).result();
    await tracing?.forceFlush();
    const root = await rootOf(
      'traced-api',
      'PUT /v1/orders/{orderRef}',
      badgeOrderWorkflowId('traced-api', 'writer'),
    );
    const spans = await connectedOrderTrace(root, 'the workflow span of the order placed through the API');
    const [createOrder] = named(spans, 'POST /badge/v2/api/v1/orders');
    expect(ancestry(spans, createOrder!).slice(-3)).toEqual([
      'StartWorkflow:badgeOrder',
      'StartBadgeOrder',
      'PUT /v1/orders/{orderRef}',
    ]);
    expectNoSecretsOrPersonalData();
  } finally {
    await api.close();
    await worker.kill('SIGTERM');
  }
});
