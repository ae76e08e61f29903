/**
 * The operator CLI, run in-process against a real dev server, the real sandbox and a real worker: each command
 * does what it says, tables for people and JSON for scripts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  badgeOrderWorkflowId,
  parseBadgeOrderInput,
  REPLAY_SCHEDULE_ID,
  type BadgeOrderStatusView,
  type DocumentState,
} from '../../src/contract';
import { WORKFLOW_TYPES } from '../../src/workflow-contract';
import { describeReplaySchedule, replayScheduleHandle } from '../../src/temporal/schedule';
import { runScheduleCommand } from '../../src/commands/schedule-command';
import { badgeOrdersQuery, listRunPage } from '../../src/temporal/visibility';
import type { ListedOrder } from '../../src/commands/ops-command';
import { createPlatformClient, type ProbeReport } from '../../src/platform';
import { DEMO_USER, SANDBOX_TENANT_ID, startSandbox, subjectUuid } from '../../src/sandbox';
import { useTestStack } from '../helpers/stack';
import { completedOrder, orderAwaitingRepair } from '../helpers/orders';
import { runOpsOn } from '../helpers/ops';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'B-OP 1' };
const badge = { type: 'green' };
const DEFAULT_TYPES = ['image/jpeg', 'image/png', 'application/pdf'];

const execFileAsync = promisify(execFile);

describe('ops CLI', () => {
  const stack = useTestStack({ worker: true });

  /** Runs the CLI and returns its exit code and output; `probe` signs in as the demo user. */
  function ops(...args: string[]): ReturnType<typeof runOpsOn> {
    return runOpsOn(stack, args, (baseUrl) =>
      createPlatformClient({
        baseUrl: baseUrl ?? stack.sandbox.baseUrl,
        credentials: { username: DEMO_USER.username, password: DEMO_USER.password },
      }),
    );
  }

  async function json<T>(...args: string[]): Promise<T> {
    const result = await ops('--json', ...args);
    expect(result).toMatchObject({ code: 0, err: '' });
    return JSON.parse(result.out) as T;
  }

  const awaitingRepair = (orderRef: string) => orderAwaitingRepair(stack, orderRef, vehicle);

  it('lists orders by status, as a table and as JSON', async () => {
    await awaitingRepair('cli-list-stuck');
    await completedOrder(stack, { orderRef: 'cli-list-done', vehicle, badge });
    // Visibility is eventually consistent: wait until it shows both orders with their final status.
    await pollUntil(
      () => json<ListedOrder[]>('list'),
      (orders) =>
        orders.some((order) => order.orderRef === 'cli-list-stuck' && order.status === 'AwaitingRepair') &&
        orders.some((order) => order.orderRef === 'cli-list-done' && order.status === 'Completed'),
    );

    const stuck = await json<ListedOrder[]>('list', '--status', 'AwaitingRepair');
    expect(stuck.map((order) => order.orderRef)).toContain('cli-list-stuck');
    expect(stuck.every((order) => order.status === 'AwaitingRepair')).toBe(true);
    expect(stuck.find((order) => order.orderRef === 'cli-list-stuck')).toMatchObject({
      workflowId: 'badge-order-cli-list-stuck',
      execution: 'RUNNING',
    });

    const table = await ops('list', '--status', 'Completed');
    expect(table.code).toBe(0);
    const [header, ...rows] = table.out.split('\n');
    expect(header).toMatch(/^ORDER REF\s+STATUS\s+ORDER ID\s+WORKFLOW\s+STARTED$/);
    expect(rows.some((row) => /^cli-list-done\s+Completed\s+\d+\s+COMPLETED/.test(row))).toBe(true);
    expect(table.out).not.toContain('cli-list-stuck');

    const invalid = await ops('list', '--status', 'Stuck');
    expect(invalid.code).not.toBe(0);
    expect(invalid.err).toMatch(/Allowed choices are Running, AwaitingRepair/);
  });

  it("shows an order's status, and names an unknown order", async () => {
    await awaitingRepair('cli-status');
    const view = await json<BadgeOrderStatusView>('status', 'cli-status');
    expect(view).toMatchObject({
      orderRef: 'cli-status',
      phase: 'awaiting-repair',
      searchStatus: 'AwaitingRepair',
    });
    expect(view.documents[0]).toMatchObject({ path: 'cli-status/scan.gif', status: 'failed' });

    const table = await ops('status', 'cli-status');
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/phase:\s+awaiting-repair/);
    expect(table.out).toMatch(/cli-status\/scan\.gif\s+failed\s+-\s+1\s+-\s+-\s+VALIDATION/);
    expect(table.out).toContain('http://127.0.0.1:8233/namespaces/default/workflows/badge-order-cli-status');

    const unknown = await ops('status', 'no-such-order');
    expect(unknown).toMatchObject({ code: 1, err: 'No order no-such-order (workflow not found)' });
  });

  it('retries the failed uploads of an order once the platform accepts them', async () => {
    await awaitingRepair('cli-retry');
    await stack.sandbox.control.setRules({ acceptedContentTypes: [...DEFAULT_TYPES, 'image/gif'] });
    try {
      const sent = await ops('retry', 'cli-retry');
      expect(sent).toMatchObject({ code: 0, err: '' });
      expect(sent.out).toContain('Sent retryUploads to badge-order-cli-retry');
      const result = await stack.orders.getHandle('cli-retry').result();
      expect(result.documents[0]?.status).toBe('uploaded');
      const stored = (await stack.sandbox.control.state()).documents.filter(
        (document) => document.document_type_id === result.orderId,
      );
      expect(stored).toHaveLength(1);
    } finally {
      await stack.sandbox.control.setRules({ acceptedContentTypes: DEFAULT_TYPES });
    }
  });

  it("names the workflow it acted on for a client's order placed before orders had client ids of their own", async () => {
    // As 0.3.0 placed it: workflow id badge-order-<orderRef>, the client only in the input.
    const orderRef = 'cli-legacy';
    const path = stack.writeDocument(`${orderRef}/scan.gif`, `GIF89a ${orderRef}`);
    const input = parseBadgeOrderInput({
      orderRef,
      vehicle,
      badge,
      documents: [{ path }],
      clientId: 'backend-a',
    });
    const legacy = await stack.temporal.client.workflow.start(WORKFLOW_TYPES.badgeOrder, {
      taskQueue: stack.taskQueue,
      workflowId: badgeOrderWorkflowId(orderRef),
      args: [input],
    });
    await pollUntil(
      () => stack.orders.status({ orderRef, clientId: 'backend-a' }),
      (status) => status.phase === 'awaiting-repair',
      { what: `${orderRef} awaiting repair` },
    );

    const status = await ops('status', orderRef, '--client', 'backend-a');
    expect(status.code).toBe(0);
    expect(status.out).toContain(`/workflows/${badgeOrderWorkflowId(orderRef)}`);
    expect(status.out).not.toMatch(/cli-legacy(@|%40)backend-a/);
    await stack.sandbox.control.setRules({ acceptedContentTypes: [...DEFAULT_TYPES, 'image/gif'] });
    try {
      const sent = await ops('retry', orderRef, '--client', 'backend-a');
      expect(sent).toMatchObject({ code: 0, err: '' });
      expect(sent.out).toContain(`Sent retryUploads to ${badgeOrderWorkflowId(orderRef)};`);
      const found = await stack.orders.findOrder({ orderRef, clientId: 'backend-a' });
      expect(found?.handle.workflowId).toBe(legacy.workflowId);
      expect((await found?.handle.result())?.documents[0]?.status).toBe('uploaded');
    } finally {
      await stack.sandbox.control.setRules({ acceptedContentTypes: DEFAULT_TYPES });
    }
  });

  it('replaces a failed document and reports its new state; a refused replacement exits with 1', async () => {
    await awaitingRepair('cli-replace');
    stack.writeDocument('cli-replace/scan.png', Buffer.from('PNG replacement'));
    const refused = await ops('replace', 'cli-replace', 'cli-replace/other.gif', 'cli-replace/scan.png');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/no document cli-replace\/other\.gif/);

    const document = await json<DocumentState>(
      'replace',
      'cli-replace',
      'cli-replace/scan.gif',
      'cli-replace/scan.png',
      '--content-type',
      'image/png',
    );
    expect(document).toMatchObject({ status: 'uploaded', sourcePath: 'cli-replace/scan.png' });
    const result = await stack.orders.getHandle('cli-replace').result();
    const stored = (await stack.sandbox.control.state()).documents.find(
      (item) => item.document_type_id === result.orderId,
    );
    expect(stored).toMatchObject({ content_type: 'image/png' });
  });

  it('triggers the nightly replay now, which signals the orders awaiting repair', async () => {
    await awaitingRepair('cli-replay');
    await pollUntil(
      () =>
        listRunPage(stack.temporal.client, {
          query: badgeOrdersQuery({ status: 'AwaitingRepair', openOnly: true }),
          pageSize: 100,
        }),
      (page) => page.runs.some((run) => run.workflowId === 'badge-order-cli-replay'),
    );
    const schedule = await runSchedule('apply');
    expect(schedule.code).toBe(0);
    expect(schedule.out).toMatch(/Schedule (created|updated): every day at 02:00 Europe\/Berlin/);
    await stack.sandbox.control.setRules({ acceptedContentTypes: [...DEFAULT_TYPES, 'image/gif'] });
    try {
      const triggered = await ops('replay-now');
      expect(triggered.code).toBe(0);
      expect(triggered.out).toContain(`Triggered Schedule ${REPLAY_SCHEDULE_ID}`);
      const summary = await pollUntil(
        () => describeReplaySchedule(stack.temporal.client),
        (described) => described.recentRuns.length === 1,
      );
      expect(summary.actionCount).toBe(1);
      const result = await stack.orders.getHandle('cli-replay').result();
      expect(result.documents[0]?.status).toBe('uploaded');

      const paused = await runSchedule('pause', '--note', 'platform maintenance');
      expect(paused.out).toBe('Schedule paused: platform maintenance');
      const described = await runSchedule('--json', 'describe');
      expect(JSON.parse(described.out)).toMatchObject({ paused: true, note: 'platform maintenance' });
      expect((await runSchedule('unpause')).code).toBe(0);
      expect((await describeReplaySchedule(stack.temporal.client)).paused).toBe(false);
    } finally {
      await stack.sandbox.control.setRules({ acceptedContentTypes: DEFAULT_TYPES });
      await replayScheduleHandle(stack.temporal.client).delete();
    }
  });

  it('reconciles an order whose creation outcome is unknown, with the id the platform holds', async () => {
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'commit-then-500' }] });
    try {
      const started = await stack.orders.startOrder({
        orderRef: 'ops-reconcile',
        vehicle,
        badge,
        documents: [],
      });
      await pollUntil(
        () => stack.orders.status('ops-reconcile'),
        (status) => status.searchStatus === 'AwaitingReconciliation',
        { what: 'ops-reconcile awaiting reconciliation' },
      );
      // `list` reads visibility, which indexes the status a moment after the workflow reports it.
      const listed = await pollUntil(
        () => json<ListedOrder[]>('list', '--status', 'AwaitingReconciliation'),
        (orders) => orders.some((order) => order.orderRef === 'ops-reconcile'),
        { what: 'ops-reconcile in `ops list --status AwaitingReconciliation`' },
      );
      expect(listed.map((order) => order.orderRef)).toContain('ops-reconcile');
      const shown = await ops('status', 'ops-reconcile');
      expect(shown.out).toMatch(/idempotency key:\s+badge-order-ops-reconcile:create:without-stock/);

      const [created] = await stack.sandbox.control.listOrders({
        idempotencyKey: 'badge-order-ops-reconcile:create:without-stock',
      });
      const unanswered = await ops('reconcile', 'ops-reconcile');
      expect(unanswered.code).toBe(1);
      expect(unanswered.err).toMatch(/--order-id/);
      const answered = await json<BadgeOrderStatusView>(
        'reconcile',
        'ops-reconcile',
        '--order-id',
        String(created?.id),
      );
      expect(answered.orderId).toBe(created?.id);
      expect((await started.handle.result()).orderId).toBe(created?.id);
      const late = await ops('reconcile', 'ops-reconcile', '--not-created');
      expect(late.code).toBe(1);
      expect(late.err).toMatch(/no longer running \(COMPLETED\)/);
    } finally {
      await stack.sandbox.control.setFaults({});
    }
  });

  it('answers a held document with the id the platform holds it under', async () => {
    // The platform stores the file and answers 500: with uploads held, the order waits for a person.
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'documents', kind: 'commit-then-500' }] });
    const path = stack.writeDocument('ops-held/front.jpg', 'front');
    await stack.withWorkerProcess({ BADGE_UPLOAD_UNKNOWN_OUTCOME: 'hold' }, async () => {
      const started = await stack.orders.startOrder({
        orderRef: 'ops-held',
        vehicle,
        badge,
        documents: [{ path }],
      });
      await pollUntil(
        () => stack.orders.status('ops-held'),
        (status) => status.phase === 'awaiting-repair',
        { what: 'ops-held awaiting repair' },
      );
      const shown = (await ops('status', 'ops-held')).out;
      expect(shown).toMatch(/held \(may be stored\)/);
      // The operator looks for the key the status shows, and the platform holds the document under it.
      const key = /badge-order-ops-held:doc:\S*/.exec(shown)?.[0];
      expect(key).toBe('badge-order-ops-held:doc:0');
      const [stored] = await stack.sandbox.control.listDocuments({ idempotencyKey: key });
      expect(stored).toBeDefined();

      const unanswered = await ops('reconcile-document', 'ops-held', path);
      expect(unanswered.code).toBe(1);
      expect(unanswered.err).toMatch(/--document-id/);
      const answered = await json<BadgeOrderStatusView>(
        'reconcile-document',
        'ops-held',
        path,
        '--document-id',
        String(stored?.id),
      );
      expect(answered.documents[0]).toMatchObject({
        status: 'uploaded',
        documentId: stored?.id,
        held: false,
      });
      expect((await started.handle.result()).documents[0]?.documentId).toBe(stored?.id);
      expect(
        await stack.sandbox.control.listDocuments({ idempotencyKey: 'badge-order-ops-held:doc:0' }),
      ).toHaveLength(1);
    });
  });

  it('probes a platform: whether it honours idempotency keys, and the settings to use', async () => {
    const ignoring = await startSandbox({ port: 0, profile: 'legacy' });
    try {
      const honouring = await json<ProbeReport>('probe', '--allow-test-orders');
      expect(honouring.recommended.BADGE_IDEMPOTENCY_KEYS).toBe('honoured');
      const text = await ops('probe', '--allow-test-orders', '--base-url', ignoring.baseUrl);
      expect(text.code).toBe(0);
      expect(text.out).toMatch(/order key:\s+IGNORED/);
      expect(text.out).toMatch(/BADGE_IDEMPOTENCY_KEYS=unknown/);
      // Without --allow-test-orders nothing is created.
      const before = (await ignoring.control.listOrders()).length;
      const readOnly = await json<ProbeReport>('probe', '--base-url', ignoring.baseUrl);
      expect(readOnly.orders).toBeUndefined();
      expect(await ignoring.control.listOrders()).toHaveLength(before);
    } finally {
      await ignoring.close();
    }
  });

  it('probes a token with a UUID sub: names its claims, never their values, and prints the owner setting', async () => {
    const keycloak = await startSandbox({ port: 0, profile: 'keycloak' });
    try {
      const text = await ops('probe', '--allow-test-orders', '--base-url', keycloak.baseUrl);
      expect(text.code).toBe(0);
      const claims = /token claims:\s+(.*)/.exec(text.out)?.[1]?.split(', ');
      expect(claims).toEqual(expect.arrayContaining(['sub', 'user_id', 'exp']));
      expect(text.out).toMatch(/user id claim:\s+user_id/);
      expect(text.out).toMatch(/document owner:\s+claim user_id \(default chain\)/);
      expect(text.out).toMatch(/^BADGE_USER_ID_CLAIM=user_id$/m);
      expect(text.out).toMatch(/sub is not numeric/);
      expect(text.out).not.toContain(subjectUuid(DEMO_USER.id));
      expect(text.out).not.toContain(DEMO_USER.id);
      // The probe's own upload went out with the owner the platform expects, so it was stored.
      const report = await json<ProbeReport>('probe', '--allow-test-orders', '--base-url', keycloak.baseUrl);
      expect(report.documents?.first.status).toBe(201);
      expect(report.recommended.BADGE_USER_ID_CLAIM).toBe('user_id');
    } finally {
      await keycloak.close();
    }
  });

  it('probes platforms that want other names: prints the request profile, the tenant id and the client grant to set', async () => {
    const names = await startSandbox({ port: 0, profile: 'strict-names' });
    const grant = await startSandbox({ port: 0, profile: 'strict-client' });
    try {
      const tenant = await ops('probe', '--base-url', names.baseUrl);
      expect(tenant.code).toBe(1);
      expect(tenant.out).toMatch(/authentication:\s+failed: .*X-Tenant-ID/);
      expect(tenant.out).toContain(
        `BADGE_REQUEST_PROFILE='{"headers":{"X-Tenant-ID":"{tenant}"}}' (merged into yours)`,
      );
      expect(tenant.out).toMatch(/^BADGE_TENANT_ID=<the tenant id the platform gave you>$/m);
      // With those set, the empty order names the platform's vehicle field; nothing is created.
      const next = await runOpsOn(stack, ['probe', '--base-url', names.baseUrl], (baseUrl) =>
        createPlatformClient({
          baseUrl: baseUrl ?? names.baseUrl,
          credentials: { username: DEMO_USER.username, password: DEMO_USER.password },
          requestProfile: { headers: { 'X-Tenant-ID': '{tenant}' } },
          tenantId: SANDBOX_TENANT_ID,
        }),
      );
      expect(next.code).toBe(0);
      expect(next.out).toMatch(/empty order:\s+refused \(422\), wants vehicle_data/);
      expect(next.out).toContain(`BADGE_REQUEST_PROFILE='{"orderFields":{"vehicle":"vehicle_data"}}'`);
      expect(next.out).not.toContain(SANDBOX_TENANT_ID);
      expect(await names.control.state()).toMatchObject({ orders: [], documents: [] });

      const client = await ops('probe', '--base-url', grant.baseUrl);
      expect(client.code).toBe(1);
      expect(client.out).toMatch(/^BADGE_CLIENT_ID=<your client id>$/m);
      expect(client.out).toMatch(/^BADGE_CLIENT_SECRET=<your client secret>$/m);
    } finally {
      await names.close();
      await grant.close();
    }
  });

  it('corrects the document owner of an order awaiting repair, and names what it refuses', async () => {
    await awaitingRepair('ops-owner');
    const corrected = await json<BadgeOrderStatusView>('set-owner', 'ops-owner', DEMO_USER.id);
    expect(corrected.documentOwner).toEqual({ id: DEMO_USER.id, source: 'operator', refused: null });
    const text = await ops('status', 'ops-owner');
    expect(text.out).toMatch(new RegExp(`document owner:\\s+${DEMO_USER.id} \\(operator\\)`));
    const unknown = await ops('set-owner', 'ops-no-such-order', DEMO_USER.id);
    expect(unknown).toMatchObject({
      code: 1,
      err: expect.stringMatching(/No order ops-no-such-order/) as string,
    });
    const empty = await ops('set-owner', 'ops-owner', ' ');
    expect(empty).toMatchObject({
      code: 1,
      err: expect.stringMatching(/documentOwner: must not be empty/) as string,
    });
  });

  it('probes from the entry point without any Temporal settings (no payload keys needed)', async () => {
    const { stdout } = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', 'src/main/ops.ts', '--json', 'probe'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          BADGE_BASE_URL: stack.sandbox.baseUrl,
          BADGE_USERNAME: DEMO_USER.username,
          BADGE_PASSWORD: DEMO_USER.password,
        },
      },
    );
    const report = JSON.parse(stdout) as ProbeReport;
    expect(report.authentication.ok).toBe(true);
  });

  async function runSchedule(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runScheduleCommand(args, {
      client: stack.temporal.client,
      settings: {
        taskQueue: stack.taskQueue,
        time: { hour: 2, minute: 0 },
        timezone: 'Europe/Berlin',
        maxConcurrentSignals: 5,
      },
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('schedule apply needs no Schedule to exist and is repeatable', async () => {
    const first = await runSchedule('--json', 'apply');
    const second = await runSchedule('--json', 'apply');
    try {
      expect(JSON.parse(first.out)).toMatchObject({ result: 'created', time: '02:00' });
      expect(JSON.parse(second.out)).toMatchObject({ result: 'updated' });
    } finally {
      await replayScheduleHandle(stack.temporal.client).delete();
    }
  });
});
