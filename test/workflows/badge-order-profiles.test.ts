/**
 * The order workflow against every named sandbox profile: platforms that differ in everything the
 * specification leaves open (answer shapes, success codes, error bodies, paging in bodies or only in headers,
 * which token claim names the user) and in whether they honour `Idempotency-Key`. Each profile runs the happy
 * path, a stock beyond the first page, the 404 stock fallback, a repair, commit-then-fail faults and a worker
 * SIGKILL mid-upload (a profile that asks for other names, a tenant id or client credentials is configured with the
 * settings docs/platform-client.md gives for it, and nothing else); each ends with the order placed once, with the stock it asked for whenever the platform
 * has it, and every document stored, with any extra copy flagged `possibleDuplicate`. Profiles that check the
 * owner also show an order whose owner the platform refused, repaired by the operator's `setDocumentOwner`.
 * `strict-slash` is the reference platform serving its routes only with a trailing slash, as Starlette and FastAPI
 * do: every call without the slash is answered 307 with a relative Location, and followed. The strict profiles
 * (`STRICT_PROFILE_NAMES`, such as `strict-client`, which takes only the client credentials grant) run too.
 * Real dev server, real sandbox over HTTP, real workers.
 */
import { createHash } from 'node:crypto';
import type { BadgeOrderInput, BadgeOrderResult } from '../../src/contract';
import type { StartSandboxOptions } from '../../src/sandbox';
import {
  DEMO_USER,
  SANDBOX_PROFILE_NAMES,
  STRICT_PROFILE_NAMES,
  namedProfile,
  subjectUuid,
} from '../../src/sandbox';
import { documentedPlatformSettings } from '../helpers/documented-settings';
import { useTestStack, type TestStack } from '../helpers/stack';
import { holdUploads, startedAttemptOf, uploadInFlight } from '../helpers/held-upload';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'P-RO 5', fuel: 'electric' };
const badge = { type: 'green' };
const sha256 = (content: string): string => createHash('sha256').update(content).digest('hex');

function orderOf(
  stack: TestStack,
  orderRef: string,
  files: readonly string[],
  extra: Partial<BadgeOrderInput> = {},
): BadgeOrderInput {
  const documents = files.map((name) => ({
    path: stack.writeDocument(`${orderRef}/${name}`, `content of ${orderRef}/${name}`),
  }));
  return { orderRef, vehicle, badge, documents, ...extra };
}

/**
 * What the platform holds for one finished order: exactly one order, the given id; each document stored at
 * least once, linked to it; a document stored more than once is flagged in the result.
 */
async function expectPlacedOnce(stack: TestStack, result: BadgeOrderResult): Promise<void> {
  const orders = (await stack.sandbox.control.listOrders()).filter((order) =>
    order.idempotency_key?.startsWith(`badge-order-${result.orderRef}:`),
  );
  expect(orders.map((order) => order.id)).toEqual([result.orderId]);
  const stored = await stack.sandbox.control.listDocuments({ orderId: result.orderId });
  for (const document of result.documents) {
    const copies = stored.filter(
      (record) =>
        record.sha256 === sha256(`content of ${result.orderRef}/${document.path.split('/').pop() ?? ''}`),
    );
    expect({ path: document.path, stored: copies.length > 0 }).toEqual({ path: document.path, stored: true });
    if (copies.length > 1) {
      expect({ path: document.path, possibleDuplicate: document.possibleDuplicate }).toEqual({
        path: document.path,
        possibleDuplicate: true,
      });
    }
    // The platform's own id of the document was read from its answer, whatever the profile named it.
    expect(copies.map((record) => record.id)).toContain(document.documentId);
  }
}

/** Every named profile, strict ones too, and `reference` with routes only at their path with a trailing slash. */
const PLATFORMS: readonly (readonly [string, StartSandboxOptions & { readonly profile: string }])[] = [
  ...[...SANDBOX_PROFILE_NAMES, ...STRICT_PROFILE_NAMES].map((profile) => [profile, { profile }] as const),
  ['strict-slash', { profile: 'reference', strictSlash: true }],
];

