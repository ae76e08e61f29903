/**
 * The HTTP API over real HTTP against a real dev server, the sandbox and a worker: each endpoint, each
 * authentication failure, the 409 conflict, and that nothing the API refuses starts a workflow.
 */
import { WorkflowNotFoundError } from '@temporalio/common';
import type { z } from 'zod';
import { loadApiConfig } from '../../src/api/config';
import { INPUT_HASH_MEMO_KEY, orderInputHash } from '../../src/api/input-hash';
import type { OrderKey } from '../../src/client/badge-orders-client';
import {
  badgeOrderStatusViewSchema as statusViewSchema,
  documentStateSchema,
  parseBadgeOrderInput,
  type ValidBadgeOrderInput,
} from '../../src/contract';
import { problemSchema } from '../../src/http-contract';
import { statusQuery } from '../../src/workflow-messages';
import { DEMO_USER } from '../../src/sandbox';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';
import {
  orderAcceptedSchema,
  orderPageSchema,
  orderViewSchema,
  retryAcceptedSchema,
  startTestApi,
  startTestIssuer,
  TEST_KEYS,
  type TestApi,
  type TestIssuer,
} from './api-server';

const ALL_TYPES = ['image/jpeg', 'image/png', 'application/pdf'];

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly headers: Headers;
  readonly body: unknown;
}

