/**
 * What users deploy, run as they run it: the image built from the Dockerfile and `docker compose up` of
 * docker-compose.yml (with the sandbox profile) on a Docker engine of this machine (test/compose/compose-stack.ts).
 * A backend places orders through the HTTP API and with the starter; an operator repairs one through the
 * nightly Schedule the stack applied, scales the workers, loses one mid-upload, restarts PostgreSQL, takes the
 * stack down and up again, reads an order in the Web UI, scrapes metrics and receives traces. Whatever happens,
 * every order is placed once on the platform: the sandbox's ground truth says so.
 *
 * The scenarios share one stack and run in order; each leaves no order unfinished.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { REPLAY_SCHEDULE_ID, badgeOrderWorkflowId } from '../../src/contract';
import { NO_CLIENT } from '../../src/http-contract';
import type { OrderRecord } from '../../src/sandbox/store';
import { DEFAULT_RULES } from '../../src/sandbox';
import { PROJECT_ROOT, resolveTemporalCli } from '../../tools/dev/temporal-cli';
import { CHROMIUM_PATH } from '../e2e/browser';
import { pollUntil } from '../../tools/dev/poll';
import {
  METRICS_PORT,
  NAMESPACE,
  TASK_QUEUE,
  runHost,
  startComposeStack,
  type ComposeStack,
} from './compose-stack';

/** Largest image accepted: Debian slim + Node.js 24 (≈ 250 MB) + production dependencies (≈ 190 MB). */
const IMAGE_SIZE_BUDGET_BYTES = 500 * 1000 * 1000;
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(64, 7)]);
const PDF = (text: string): Buffer => Buffer.from(`%PDF-1.4 ${text}`);

let stack: ComposeStack;
/** The client the API key of the stack belongs to (its id): orders placed through the API are its own. */
const API_CLIENT = 'backend';

/**
 * Every order this file placed, by orderRef, with the client that owns it (none for the starter's): the
 * platform must hold each exactly once at the end.
 */
const placed = new Map<string, string | undefined>();

/** The workflow id of an order this file placed: its ref and, when placed through the API, its client. */
function workflowIdOf(orderRef: string): string {
  return badgeOrderWorkflowId(orderRef, placed.has(orderRef) ? placed.get(orderRef) : API_CLIENT);
}
/** The platform's orders before each `down` (the sandbox starts empty after `up`). */
const earlierPlatforms: OrderRecord[][] = [];

beforeAll(async () => {
  stack = await startComposeStack();
}, 1_800_000);

afterAll(async () => {
  if (stack) {
    process.stderr.write(`compose test timings (ms): ${JSON.stringify(stack.timings)}\n`);
    await stack.teardown();
  }
}, 600_000);

function orderInput(
  orderRef: string,
  documents: readonly Record<string, unknown>[],
): Record<string, unknown> {
  const n = [...orderRef].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) % 1_000_000, 7);
  return {
    stockId: 1001,
    vehicle: {
      licensePlate: `B-CP ${n % 10_000}`,
      vin: `WVWZZZ1JZXW${String(n).padStart(6, '0')}`,
      fuel: 'diesel',
    },
    badge: { type: 'green', validFrom: '2027-01-01' },
    documents,
  };
}

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${stack.urls.api}${path}`, {
    ...init,
    headers: { 'x-api-key': stack.secrets.apiKey, ...(init.headers as Record<string, string>) },
  });
}

/** `POST /v1/documents`, then `PUT /v1/orders/{ref}` naming the stored document: what a backend does. */
async function placeThroughApi(
  orderRef: string,
  file: { name: string; type: string; content: Buffer },
): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([file.content], { type: file.type }), file.name);
  const stored = await api('/v1/documents', { method: 'POST', body: form });
  expect(stored.status).toBe(201);
  const { ref } = (await stored.json()) as { ref: string };
  const answer = await api(`/v1/orders/${orderRef}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(orderInput(orderRef, [{ ref }])),
  });
  expect({ orderRef, status: answer.status }).toEqual({ orderRef, status: 201 });
  placed.set(orderRef, API_CLIENT);
}

interface OrderAnswer {
  readonly runStatus: string;
  readonly status: string;
  readonly orderId: string | number | null;
  readonly result: { readonly documents: readonly { status: string }[] } | null;
}