describe.each(PLATFORMS)('badgeOrder against the %s platform', (profile, sandbox) => {
  // A platform that asks for other names gets them from the settings its docs give, and from nothing else.
  const platformEnv = documentedPlatformSettings(profile);
  const stack = useTestStack({ sandbox, worker: true, ...(platformEnv && { platformEnv }) });

  afterEach(async () => {
    await stack.sandbox.control.setFaults({});
  });

  it('places the order with its stock and stores every document', async () => {
    const started = await stack.orders.startOrder(
      orderOf(stack, `${profile}-happy`, ['photo.jpg', 'form.pdf'], { stockId: 1001 }),
    );
    const result = await started.handle.result();
    expect(result).toMatchObject({ stockId: '1001', stockFallback: false });
    const [order] = await stack.sandbox.control.listOrders({
      idempotencyKey: `badge-order-${profile}-happy:create`,
    });
    expect(order?.stock_id).toBe(1001);
    await expectPlacedOnce(stack, result);
    if (sandbox.strictSlash === true) {
      // Every call was redirected first (sign-in, stocks, the creation, both uploads), and followed.
      expect((await stack.sandbox.control.stats()).requests.unknown?.['307']).toBeGreaterThanOrEqual(4);
    }
  });

  it('places the order with a stock beyond the first page of the user’s stocks', async () => {
    // 1002 is on page two wherever the platform pages (one or two stocks a page).
    const started = await stack.orders.startOrder(
      orderOf(stack, `${profile}-page-two`, ['photo.jpg'], { stockId: 1002 }),
    );
    const result = await started.handle.result();
    expect(result).toMatchObject({ stockId: '1002', stockFallback: false });
    const [order] = await stack.sandbox.control.listOrders({
      idempotencyKey: `badge-order-${profile}-page-two:create`,
    });
    expect(order?.stock_id).toBe(1002);
    await expectPlacedOnce(stack, result);
    // The lookup followed the paging, wherever the platform put it (advice only either way); it stops at the
    // page listing the stock, so it knows the count only when the platform gave a total.
    expect((await stack.orders.status(`${profile}-page-two`)).stockAdvice).toMatchObject({
      verdict: 'listed',
    });
  });

  it('orders without the stock when the platform answers 404 for it', async () => {
    const result = await (
      await stack.orders.startOrder(orderOf(stack, `${profile}-fallback`, ['photo.jpg'], { stockId: 1003 }))
    ).handle.result();
    expect(result).toMatchObject({ stockId: null, stockFallback: true });
    await expectPlacedOnce(stack, result);
  });

  it('waits for repair when a document is refused, and completes once it is accepted', async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['image/jpeg'] });
    try {
      const started = await stack.orders.startOrder(
        orderOf(stack, `${profile}-repair`, ['a.jpg', 'scan.pdf']),
      );
      const waiting = await pollUntil(
        () => stack.orders.status(`${profile}-repair`),
        (status) => status.searchStatus === 'AwaitingRepair',
        { what: 'the order awaiting repair' },
      );
      expect(waiting.documents.map((document) => document.status)).toEqual(['uploaded', 'failed']);
      expect(waiting.documents[1]?.lastError).toMatch(/VALIDATION/);
      await stack.sandbox.control.setRules({ acceptedContentTypes: ['image/jpeg', 'application/pdf'] });
      await stack.orders.retryUploads(`${profile}-repair`);
      await expectPlacedOnce(stack, await started.handle.result());
    } finally {
      await stack.sandbox.control.setRules({
        acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf'],
      });
    }
  });

  if (namedProfile(sandbox.profile)?.documents.ownerChecked === true) {
    it('sends the documents again with the owner an operator sets after the platform refused it', async () => {
      // What the client used to send: the token's UUID `sub`, which this platform refuses as owner.
      const orderRef = `${profile}-owner`;
      const wrongOwner = subjectUuid(DEMO_USER.id);
      const started = await stack.orders.startOrder(
        orderOf(stack, orderRef, ['photo.jpg', 'form.pdf'], { documentOwner: wrongOwner }),
      );
      const waiting = await pollUntil(
        () => stack.orders.status(orderRef),
        (status) => status.searchStatus === 'AwaitingRepair',
        { what: 'the order awaiting repair' },
      );
      expect(waiting.documents.map((document) => document.status)).toEqual(['failed', 'failed']);
      expect(waiting.documents[0]?.lastError).toMatch(/VALIDATION.*correct it with setDocumentOwner/);
      expect(waiting.documentOwner).toMatchObject({ id: wrongOwner, source: 'input' });
      expect(waiting.documentOwner?.refused).toMatch(/setDocumentOwner.*ops set-owner/);
      // The platform refused both: it holds none of them.
      expect(await stack.sandbox.control.listDocuments({ orderId: waiting.orderId ?? '-1' })).toEqual([]);

      const corrected = await stack.orders.setDocumentOwner(orderRef, { documentOwner: DEMO_USER.id });
      expect(corrected.documentOwner).toEqual({ id: DEMO_USER.id, source: 'operator', refused: null });
      const result = await started.handle.result();
      await expectPlacedOnce(stack, result);
      // Each document stored exactly once, owned by the platform's user.
      const state = await stack.sandbox.control.state();
      const stored = state.documents.filter((document) => document.document_type_id === result.orderId);
      expect(stored.map((document) => document.document_owner)).toEqual([DEMO_USER.id, DEMO_USER.id]);
      expect(new Set(stored.map((document) => document.sha256)).size).toBe(2);
    });
  }

  it('never places the order twice when the platform stores and then fails', async () => {
    await stack.sandbox.control.setFaults({
      failNext: [
        { route: 'orders', kind: 'commit-then-500' },
        { route: 'documents', kind: 'commit-then-503' },
      ],
    });
    const orderRef = `${profile}-commit-fail`;
    const started = await stack.orders.startOrder(
      orderOf(stack, orderRef, ['one.pdf', 'two.pdf'], { options: { maxParallelUploads: 1 } }),
    );
    const held = await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.searchStatus === 'AwaitingReconciliation',
      { what: 'the order awaiting reconciliation' },
    );
    // The operator's check: the platform's own record of the key the creation was sent with.
    const created = await stack.sandbox.control.listOrders({
      idempotencyKey: held.reconciliation?.idempotencyKey ?? '',
    });
    expect(created).toHaveLength(1);
    await stack.orders.reconcileOrder(orderRef, { orderId: created[0]?.id as string });
    const result = await started.handle.result();

    expect(result.orderId).toBe(created[0]?.id);
    // The first upload was stored and then failed: it was sent again and flagged, whatever the platform kept.
    expect(result.documents.map((document) => document.possibleDuplicate)).toEqual([true, false]);
    await expectPlacedOnce(stack, result);
  });

  it('completes after a worker process is killed mid-upload', async () => {
    await stack.stopWorker();
    // The first upload is held by the platform until long after the kill; the retry is answered at once.
    const held = await holdUploads(stack.sandbox.control, 15_000);
    const orderRef = `${profile}-sigkill`;
    const first = stack.startWorkerProcess();
    const started = await stack.orders.startOrder(
      orderOf(stack, orderRef, ['1.pdf', '2.pdf', '3.pdf'], {
        options: { maxParallelUploads: 1, uploadHeartbeatTimeoutMs: 3_000 },
      }),
    );
    const killed = await uploadInFlight(started.handle, stack.sandbox.control, held);
    await first.kill('SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    await stack.sandbox.control.setFaults({});
    const second = stack.startWorkerProcess();
    try {
      const result = await started.handle.result();
      await expectPlacedOnce(stack, result);
      // The kill landed mid-upload: the upload it interrupted was sent again by a later attempt, and flagged.
      expect(await startedAttemptOf(started.handle, killed)).toBeGreaterThan(1);
      expect(result.documents.filter((document) => document.possibleDuplicate)).toHaveLength(1);
    } finally {
      await second.kill('SIGTERM');
    }
  });
});