describe('the HTTP API', () => {
  const stack = useTestStack({ worker: true });
  let api: TestApi;
  let issuer: TestIssuer;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    api = await startTestApi({ orders: stack.orders, jwksUrl: issuer.jwksUrl });
  });
  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });
  afterEach(async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ALL_TYPES });
  });

  async function call(
    method: string,
    path: string,
    options: { key?: keyof typeof TEST_KEYS | null; token?: string; body?: unknown; rawBody?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    const key = options.key === undefined ? 'writer' : options.key;
    if (key !== null && options.token === undefined) headers['x-api-key'] = TEST_KEYS[key].key;
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined || options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = options.rawBody ?? JSON.stringify(options.body);
    }
    const response = await fetch(`${api.url}${path}`, { method, headers, body });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    return {
      status: response.status,
      contentType,
      headers: response.headers,
      body: contentType.includes('json') && text !== '' ? (JSON.parse(text) as unknown) : text,
    };
  }

  function problem(answer: Answer): z.infer<typeof problemSchema> {
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    return problemSchema.parse(answer.body);
  }

  /** An order of the `writer` backend (its keys `writer` and `reader`), as Temporal knows it. */
  const mine = (orderRef: string): OrderKey => ({ orderRef, clientId: 'writer' });

  async function expectNoWorkflow(orderRef: string): Promise<void> {
    await expect(stack.orders.getHandle(mine(orderRef)).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  }

  /** An order body whose files lie in the client's own folder, `clients/<client>/`. */
  function orderBody(
    orderRef: string,
    files: readonly string[] = ['scan.pdf'],
    client = 'writer',
  ): Record<string, unknown> {
    return {
      vehicle: { licensePlate: 'A-PI 1' },
      badge: { type: 'green' },
      documents: files.map((name) => ({
        path: stack.writeDocument(`clients/${client}/${orderRef}/${name}`, `bytes of ${name}`),
      })),
    };
  }

  it('places an order (201), attaches with the same input (200), refuses a different one (409)', async () => {
    const orderRef = 'api-put-1';
    const body = orderBody(orderRef);
    const created = await call('PUT', `/v1/orders/${orderRef}`, { body });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/orders/${orderRef}`);
    expect(orderAcceptedSchema.parse(created.body)).toMatchObject({ orderRef, created: true });
    const firstRun = (await stack.orders.getHandle(mine(orderRef)).describe()).runId;

    // The same input with its keys in another order and the orderRef repeated in the body.
    const again = await call('PUT', `/v1/orders/${orderRef}`, {
      body: { documents: body.documents, badge: body.badge, vehicle: body.vehicle, orderRef },
    });
    expect(again.status).toBe(200);
    expect(orderAcceptedSchema.parse(again.body)).toMatchObject({ created: false, runId: firstRun });

    const different = await call('PUT', `/v1/orders/${orderRef}`, {
      body: { ...body, badge: { type: 'red' } },
    });
    expect(different.status).toBe(409);
    expect(problem(different).code).toBe('order-conflict');

    const description = await stack.orders.getHandle(mine(orderRef)).describe();
    expect(description.runId).toBe(firstRun);
    // The hash is in the memo, encrypted by the payload codec like the input; not a search attribute.
    expect(String(description.memo?.[INPUT_HASH_MEMO_KEY])).toMatch(/^sha256:[0-9a-f]{64}$/);
    const raw = await stack.temporal.rawClient.workflowService.describeWorkflowExecution({
      namespace: stack.temporal.client.options.namespace,
      execution: { workflowId: description.workflowId },
    });
    const stored = raw.workflowExecutionInfo?.memo?.fields?.[INPUT_HASH_MEMO_KEY];
    expect(Buffer.from(stored?.metadata?.encoding ?? []).toString()).toBe('binary/encrypted');
    expect(Buffer.from(stored?.data ?? []).toString('latin1')).not.toContain('sha256:');
    expect(Object.keys(description.searchAttributes)).not.toContain(INPUT_HASH_MEMO_KEY);
  });

  it('attaches a repeated PUT of an order placed through 0.3.0, whose hash took the numeric stockId as a number', async () => {
    const orderRef = 'api-put-numeric';
    const body = { ...orderBody(orderRef), stockId: 1001 };
    // As the API validates it: the caller's key id is the order's clientId.
    const input = parseBadgeOrderInput({ ...body, orderRef, clientId: 'writer' });
    // 0.3.0's validated input kept the caller's number, and its memo holds the hash of that.
    const hashOf030 = orderInputHash({ ...input, stockId: 1001 } as unknown as ValidBadgeOrderInput);
    expect(hashOf030).not.toBe(orderInputHash(input));
    await stack.orders.startOrder(input, { memo: { [INPUT_HASH_MEMO_KEY]: hashOf030 } });

    const again = await call('PUT', `/v1/orders/${orderRef}`, { body });
    expect(again.status).toBe(200);
    expect(orderAcceptedSchema.parse(again.body)).toMatchObject({ created: false });
    const otherStock = await call('PUT', `/v1/orders/${orderRef}`, { body: { ...body, stockId: 1002 } });
    expect(problem(otherStock).code).toBe('order-conflict');
  });

  it('reads an order while it runs and after it closed, and lists it by status, page by page', async () => {
    const orderRef = 'api-get-1';
    expect((await call('PUT', `/v1/orders/${orderRef}`, { body: orderBody(orderRef) })).status).toBe(201);
    const completed = await pollUntil(
      () => call('GET', `/v1/orders/${orderRef}`, { key: 'reader' }),
      (answer) => (answer.body as { runStatus?: string }).runStatus === 'COMPLETED',
      { what: 'the order to complete' },
    );
    const view = orderViewSchema.parse(completed.body);
    expect(view).toMatchObject({ orderRef, status: 'Completed', view: null, failure: null });
    expect(view.result?.documents).toHaveLength(1);
    expect(view.orderId).toBe(view.result?.orderId);

    const second = 'api-get-2';
    expect((await call('PUT', `/v1/orders/${second}`, { body: orderBody(second) })).status).toBe(201);
    const running = await call('GET', `/v1/orders/${second}`, { key: 'reader' });
    expect(running.status).toBe(200);
    orderViewSchema.parse(running.body);
    await pollUntil(
      () => call('GET', `/v1/orders/${second}`, { key: 'reader' }),
      (answer) => (answer.body as { runStatus?: string }).runStatus === 'COMPLETED',
      { what: 'the second order to complete' },
    );

    // Every completed order, one per page: other tests' orders complete too, so look for these two among them.
    const listAll = async (): Promise<{ refs: string[]; firstToken: string | null }> => {
      const refs: string[] = [];
      let firstToken: string | null = null;
      let token: string | null = null;
      do {
        const suffix: string = token === null ? '' : `&pageToken=${encodeURIComponent(token)}`;
        const page = orderPageSchema.parse(
          (await call('GET', `/v1/orders?status=Completed&pageSize=1${suffix}`, { key: 'reader' })).body,
        );
        expect(page.orders.length).toBeLessThanOrEqual(1);
        for (const listed of page.orders) {
          expect(listed).toMatchObject({ status: 'Completed', runStatus: 'COMPLETED' });
          refs.push(listed.orderRef);
        }
        firstToken ??= page.nextPageToken;
        token = page.nextPageToken;
      } while (token !== null);
      return { refs, firstToken };
    };
    const listing = await pollUntil(listAll, ({ refs }) => refs.includes(orderRef) && refs.includes(second), {
      what: 'both completed orders in visibility',
    });
    expect(new Set(listing.refs).size).toBe(listing.refs.length);
    const first = { nextPageToken: listing.firstToken };

    // A token is bound to its filter, and a made-up one is refused.
    const otherFilter = await call(
      'GET',
      `/v1/orders?status=Failed&pageToken=${encodeURIComponent(first.nextPageToken ?? '')}`,
      { key: 'reader' },
    );
    expect(problem(otherFilter).errors?.map((error) => error.field)).toEqual(['query.pageToken']);
    expect((await call('GET', '/v1/orders?pageToken=garbage', { key: 'reader' })).status).toBe(400);

    const missing = await call('GET', '/v1/orders/api-no-such-order', { key: 'reader' });
    expect(missing.status).toBe(404);
    expect(problem(missing).code).toBe('order-not-found');
  });

  it('runs the operator actions: replace a failed document, retry, set the owner, reconcile an order or a document (refused when not awaited)', async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    const orderRef = 'api-ops-1';
    expect(
      (await call('PUT', `/v1/orders/${orderRef}`, { body: orderBody(orderRef, ['photo.jpg']) })).status,
    ).toBe(201);
    await pollUntil(
      () => stack.orders.status(mine(orderRef)),
      (status) => status.searchStatus === 'AwaitingRepair',
      { what: 'the order to await repair' },
    );

    const retry = await call('POST', `/v1/orders/${orderRef}/retry?clientId=writer`, { key: 'operator' });
    expect(retry.status).toBe(202);
    retryAcceptedSchema.parse(retry.body);

    const reconcile = await call('POST', `/v1/orders/${orderRef}/reconcile?clientId=writer`, {
      key: 'operator',
      body: { orderId: 12 },
    });
    expect(reconcile.status).toBe(409);
    expect(problem(reconcile).code).toBe('reconcile-refused');

    const owner = await call('POST', `/v1/orders/${orderRef}/document-owner?clientId=writer`, {
      key: 'operator',
      body: { documentOwner: DEMO_USER.id },
    });
    expect(owner.status).toBe(200);
    expect(statusViewSchema.parse(owner.body).documentOwner).toEqual({
      id: DEMO_USER.id,
      source: 'operator',
      refused: null,
    });
    const noOwner = await call('POST', `/v1/orders/${orderRef}/document-owner?clientId=writer`, {
      key: 'operator',
      body: { documentOwner: '' },
    });
    expect(problem(noOwner)).toMatchObject({ status: 400 });

    const noDocument = await call('POST', `/v1/orders/${orderRef}/documents/3/replace?clientId=writer`, {
      key: 'operator',
      body: { newPath: 'x.pdf' },
    });
    expect(problem(noDocument)).toMatchObject({ status: 404, code: 'document-not-found' });

    // The platform refused the file (422): it cannot hold it, so there is nothing to answer about it.
    const notHeld = await call('POST', `/v1/orders/${orderRef}/documents/0/reconcile?clientId=writer`, {
      key: 'operator',
      body: { documentId: 'doc-1' },
    });
    expect(problem(notHeld)).toMatchObject({ status: 409, code: 'reconcile-document-refused' });
    expect(problem(notHeld).detail).toMatch(/not held|only a held document/);
    const badAnswer = await call('POST', `/v1/orders/${orderRef}/documents/0/reconcile?clientId=writer`, {
      key: 'operator',
      body: { documentId: 'doc-1', notStored: true },
    });
    expect(problem(badAnswer)).toMatchObject({ status: 400 });
    expect(problem(badAnswer).detail).toContain('"notStored": true');

    await pollUntil(
      () => stack.orders.status(mine(orderRef)),
      (status) => status.searchStatus === 'AwaitingRepair' && status.documents[0]?.status === 'failed',
      { what: 'the retried document to fail again' },
    );
    const newPath = stack.writeDocument(`clients/writer/${orderRef}/scan.pdf`, 'bytes of scan.pdf');
    const replaced = await call('POST', `/v1/orders/${orderRef}/documents/0/replace?clientId=writer`, {
      key: 'operator',
      body: { newPath },
    });
    expect(replaced.status).toBe(200);
    expect(documentStateSchema.parse(replaced.body)).toMatchObject({ sourcePath: newPath });

    const done = await pollUntil(
      () => call('GET', `/v1/orders/${orderRef}?clientId=writer`, { key: 'operator' }),
      (answer) => (answer.body as { runStatus?: string }).runStatus === 'COMPLETED',
      { what: 'the repaired order to complete' },
    );
    expect(orderViewSchema.parse(done.body).result?.documents[0]?.path).toBe(
      `clients/writer/${orderRef}/photo.jpg`,
    );

    const closed = await call('POST', `/v1/orders/${orderRef}/retry?clientId=writer`, { key: 'operator' });
    expect(problem(closed)).toMatchObject({ status: 409, code: 'order-closed' });
    const lateOwner = await call('POST', `/v1/orders/${orderRef}/document-owner?clientId=writer`, {
      key: 'operator',
      body: { documentOwner: DEMO_USER.id },
    });
    expect(problem(lateOwner)).toMatchObject({ status: 409, code: 'set-owner-refused' });
  });

  it('refuses missing, wrong and expired credentials (401) and a missing scope (403); nothing starts', async () => {
    const orderRef = 'api-auth-1';
    const body = orderBody(orderRef);
    const missing = await call('PUT', `/v1/orders/${orderRef}`, { key: null, body });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toContain('Bearer');
    expect(problem(missing).code).toBe('unauthenticated');

    const wrongKey = await fetch(`${api.url}/v1/orders/${orderRef}`, {
      method: 'PUT',
      headers: { 'x-api-key': `${TEST_KEYS.writer.key}x`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(wrongKey.status).toBe(401);

    const expired = await issuer.sign(
      { scope: 'orders:write' },
      { expiresIn: Math.floor(Date.now() / 1000) - 60 },
    );
    const expiredAnswer = await call('PUT', `/v1/orders/${orderRef}`, { token: expired, body });
    expect(problem(expiredAnswer)).toMatchObject({ status: 401, code: 'token-expired' });

    const otherAudience = await issuer.sign({ scope: 'orders:write' }, { audience: 'someone-else' });
    expect((await call('PUT', `/v1/orders/${orderRef}`, { token: otherAudience, body })).status).toBe(401);
    // Without an expiry a token would be valid forever; without issuer or audience, meant for anyone.
    for (const missing of ['expiresIn', 'issuer', 'audience']) {
      const token = await issuer.sign({ scope: 'orders:write' }, { [missing]: null });
      const answer = await call('PUT', `/v1/orders/${orderRef}`, { token, body });
      expect(problem(answer)).toMatchObject({ status: 401, code: 'invalid-token' });
    }
    expect((await call('PUT', `/v1/orders/${orderRef}`, { token: 'not.a.jwt', body })).status).toBe(401);

    const readerPut = await call('PUT', `/v1/orders/${orderRef}`, { key: 'reader', body });
    expect(problem(readerPut)).toMatchObject({ status: 403, code: 'insufficient-scope' });
    const readOnlyToken = await issuer.sign({ scope: 'orders:read' });
    expect((await call('PUT', `/v1/orders/${orderRef}`, { token: readOnlyToken, body })).status).toBe(403);
    expect((await call('POST', `/v1/orders/${orderRef}/retry`, { key: 'writer' })).status).toBe(403);
    await expectNoWorkflow(orderRef);

    // The token's client is oidc-sub:<sub>; its files lie in its own folder.
    const token = await issuer.sign({ scope: 'orders:write orders:read' });
    const tokenBody = orderBody(orderRef, ['scan.pdf'], 'oidc-sub:backend-x');
    expect((await call('PUT', `/v1/orders/${orderRef}`, { token, body: tokenBody })).status).toBe(201);
    expect((await call('GET', `/v1/orders/${orderRef}`, { token })).status).toBe(200);
  });

  it('names each invalid field (400) and refuses large or non-JSON bodies; nothing starts', async () => {
    const orderRef = 'api-invalid-1';
    const invalid = await call('PUT', `/v1/orders/${orderRef}`, {
      body: {
        vehicle: {},
        badge: 'green',
        documents: [{ path: '../etc/passwd' }],
        options: { repairWindowMs: 1 },
      },
    });
    const details = problem(invalid);
    expect(details).toMatchObject({ status: 400, code: 'invalid-input' });
    expect(details.errors?.map((error) => error.field).sort()).toEqual(
      ['body.badge', 'body.documents.0.path', 'body.options.repairWindowMs', 'body.vehicle'].sort(),
    );

    const otherRef = await call('PUT', `/v1/orders/${orderRef}`, {
      body: { ...orderBody(orderRef), orderRef: 'x' },
    });
    expect(problem(otherRef).errors?.map((error) => error.field)).toEqual(['body.orderRef']);
    expect((await call('PUT', '/v1/orders/bad%20ref', { body: orderBody(orderRef) })).status).toBe(400);
    const syntax = await call('PUT', `/v1/orders/${orderRef}`, { rawBody: '{"vehicle":' });
    expect(problem(syntax).status).toBe(400);
    const huge = await call('PUT', `/v1/orders/${orderRef}`, {
      body: { ...orderBody(orderRef), vehicle: { notes: 'x'.repeat(2 * 1024 * 1024) } },
    });
    expect(problem(huge)).toMatchObject({ status: 413, code: 'body-too-large' });
    const text = await fetch(`${api.url}/v1/orders/${orderRef}`, {
      method: 'PUT',
      headers: { 'x-api-key': TEST_KEYS.writer.key, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(text.status).toBe(415);
    await expectNoWorkflow(orderRef);
  });

  it('lets API clients set only the options API_ORDER_OPTIONS allows, within their ceilings (400 naming each)', async () => {
    const orderRef = 'api-options-1';
    const refused = await call('PUT', `/v1/orders/${orderRef}`, {
      body: {
        ...orderBody(orderRef),
        // By default: more parallel uploads or longer platform retries than the defaults, a shorter heartbeat
        // timeout or history budget would take more of the shared workers; the waits are the client's.
        options: {
          maxParallelUploads: 32,
          platformRetryWindowMs: 30 * 24 * 3_600_000,
          uploadHeartbeatTimeoutMs: 1_000,
          historyBudgetEvents: 100,
          repairWindowMs: 30 * 24 * 3_600_000,
        },
      },
    });
    expect(problem(refused)).toMatchObject({ status: 400, code: 'invalid-input' });
    const byField = (a: { field: string }, b: { field: string }): number => a.field.localeCompare(b.field);
    expect([...(problem(refused).errors ?? [])].sort(byField)).toEqual(
      [
        {
          field: 'body.options.maxParallelUploads',
          message: 'must be at most 4 for API clients here (API_ORDER_OPTIONS)',
        },
        {
          field: 'body.options.platformRetryWindowMs',
          message: 'must be at most 86400000 for API clients here (API_ORDER_OPTIONS)',
        },
        {
          field: 'body.options.uploadHeartbeatTimeoutMs',
          message: 'is not an option API clients may set here (API_ORDER_OPTIONS)',
        },
        {
          field: 'body.options.historyBudgetEvents',
          message: 'is not an option API clients may set here (API_ORDER_OPTIONS)',
        },
      ].sort(byField),
    );
    await expectNoWorkflow(orderRef);

    const options = { maxParallelUploads: 2, repairWindowMs: 30 * 24 * 3_600_000 };
    const accepted = await call('PUT', `/v1/orders/${orderRef}`, {
      body: { ...orderBody(orderRef), options },
    });
    expect(accepted.status).toBe(201);
    // The order runs with them (its status view shows the options it resolved when it started).
    const handle = stack.orders.getHandle(mine(orderRef));
    const view = await pollUntil(
      () => handle.query(statusQuery).catch(() => null),
      (answer) => answer?.options !== undefined,
      { what: 'the order to answer its status' },
    );
    expect(view?.options).toMatchObject(options);
  });

  it('applies API_ORDER_OPTIONS as the API process reads it from its environment', async () => {
    const { limits } = loadApiConfig({
      API_OIDC_JWKS_URL: 'https://issuer.example/jwks.json',
      API_OIDC_ISSUER: 'https://issuer.example',
      API_OIDC_AUDIENCE: 'badge-orders-api',
      PAYLOAD_ENCRYPTION: 'off',
      API_ORDER_OPTIONS: 'maxParallelUploads=2',
    });
    const configured = await startTestApi({ orders: stack.orders, limits });
    try {
      const orderRef = 'api-options-env';
      const refused = await fetch(`${configured.url}/v1/orders/${orderRef}`, {
        method: 'PUT',
        headers: { 'x-api-key': TEST_KEYS.writer.key, 'content-type': 'application/json' },
        body: JSON.stringify({ ...orderBody(orderRef), options: { maxParallelUploads: 3 } }),
      });
      const answer = {
        status: refused.status,
        contentType: refused.headers.get('content-type') ?? '',
        headers: refused.headers,
        body: await refused.json(),
      };
      expect(problem(answer)).toMatchObject({ status: 400, code: 'invalid-input' });
      expect(problem(answer).errors).toEqual([
        {
          field: 'body.options.maxParallelUploads',
          message: 'must be at most 2 for API clients here (API_ORDER_OPTIONS)',
        },
      ]);
      await expectNoWorkflow(orderRef);
    } finally {
      await configured.close();
    }
  });

  it('refuses a callbackUrl into an internal network in every spelling (400 naming the field); nothing starts', async () => {
    const orderRef = 'api-internal-hook';
    const body = orderBody(orderRef);
    for (const host of [
      '127.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '0x7f000001',
      '2130706433',
      '0.0.0.0',
      '169.254.169.254',
      '10.0.0.7',
      '192.168.1.1',
      '100.64.0.1',
      '[fd00::1]',
      'localhost',
    ]) {
      const refused = await call('PUT', `/v1/orders/${orderRef}`, {
        body: { ...body, callbackUrl: `https://${host}/hooks` },
      });
      expect(refused.status).toBe(400);
      const errors = problem(refused).errors ?? [];
      expect(errors.map((error) => error.field)).toEqual(['body.callbackUrl']);
      expect(errors[0]?.message).toMatch(/^must lead to a public address \(.* is (a|an|the|this) /);
    }
    await expectNoWorkflow(orderRef);
  });

  it('limits requests per key: one key at its limit does not hold back another', async () => {
    const limited = await startTestApi({ orders: stack.orders, limits: { rateLimitMax: 2 } });
    try {
      const get = (key: keyof typeof TEST_KEYS): Promise<Response> =>
        fetch(`${limited.url}/v1/orders/api-rate`, { headers: { 'x-api-key': TEST_KEYS[key].key } });
      expect((await get('reader')).status).toBe(404);
      expect((await get('reader')).status).toBe(404);
      const refused = await get('reader');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).not.toBeNull();
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await get('operator')).status).toBe(404);
    } finally {
      await limited.close();
    }
  });

  it('counts failed authentications per address: past API_AUTH_FAILURE_MAX it answers 429 before looking at credentials', async () => {
    const guarded = await startTestApi({ orders: stack.orders, limits: { authFailureMax: 3 } });
    try {
      const get = (key: string): Promise<Response> =>
        fetch(`${guarded.url}/v1/orders/api-guessing`, { headers: { 'x-api-key': key } });
      expect((await get(TEST_KEYS.reader.key)).status).toBe(404);
      for (let guess = 0; guess < 3; guess += 1) expect((await get(`bo_guess-${guess}`)).status).toBe(401);
      // A good key from this address waits too: a guess that happened to be right would get nothing either.
      const refused = await get(TEST_KEYS.reader.key);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({
        code: 'too-many-failed-authentications',
        detail: expect.stringContaining('at most 3 per 60 s (API_AUTH_FAILURE_MAX)') as string,
      });
      expect((await fetch(`${guarded.url}/healthz`)).status).toBe(200);
      // Without API_TRUST_PROXY a forwarded address is not believed: a caller cannot name itself anew.
      const forwarded = await fetch(`${guarded.url}/v1/orders/api-guessing`, {
        headers: { 'x-api-key': TEST_KEYS.reader.key, 'x-forwarded-for': '203.0.113.9' },
      });
      expect(forwarded.status).toBe(429);
    } finally {
      await guarded.close();
    }
  });

  it('behind a proxy in API_TRUST_PROXY, counts failed authentications per forwarded address (IPv6: per /64): one guesser locks out no one else', async () => {
    const proxied = await startTestApi({
      orders: stack.orders,
      limits: { authFailureMax: 2, trustProxy: ['127.0.0.1'] },
    });
    try {
      const get = (key: string, caller: string): Promise<Response> =>
        fetch(`${proxied.url}/v1/orders/api-proxied`, {
          // As a proxy appends the address it saw to what the caller sent.
          headers: { 'x-api-key': key, 'x-forwarded-for': `198.51.100.1, ${caller}` },
        });
      for (let guess = 0; guess < 2; guess += 1) {
        expect((await get(`bo_guess-${guess}`, '203.0.113.1')).status).toBe(401);
      }
      expect((await get(TEST_KEYS.reader.key, '203.0.113.1')).status).toBe(429);
      expect((await get(TEST_KEYS.reader.key, '203.0.113.2')).status).toBe(404);

      // IPv6: one host is given a whole /64, so the /64 counts, whatever address in it each guess comes from.
      expect((await get('bo_guess-6a', '2001:db8:1:2::1')).status).toBe(401);
      expect((await get('bo_guess-6b', '2001:db8:1:2:ffff:0:0:2')).status).toBe(401);
      expect((await get(TEST_KEYS.reader.key, '2001:db8:1:2:abcd::3')).status).toBe(429);
      expect((await get(TEST_KEYS.reader.key, '2001:db8:1:3::1')).status).toBe(404);
      // An IPv4 address written as IPv6 is that IPv4 address: the one locked out above.
      expect((await get(TEST_KEYS.reader.key, '::ffff:203.0.113.1')).status).toBe(429);
    } finally {
      await proxied.close();
    }
  });

  it('serves its OpenAPI 3.1 document and a docs page that loads nothing from elsewhere', async () => {
    const document = await fetch(`${api.url}/openapi.json`);
    expect(document.status).toBe(200);
    const json = (await document.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(json.openapi).toBe('3.1.0');
    expect(Object.keys(json.paths).sort()).toEqual([
      '/v1/orders',
      '/v1/orders/{orderRef}',
      '/v1/orders/{orderRef}/document-owner',
      '/v1/orders/{orderRef}/documents/{index}/reconcile',
      '/v1/orders/{orderRef}/documents/{index}/replace',
      '/v1/orders/{orderRef}/reconcile',
      '/v1/orders/{orderRef}/retry',
    ]);
    const page = await fetch(`${api.url}/docs`);
    const html = await page.text();
    expect(html).toContain('PUT /v1/orders/{orderRef}');
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\/(?!issuer)/);
  });
});