async function orderAnswer(orderRef: string): Promise<OrderAnswer> {
  // The key has the `ops` scope, which sees every client's orders: `-` names an order placed without a client.
  const query = placed.has(orderRef) && placed.get(orderRef) === undefined ? `?clientId=${NO_CLIENT}` : '';
  const answer = await api(`/v1/orders/${orderRef}${query}`);
  if (answer.status !== 200) throw new Error(`GET /v1/orders/${orderRef}: ${answer.status}`);
  return (await answer.json()) as OrderAnswer;
}

async function completed(orderRefs: readonly string[], timeoutMs = 180_000): Promise<void> {
  for (const orderRef of orderRefs) {
    await pollUntil(
      () => orderAnswer(orderRef),
      (order) => order.runStatus !== 'RUNNING',
      { what: `${orderRef} to finish`, timeoutMs, intervalMs: 500 },
    ).then((order) => expect({ orderRef, status: order.status }).toEqual({ orderRef, status: 'Completed' }));
  }
}

/** Orders on the platform, by the idempotency key of their creation (`<workflowId>:create`). */
function ordersByWorkflow(platforms: readonly (readonly OrderRecord[])[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const orders of platforms) {
    for (const order of orders) {
      const key = (order.idempotency_key ?? '').replace(/:create$/, '');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

async function runningWorkers(): Promise<string[]> {
  return (await stack.containers())
    .filter((container) => container.Service === 'worker' && container.State === 'running')
    .map((container) => container.ID);
}

/**
 * Whether the worker in this container has long polls open for workflow and for activity tasks, as its own
 * metrics say (`temporal_num_pollers` by `poller_type`). Temporal's DescribeTaskQueue lists only the pollers of
 * the root partition, which a new worker reaches at random: up to a minute later here.
 */
async function polling(containerId: string): Promise<boolean> {
  const metrics = await (
    await fetch(`http://${await stack.containerAddress(containerId)}:${METRICS_PORT}/metrics`)
  ).text();
  return ['workflow_task', 'activity_task'].every((type) =>
    new RegExp(`^temporal_num_pollers\\{[^}]*poller_type="${type}"[^}]*\\} [1-9]`, 'm').test(metrics),
  );
}

async function temporalCli(args: readonly string[]): Promise<string> {
  const cli = await resolveTemporalCli({ allowSdkDownload: false });
  if (cli.kind !== 'binary') throw new Error('no Temporal CLI');
  return runHost(cli.path, [...args, '--address', stack.urls.temporal, '--namespace', NAMESPACE], {});
}

describe('the image', () => {
  it('runs as a non-root user and holds only compiled JavaScript and production dependencies, within the size budget', async () => {
    const inspected = JSON.parse(
      await stack.engine.docker(['image', 'inspect', '--format', '{{json .}}', stack.image]),
    ) as { Size: number; Config: { User: string } };
    stack.timings[`image size (MB)`] = Math.round(inspected.Size / 1e6);
    expect(inspected.Config.User).toBe('node');
    expect(inspected.Size).toBeLessThanOrEqual(IMAGE_SIZE_BUDGET_BYTES);

    const listing = await stack.engine.docker([
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      stack.image,
      '-c',
      'id -u; ls -A /app; find /app -path /app/node_modules -prune -o -type f -print',
    ]);
    const [uid, ...lines] = listing.trim().split('\n');
    expect(uid).toBe('1000');
    const files = lines.filter((line) => line.startsWith('/app/'));
    expect(lines.filter((line) => !line.startsWith('/app/')).sort()).toEqual([
      'bundle',
      'dist',
      'node_modules',
      'package.json',
    ]);
    // Outside node_modules: compiled JavaScript (and source maps) and the package manifest, nothing else.
    expect(files.filter((file) => !/\.js(\.map)?$/.test(file) && file !== '/app/package.json')).toEqual([]);

    // No package the lockfile marks as needed for development only.
    const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.dev === true)
      .map(([path]) => path);
    expect(devOnly.length).toBeGreaterThan(100);
    const shipped = await stack.engine.docker(
      [
        'run',
        '--rm',
        '-i',
        '--entrypoint',
        'sh',
        stack.image,
        '-c',
        'while read -r p; do [ -e "/app/$p" ] && echo "$p"; done; true',
      ],
      { input: `${devOnly.join('\n')}\n` },
    );
    expect(shipped.split('\n').filter(Boolean)).toEqual([]);
  });
});

describe('docker compose up', () => {
  it('starts every service healthy, and the stack itself applied the nightly Schedule', async () => {
    const containers = await stack.containers();
    expect(containers.find((container) => container.Service === 'schedule')).toMatchObject({
      State: 'exited',
      ExitCode: 0,
    });
    const described = JSON.parse(
      await temporalCli(['schedule', 'describe', '--schedule-id', REPLAY_SCHEDULE_ID, '--output', 'json']),
    ) as { schedule: { spec: unknown; state?: { paused?: boolean } } };
    expect(described.schedule.state?.paused ?? false).toBe(false);
    // Published on loopback only.
    const published = await stack.compose(['ps', '--format', '{{.Service}} {{.Ports}}']);
    for (const line of published.split('\n').filter((entry) => entry.includes('->'))) {
      expect(line).not.toMatch(/0\.0\.0\.0:\d+->|\[::\]:\d+->/);
    }
  });

  it('places an order through the HTTP API with a document it stored, and one with the starter', async () => {
    await placeThroughApi('cp-api-1', { name: 'form.pdf', type: 'application/pdf', content: PDF('api') });

    // The starter on the host, against the published frontend, naming a document put into the volume with
    // `docker compose cp` (docs/deployment.md, "Volumes").
    const scratch = mkdtempSync(join(tmpdir(), 'badge-compose-starter-'));
    try {
      writeFileSync(join(scratch, 'starter-form.pdf'), PDF('starter'));
      await stack.compose(['cp', join(scratch, 'starter-form.pdf'), 'api:/data/documents/starter-form.pdf']);
      const orderFile = join(scratch, 'order.json');
      writeFileSync(
        orderFile,
        JSON.stringify({
          orderRef: 'cp-starter-1',
          ...orderInput('cp-starter-1', [{ path: 'starter-form.pdf' }]),
        }),
      );
      placed.set('cp-starter-1', undefined);
      const output = await runHost(
        process.execPath,
        ['--import', 'tsx', 'src/main/starter.ts', orderFile, '--wait'],
        stack.clientEnv,
      );
      expect(output).toContain(`Started ${badgeOrderWorkflowId('cp-starter-1')}`);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    await completed(['cp-api-1', 'cp-starter-1']);

    const sandbox = await stack.sandbox();
    const [orders, documents] = [await sandbox.listOrders(), await sandbox.listDocuments()];
    for (const orderRef of ['cp-api-1', 'cp-starter-1']) {
      const { orderId } = await orderAnswer(orderRef);
      const onPlatform = {
        orders: orders.filter((entry) => String(entry.id) === String(orderId)).length,
        documents: documents.filter((entry) => String(entry.order_id) === String(orderId)).length,
      };
      expect({ orderRef, onPlatform }).toEqual({ orderRef, onPlatform: { orders: 1, documents: 1 } });
    }
  });

  it('repairs an order awaiting repair when the nightly Schedule is triggered with the Temporal CLI', async () => {
    await placeThroughApi('cp-repair-1', { name: 'animation.gif', type: 'image/gif', content: GIF });
    await pollUntil(
      () => orderAnswer('cp-repair-1'),
      (order) => order.status === 'AwaitingRepair',
      { what: 'cp-repair-1 to await repair', timeoutMs: 120_000, intervalMs: 500 },
    );
    // The replay finds the order through visibility (PostgreSQL): wait until it lists it there.
    await pollUntil(
      () =>
        stack.client.workflow.count(`BadgeOrderStatus = 'AwaitingRepair' AND BadgeOrderRef = 'cp-repair-1'`),
      (count) => count.count === 1,
      { what: 'visibility to list cp-repair-1 as AwaitingRepair' },
    );
    const sandbox = await stack.sandbox();
    await sandbox.setRules({ acceptedContentTypes: [...DEFAULT_RULES.acceptedContentTypes, 'image/gif'] });
    await temporalCli(['schedule', 'trigger', '--schedule-id', REPLAY_SCHEDULE_ID]);
    await completed(['cp-repair-1']);
    const signals = (
      (await stack.client.workflow.getHandle(workflowIdOf('cp-repair-1')).fetchHistory()).events ?? []
    ).filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'retryUploads');
    expect(signals).toHaveLength(1);
  });

  it('scales to three workers, each polling, and loses one mid-upload without losing an order', async () => {
    const before = await runningWorkers();
    await stack.compose(['up', '--detach', '--no-deps', '--scale', 'worker=3', 'worker']);
    const workers = await pollUntil(runningWorkers, (ids) => ids.length === 3, { what: 'three workers' });
    const added = workers.filter((id) => !before.includes(id));
    // From each new container's start until its worker has polls open for both task kinds: reported, not
    // asserted (measured: 3–5 s, once 52 s under load); the time limit only turns a hang into a failure.
    const firstPoll = new Map<string, number>();
    await pollUntil(
      async () => {
        for (const id of added) {
          if (!firstPoll.has(id) && (await polling(id).catch(() => false))) firstPoll.set(id, Date.now());
        }
        return firstPoll.size;
      },
      (polling) => polling === added.length,
      { what: 'the new workers to poll', timeoutMs: 240_000, intervalMs: 250 },
    );
    for (const id of added) {
      const started = Date.parse(
        (await stack.engine.docker(['inspect', '--format', '{{.State.StartedAt}}', id])).trim(),
      );
      const polling = (firstPoll.get(id) ?? Infinity) - started;
      // Where the time goes: the process's own start (its "worker started" log line), then the first poll.
      const logged = (await stack.engine.docker(['logs', id]))
        .split('\n')
        .map((line) => /"time":(\d+).*"msg":"worker started"/.exec(line)?.[1])
        .find((time) => time !== undefined);
      stack.timings[`worker ${id.slice(0, 12)}: container start until polling`] = polling;
      stack.timings[`worker ${id.slice(0, 12)}: container start until "worker started"`] =
        Number(logged) - started;
    }

    // Uploads take seconds now: a worker dies while one is on the wire.
    const sandbox = await stack.sandbox();
    await sandbox.setFaults({ latencyMs: 4_000, routes: ['documents'] });
    const refs = ['cp-kill-1', 'cp-kill-2', 'cp-kill-3'];
    for (const orderRef of refs) {
      await placeThroughApi(orderRef, { name: 'form.pdf', type: 'application/pdf', content: PDF(orderRef) });
    }
    const uploading = await pollUntil(
      async () => {
        for (const orderRef of refs) {
          const described = await stack.client.workflow.getHandle(workflowIdOf(orderRef)).describe();
          const upload = described.raw.pendingActivities?.find(
            (activity) => activity.activityType?.name === 'uploadDocument' && activity.lastWorkerIdentity,
          );
          const worker = workers.find((id) => upload?.lastWorkerIdentity?.endsWith(`@${id.slice(0, 12)}`));
          if (worker) return worker;
        }
        return undefined;
      },
      (worker) => worker !== undefined,
      { what: 'an upload in flight on a worker', timeoutMs: 120_000, intervalMs: 200 },
    );
    await stack.engine.docker(['kill', uploading ?? '']);
    await sandbox.setFaults({});
    await completed(refs);
    // The killed upload was sent again with its Idempotency-Key: one document per order.
    const documents = await sandbox.listDocuments();
    for (const orderRef of refs) {
      const { orderId } = await orderAnswer(orderRef);
      const stored = documents.filter((document) => String(document.order_id) === String(orderId)).length;
      expect({ orderRef, stored }).toEqual({ orderRef, stored: 1 });
    }
    // A killed container stays down (docker kill counts as stopped on purpose) until compose starts it again.
    await stack.compose(['up', '--detach', '--no-deps', '--scale', 'worker=3', 'worker']);
    await pollUntil(runningWorkers, (ids) => ids.length === 3 && ids.includes(uploading ?? ''), {
      what: 'the killed worker back',
      timeoutMs: 120_000,
    });
  });

  it('finishes the orders in flight when the PostgreSQL container restarts', async () => {
    const refs = ['cp-pg-1', 'cp-pg-2'];
    for (const orderRef of refs) {
      await placeThroughApi(orderRef, { name: 'form.pdf', type: 'application/pdf', content: PDF(orderRef) });
    }
    await stack.compose(['restart', 'postgresql']);
    await completed(refs, 300_000);
  });

  it('keeps every order across docker compose down and up, and finishes the ones waiting', async () => {
    // The platform is down for maintenance: these orders wait, nothing of them reaches it.
    const sandbox = await stack.sandbox();
    await sandbox.setFaults({ maintenance: true });
    const refusedBefore = (await sandbox.stats()).faults.maintenance ?? 0;
    const waiting = ['cp-down-1', 'cp-down-2'];
    for (const orderRef of waiting) {
      await placeThroughApi(orderRef, { name: 'form.pdf', type: 'application/pdf', content: PDF(orderRef) });
    }
    await pollUntil(
      () => sandbox.stats(),
      (stats) => (stats.faults.maintenance ?? 0) >= refusedBefore + waiting.length,
      { what: 'the platform in maintenance to refuse the waiting orders', timeoutMs: 120_000 },
    );
    earlierPlatforms.push(await sandbox.listOrders());

    const started = Date.now();
    await stack.compose(['down']);
    await stack.compose(['up', '--detach']);
    await stack.waitHealthy();
    stack.timings['down and up until healthy'] = Date.now() - started;

    await completed(waiting, 300_000);
    // Every order placed so far is still there, finished as before.
    await completed([...placed.keys()]);
  });

  it('places every order exactly once on the platform, whatever happened', async () => {
    const now = await (await stack.sandbox()).listOrders();
    const counts = ordersByWorkflow([...earlierPlatforms, now]);
    for (const orderRef of placed.keys()) {
      const workflowId = workflowIdOf(orderRef);
      expect({ orderRef, onPlatform: counts.get(workflowId) ?? 0 }).toEqual({ orderRef, onPlatform: 1 });
    }
  });
});

describe('operating the stack', () => {
  it('serves the Web UI, which shows an order’s input decoded through the codec server', async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--no-sandbox'],
    });
    try {
      const page = await browser.newPage();
      // The operator's codec token: the plain stack's UI cannot send one itself (the OIDC overlay passes the
      // operator's own token instead, test/cluster/oidc-sign-in.test.ts), so the browser adds it.
      await page.route(`${stack.urls.codec}/**`, (route) =>
        route.continue({
          headers: { ...route.request().headers(), authorization: `Bearer ${stack.secrets.codecToken}` },
        }),
      );
      const decoded: string[] = [];
      page.on('response', (response) => {
        const { origin, pathname } = new URL(response.url());
        if (origin === stack.urls.codec)
          decoded.push(`${response.request().method()} ${pathname} ${response.status()}`);
      });
      await page.goto(`${stack.urls.ui}/namespaces/${NAMESPACE}/workflows/${workflowIdOf('cp-api-1')}`);
      const plate = (orderInput('cp-api-1', []).vehicle as { licensePlate: string }).licensePlate;
      await page.getByText(plate).first().waitFor({ timeout: 120_000 });
      expect(decoded).toContainEqual(expect.stringMatching(/^POST \/(\S+\/)?decode 200$/));
    } finally {
      await browser.close();
    }
  });

  it('serves Prometheus metrics from a worker container', async () => {
    const [worker] = await runningWorkers();
    const address = await stack.containerAddress(worker ?? '');
    const metrics = await pollUntil(
      async () => (await fetch(`http://${address}:${METRICS_PORT}/metrics`)).text(),
      (text) => text.includes('badge_orders_in_status'),
      { what: 'the worker’s status gauges', timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(metrics).toMatch(/^temporal_\w+/m);
    expect(metrics).toMatch(/^badge_\w+/m);
  });

  it('sends each order’s trace from the API and the worker to the collector OTEL_EXPORTER_OTLP_ENDPOINT names', async () => {
    const spans = await pollUntil(
      () => Promise.resolve(stack.collector.spans()),
      (received) =>
        ['badge-orders-api', 'badge-orders-worker'].every((service) =>
          received.some((span) => span.service === service),
        ),
      { what: 'spans from the API and the worker', timeoutMs: 60_000 },
    );
    const apiTraces = new Set(
      spans.filter((span) => span.service === 'badge-orders-api').map((span) => span.traceId),
    );
    expect(spans.some((span) => span.service === 'badge-orders-worker' && apiTraces.has(span.traceId))).toBe(
      true,
    );
  });

  it('answers 503 saying what to run on a namespace without search attributes, and registers them by default', async () => {
    const namespace = `fresh-${process.pid}`;
    await stack.compose([
      'run',
      '--rm',
      '--no-deps',
      '--entrypoint',
      'temporal',
      'temporal-setup',
      'operator',
      'namespace',
      'create',
      '--namespace',
      namespace,
      '--address',
      'temporal:7233',
    ]);
    const order = JSON.stringify(orderInput('cp-fresh-1', []));
    const put = async (
      ensure: string,
    ): Promise<{ status: number; body: { code?: string; detail?: string } }> => {
      const name = `${stack.project}-fresh-api-${ensure}`;
      await stack.compose([
        'run',
        '--detach',
        '--no-deps',
        '--name',
        name,
        '--env',
        `TEMPORAL_NAMESPACE=${namespace}`,
        '--env',
        `ENSURE_SEARCH_ATTRIBUTES=${ensure}`,
        'api',
      ]);
      try {
        const address = await stack.containerAddress(name);
        await pollUntil(
          async () => (await fetch(`http://${address}:8090/healthz`)).status,
          (status) => status === 200,
          { what: 'the API on the fresh namespace' },
        );
        const answers: number[] = [];
        // 503 (retry-after) until the frontend's search attribute cache knows the new ones, then the answer.
        const last = await pollUntil(
          async () => {
            const answer = await fetch(`http://${address}:8090/v1/orders/cp-fresh-1`, {
              method: 'PUT',
              headers: { 'x-api-key': stack.secrets.apiKey, 'content-type': 'application/json' },
              body: order,
            });
            answers.push(answer.status);
            return {
              status: answer.status,
              body: (await answer.json()) as { code?: string; detail?: string },
            };
          },
          (answer) => answer.status !== 503 || ensure === 'false',
          {
            what: 'the API to place the order on the fresh namespace',
            timeoutMs: 120_000,
            intervalMs: 2_000,
          },
        );
        expect(answers.filter((status) => status !== 503 && status !== 201)).toEqual([]);
        return last;
      } finally {
        await stack.engine.docker(['rm', '--force', name]);
      }
    };
    const refused = await put('false');
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('search-attributes-missing');
    expect(refused.body.detail).toContain(
      `temporal operator search-attribute create --namespace ${namespace}`,
    );
    // The API adds them at start, as the worker does; the frontend knows them within its cache's refresh.
    const accepted = await put('true');
    expect(accepted.status).toBe(201);
    // No worker polls that namespace: the order is left to the namespace's retention, never placed.
    await stack.client.workflowService.terminateWorkflowExecution({
      namespace,
      workflowExecution: { workflowId: workflowIdOf('cp-fresh-1') },
      reason: 'compose test: a namespace without workers',
    });
  });

  it('deploys a versioned build: WORKER_VERSIONING from .env reaches the workers, and new orders run on the current build', async () => {
    const buildId = `compose-${process.pid}`;
    // What an operator sets in .env for the next `up`; the shell's environment wins over .env files.
    await stack.compose(['up', '--detach', '--no-deps', 'worker'], {
      env: { WORKER_VERSIONING: 'true', WORKER_BUILD_ID: buildId },
    });
    await pollUntil(
      async () =>
        temporalCli([
          'worker',
          'deployment',
          'describe-version',
          '--deployment-name',
          'badge-orders',
          '--build-id',
          buildId,
          '--output',
          'json',
        ]),
      (described) => described.includes(TASK_QUEUE),
      { what: 'the versioned workers to poll', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    await temporalCli([
      'worker',
      'deployment',
      'set-current-version',
      '--deployment-name',
      'badge-orders',
      '--build-id',
      buildId,
      '--yes',
    ]);
    // The routing reaches the task queues a moment later; an order started meanwhile is pinned on its first
    // workflow task, which only the versioned workers poll for now.
    await placeThroughApi('cp-versioned-1', { name: 'form.pdf', type: 'application/pdf', content: PDF('v') });
    await completed(['cp-versioned-1']);
    const described = await stack.client.workflow.getHandle(workflowIdOf('cp-versioned-1')).describe();
    expect(described.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion).toMatchObject({
      deploymentName: 'badge-orders',
      buildId,
    });
    const onPlatform = ordersByWorkflow([await (await stack.sandbox()).listOrders()]);
    expect(onPlatform.get(workflowIdOf('cp-versioned-1'))).toBe(1);
  });
});
