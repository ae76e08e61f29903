/**
 * The core order scenarios on Temporal as production runs it (PostgreSQL, frontend, history, matching and
 * worker as separate processes, worker processes of ours), and the visibility queries operators, the ops CLI
 * and the nightly replay use — on PostgreSQL's SQL visibility, not the dev server's SQLite. Assertions look at
 * what the platform holds (the sandbox's ground truth) and at what an operator sees (status query, search
 * attributes, lists).
 */
import { BadgeOrderId, BadgeOrderStatus, WORKFLOW_TYPES } from '../../src/workflow-contract';
import { runOps, type ListedOrder } from '../../src/commands/ops-command';
import { createPlatformClient } from '../../src/platform';
import { DEFAULT_RULES, DEMO_USER } from '../../src/sandbox';
import { applyReplaySchedule, replayScheduleHandle, triggerReplay } from '../../src/temporal/schedule';
import { badgeOrdersQuery, listRunPage, type ListedRun } from '../../src/temporal/visibility';
import { pollUntil } from '../../tools/dev/poll';
import { useCluster } from './cluster-fixture';

const vehicle = { licensePlate: 'B-CL 1', fuel: 'diesel' };
const badge = { type: 'green' };
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(64, 3)]);

describe('badge orders on a Temporal cluster', () => {
  const cluster = useCluster({ workers: 2 });
  const stack = () => cluster().stack;
  const client = () => stack().temporal.client;

  beforeEach(async () => {
    await stack().sandbox.control.reset();
    // The reset keeps rules: tests that accept GIFs must not leak that into the next.
    await stack().sandbox.control.setRules({ acceptedContentTypes: [...DEFAULT_RULES.acceptedContentTypes] });
  });

  /** An order whose documents are written under the documents root first. */
  function order(orderRef: string, files: Readonly<Record<string, string | Buffer>>, stockId?: number) {
    const documents = Object.entries(files).map(([name, content]) => ({
      path: stack().writeDocument(`${orderRef}/${name}`, content),
    }));
    return { orderRef, ...(stockId === undefined ? {} : { stockId }), vehicle, badge, documents };
  }

  async function awaitingRepair(orderRef: string) {
    return pollUntil(
      () => stack().orders().status(orderRef),
      (status) => status.searchStatus === 'AwaitingRepair',
      { what: `${orderRef} awaiting repair`, timeoutMs: 120_000 },
    );
  }

  it('serves the Web UI against the frontend, with the namespace', async () => {
    const url = cluster().webUiUrl;
    expect(url).not.toBeNull();
    const response = await fetch(`${url}/api/v1/namespaces/${cluster().namespace}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { namespaceInfo?: { name?: string } };
    expect(body.namespaceInfo?.name).toBe(cluster().namespace);
  });

  it('places the order with its stock and uploads every document, once', async () => {
    const started = await stack()
      .orders()
      .startOrder(order('cl-happy', { 'photo.jpg': 'jpeg photo', 'form.pdf': '%PDF-1.4 form' }, 1001));
    const result = await started.handle.result();

    expect(result).toMatchObject({ orderRef: 'cl-happy', stockId: '1001', stockFallback: false });
    const orders = (await stack().sandbox.control.state()).orders;
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ id: result.orderId, stock_id: 1001, vehicle, badge });
    const documents = await stack().sandbox.control.listDocuments();
    expect(documents.map((document) => document.order_id)).toEqual([result.orderId, result.orderId]);
    expect(documents.map((document) => document.filename).sort()).toEqual(['form.pdf', 'photo.jpg']);

    const view = await stack().orders().status('cl-happy');
    expect(view).toMatchObject({ searchStatus: 'Completed', orderId: result.orderId });
    const description = await started.handle.describe();
    expect(description.typedSearchAttributes.get(BadgeOrderStatus)).toBe('Completed');
    expect(description.typedSearchAttributes.get(BadgeOrderId)).toBe(String(result.orderId));
  });

  it('orders again without the stock when the platform answers 404 for it', async () => {
    const started = await stack()
      .orders()
      .startOrder(order('cl-fallback', { 'form.pdf': '%PDF fallback' }, 1003));
    const result = await started.handle.result();

    expect(result).toMatchObject({ stockId: null, stockFallback: true });
    const orders = await stack().sandbox.control.listOrders();
    expect(orders).toEqual([expect.objectContaining({ id: result.orderId, stock_id: null })]);
    expect((await stack().sandbox.control.listDocuments()).map((d) => d.order_id)).toEqual([result.orderId]);
  });

  it('waits in AwaitingRepair for a refused document and completes once it is accepted and retried', async () => {
    const started = await stack()
      .orders()
      .startOrder(order('cl-repair', { 'form.pdf': '%PDF repair', 'animation.gif': GIF }));
    const held = await awaitingRepair('cl-repair');
    expect(held.documents.map((document) => document.status)).toEqual(['uploaded', 'failed']);
    expect((await started.handle.describe()).typedSearchAttributes.get(BadgeOrderStatus)).toBe(
      'AwaitingRepair',
    );

    await stack().sandbox.control.setRules({
      acceptedContentTypes: [...DEFAULT_RULES.acceptedContentTypes, 'image/gif'],
    });
    await stack().orders().retryUploads('cl-repair');
    const result = await started.handle.result();

    expect(result.documents.map((document) => document.status)).toEqual(['uploaded', 'uploaded']);
    expect(await stack().sandbox.control.listOrders()).toHaveLength(1);
    const documents = await stack().sandbox.control.listDocuments();
    expect(documents.map((document) => document.filename).sort()).toEqual(['animation.gif', 'form.pdf']);
    expect((await stack().orders().status('cl-repair')).searchStatus).toBe('Completed');
  });

  it('holds an order whose creation may have happened, and continues with the id an operator gives', async () => {
    await stack().sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'commit-then-500' }] });
    const started = await stack()
      .orders()
      .startOrder(order('cl-reconcile', { 'form.pdf': '%PDF reconcile' }));
    await pollUntil(
      () => stack().orders().status('cl-reconcile'),
      (status) => status.searchStatus === 'AwaitingReconciliation',
      { what: 'the hold', timeoutMs: 120_000 },
    );
    const stored = await stack().sandbox.control.listOrders();
    expect(stored).toHaveLength(1);

    await stack()
      .orders()
      .reconcileOrder('cl-reconcile', { orderId: stored[0]?.id as string });
    const result = await started.handle.result();

    expect(result.orderId).toBe(stored[0]?.id);
    expect(await stack().sandbox.control.listOrders()).toHaveLength(1);
    expect((await stack().sandbox.control.listDocuments()).map((d) => d.order_id)).toEqual([result.orderId]);
  });

  it('repairs an order when the nightly Schedule is triggered', async () => {
    const started = await stack()
      .orders()
      .startOrder(order('cl-nightly', { 'animation.gif': GIF }));
    await awaitingRepair('cl-nightly');
    await stack().sandbox.control.setRules({
      acceptedContentTypes: [...DEFAULT_RULES.acceptedContentTypes, 'image/gif'],
    });
    // The nightly replay finds the order through visibility: make sure PostgreSQL already lists it.
    await pollUntil(
      () =>
        listRunPage(client(), {
          query: `${badgeOrdersQuery({ status: 'AwaitingRepair', openOnly: true })} AND BadgeOrderRef = 'cl-nightly'`,
          pageSize: 10,
        }),
      (page) => page.runs.length === 1,
      { what: 'cl-nightly in the visibility list' },
    );

    await applyReplaySchedule(client(), {
      taskQueue: stack().taskQueue,
      time: { hour: 2, minute: 0 },
      timezone: 'Europe/Berlin',
      maxConcurrentSignals: 2,
    });
    try {
      await triggerReplay(client());
      const result = await started.handle.result();
      expect(result.documents.map((document) => document.status)).toEqual(['uploaded']);
      expect((await stack().sandbox.control.listDocuments()).map((d) => d.filename)).toEqual([
        'animation.gif',
      ]);
      const runs = await pollUntil(
        () => replayScheduleHandle(client()).describe(),
        (described) => described.info.recentActions.length === 1,
        { what: 'the Schedule to record its run' },
      );
      const replay = client().workflow.getHandle(
        runs.info.recentActions[0]?.action.workflow.workflowId ?? '',
      );
      expect((await replay.describe()).type).toBe(WORKFLOW_TYPES.replayFailedUploads);
    } finally {
      await replayScheduleHandle(client()).delete();
    }
  });

  it('answers the operators’ visibility queries on PostgreSQL: status, execution status, order, pages', async () => {
    const refs = ['cl-vis-0', 'cl-vis-1', 'cl-vis-2', 'cl-vis-3', 'cl-vis-4'];
    const inList = `BadgeOrderRef IN (${refs.map((ref) => `'${ref}'`).join(', ')})`;
    // Started one after the other, so their start times are in this order.
    const handles = [];
    for (const ref of refs) {
      handles.push(
        (
          await stack()
            .orders()
            .startOrder(order(ref, { 'form.pdf': `%PDF ${ref}` }))
        ).handle,
      );
    }
    await Promise.all(handles.map((handle) => handle.result()));
    const stuck = await stack()
      .orders()
      .startOrder(order('cl-vis-stuck', { 'animation.gif': GIF }));
    await awaitingRepair('cl-vis-stuck');

    // Newest first, page by page: every order once, none twice.
    const completedQuery = `${badgeOrdersQuery({ status: 'Completed' })} AND ${inList}`;
    const pages: (readonly ListedRun[])[] = await pollUntil(
      async () => {
        const collected: (readonly ListedRun[])[] = [];
        let token: string | null = null;
        do {
          const page = await listRunPage(client(), {
            query: completedQuery,
            pageSize: 2,
            nextPageToken: token,
          });
          collected.push(page.runs);
          token = page.nextPageToken;
        } while (token !== null && collected.length < 10);
        return collected;
      },
      (collected) => collected.flat().length === refs.length,
      { what: 'the completed orders, page by page' },
    );
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    const ids = await Promise.all(
      refs.map(async (ref) => (await stack().orders().getHandle(ref).describe()).workflowId),
    );
    expect(new Set(pages.flat().map((run) => run.workflowId))).toEqual(new Set(ids));

    // The order operators see: open runs first, then closed ones, the most recently closed first.
    const operatorView = [];
    for await (const info of client().workflow.list({
      query: `WorkflowType = '${WORKFLOW_TYPES.badgeOrder}' AND (${inList} OR BadgeOrderRef = 'cl-vis-stuck')`,
      pageSize: 2,
    })) {
      operatorView.push(info);
    }
    expect(operatorView.map((info) => info.status.name)).toEqual(['RUNNING', ...refs.map(() => 'COMPLETED')]);
    const closeTimes = operatorView.slice(1).map((info) => info.closeTime?.getTime() ?? 0);
    expect(closeTimes).toEqual([...closeTimes].sort((a, b) => b - a));

    const count = await client().workflowService.countWorkflowExecutions({
      namespace: cluster().namespace,
      query: `ExecutionStatus = 'Completed' AND ${inList}`,
    });
    expect(Number(count.count)).toBe(refs.length);

    // The nightly replay's query: open orders awaiting repair — the stuck one, not the completed ones.
    const open = await pollUntil(
      () =>
        listRunPage(client(), {
          query: `${badgeOrdersQuery({ status: 'AwaitingRepair', openOnly: true })} AND BadgeOrderRef IN ('cl-vis-stuck', 'cl-vis-0')`,
          pageSize: 10,
        }),
      (page) => page.runs.length === 1,
      { what: 'the stuck order in the open list' },
    );
    expect(open.runs[0]?.runId).toBe((await stuck.handle.describe()).runId);

    // The ops CLI lists by status through the same visibility store.
    const out: string[] = [];
    const err: string[] = [];
    const code = await runOps(['--json', 'list', '--status', 'AwaitingRepair', '--open'], {
      temporal: () => ({ client: client(), taskQueue: stack().taskQueue }),
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      platformClient: (baseUrl) =>
        createPlatformClient({
          baseUrl: baseUrl ?? stack().sandbox.baseUrl,
          credentials: { username: DEMO_USER.username, password: DEMO_USER.password },
        }),
    });
    expect({ code, err: err.join('\n') }).toEqual({ code: 0, err: '' });
    const listed = JSON.parse(out.join('\n')) as ListedOrder[];
    expect(listed.map((entry) => entry.orderRef)).toContain('cl-vis-stuck');
    expect(listed.every((entry) => entry.status === 'AwaitingRepair' && entry.execution === 'RUNNING')).toBe(
      true,
    );
  });
});
