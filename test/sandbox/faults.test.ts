import { DEMO_USER, PLATFORM_PATHS, seededRandom } from '../../src/sandbox';
import type { FaultConfig, StartSandboxOptions } from '../../src/sandbox';
import { useSandbox, withSandbox } from './fixture';
import {
  authHeaders,
  createOrder,
  createOrderId,
  errorOf,
  http,
  orderPayload,
  requestToken,
  smallFile,
  tokenFor,
  uploadDocument,
} from './helpers';

const sandbox = useSandbox({ signIn: true, resetEach: 'faults-and-state' });

const getStocks = () =>
  http.get(`${sandbox.baseUrl}${PLATFORM_PATHS.stocks}`, { headers: authHeaders(sandbox.token) });

describe('deterministic failNext faults', () => {
  it.each([
    ['error-500', 500],
    ['error-502', 502],
    ['error-503', 503],
  ] as const)('%s answers %i before anything is stored, then the route recovers', async (kind, status) => {
    await sandbox.control.setFaults({ failNext: { route: 'orders', count: 1, kind } });
    const failed = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload());
    expect(failed.status).toBe(status);
    expect(errorOf(failed)).toMatchObject({ status, code: 'server_error' });
    expect((await sandbox.control.state()).orders).toHaveLength(0);
    expect((await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).status).toBe(201);
    expect((await sandbox.control.stats()).faults).toEqual({ [kind]: 1 });
  });

  it('rate-limit answers 429 with the configured Retry-After', async () => {
    await sandbox.control.setFaults({
      retryAfterSeconds: 7,
      failNext: [{ route: 'stocks', count: 2, kind: 'rate-limit' }],
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      const limited = await getStocks();
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('7');
      expect(errorOf(limited)).toMatchObject({ status: 429, code: 'rate_limited' });
    }
    expect((await getStocks()).status).toBe(200);
  });

  it('drop destroys the connection without an answer and stores nothing', async () => {
    await sandbox.control.setFaults({ failNext: { route: 'orders', kind: 'drop' } });
    await expect(createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    expect((await sandbox.control.state()).orders).toHaveLength(0);
    const stats = await sandbox.control.stats();
    expect(stats.requests.orders).toEqual({ dropped: 1 });
    expect(stats.faults).toEqual({ drop: 1 });
  });

  it('unauthorized answers 401 to a valid token, as if it had expired', async () => {
    await sandbox.control.setFaults({ failNext: { route: 'stocks', kind: 'unauthorized' } });
    const rejected = await getStocks();
    expect(rejected.status).toBe(401);
    expect(errorOf(rejected).code).toBe('unauthorized');
    expect((await getStocks()).status).toBe(200);
  });

  it('a rule without route hits the next platform request, whatever its route (token call included)', async () => {
    await sandbox.control.setFaults({ failNext: { kind: 'error-503' } });
    const response = await requestToken(sandbox.baseUrl, { username: 'demo', password: 'demo-password' });
    expect(response.status).toBe(503);
    expect((await getStocks()).status).toBe(200);
  });

  it('reports the rules not yet used up', async () => {
    await sandbox.control.setFaults({ failNext: [{ route: 'orders', count: 3, kind: 'error-500' }] });
    await createOrder(sandbox.baseUrl, sandbox.token, orderPayload());
    expect((await sandbox.control.faults()).failNext).toEqual([
      { route: 'orders', count: 2, kind: 'error-500' },
    ]);
    await createOrder(sandbox.baseUrl, sandbox.token, orderPayload());
    await createOrder(sandbox.baseUrl, sandbox.token, orderPayload());
    expect((await sandbox.control.faults()).failNext).toBeUndefined();
  });

  it('scopes a rule to its route', async () => {
    await sandbox.control.setFaults({ failNext: { route: 'documents', kind: 'error-500' } });
    expect((await getStocks()).status).toBe(200);
    expect((await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).status).toBe(201);
    const orderId = (await sandbox.control.state()).orders[0]?.id;
    const upload = await uploadDocument(sandbox.baseUrl, sandbox.token, {
      document_type: 'badge',
      document_type_id: orderId,
      document_owner: '4711',
      file: smallFile(),
    });
    expect(upload.status).toBe(500);
  });
});

describe('commit-then-fail', () => {
  it.each([
    ['commit-then-500', 500],
    ['commit-then-503', 503],
  ] as const)(
    '%s stores the order, answers %i, and a retry with the same key returns it',
    async (kind, status) => {
      await sandbox.control.setFaults({ failNext: { route: 'orders', kind } });
      const failed = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(1001), 'commit-key');
      expect(failed.status).toBe(status);
      const [stored] = (await sandbox.control.state()).orders;
      expect(stored).toMatchObject({ id: '5001', stock_id: 1001 });

      const retried = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(1001), 'commit-key');
      expect(retried.status).toBe(201);
      expect(retried.data.id).toBe(5001);
      expect((await sandbox.control.state()).orders).toHaveLength(1);
    },
  );

  it('duplicates the effect when the client retries without a key', async () => {
    await sandbox.control.setFaults({ failNext: { route: 'orders', kind: 'commit-then-500' } });
    expect((await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).status).toBe(500);
    expect((await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).status).toBe(201);
    expect((await sandbox.control.state()).orders).toHaveLength(2);
  });

  it('commit-then-drop stores the document, drops the connection, and the keyed retry replays it', async () => {
    const orderId = await createOrderId(sandbox.baseUrl, sandbox.token);
    await sandbox.control.setFaults({ failNext: { route: 'documents', count: 1, kind: 'commit-then-drop' } });
    const parts = {
      document_type: 'badge',
      document_type_id: orderId,
      document_owner: '4711',
      file: smallFile(),
    };
    await expect(uploadDocument(sandbox.baseUrl, sandbox.token, parts, 'upload-key')).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    const afterDrop = await sandbox.control.state();
    expect(afterDrop.documents).toHaveLength(1);
    expect(afterDrop.idempotencyKeys).toEqual([
      expect.objectContaining({ key: 'upload-key', route: 'documents', state: 'completed', status: 201 }),
    ]);

    const retried = await uploadDocument(sandbox.baseUrl, sandbox.token, parts, 'upload-key');
    expect(retried.status).toBe(201);
    expect(retried.data).toMatchObject({ id: afterDrop.documents[0]?.id });
    expect((await sandbox.control.state()).documents).toHaveLength(1);
  });

  it('acts like a plain failure on routes that store nothing', async () => {
    await sandbox.control.setFaults({ failNext: { route: 'stocks', kind: 'commit-then-503' } });
    expect((await getStocks()).status).toBe(503);
    expect((await sandbox.control.stats()).faults).toEqual({ 'error-503': 1 });
  });
});

describe('probabilistic faults', () => {
  it('draws from an injected random source', async () => {
    const values = [0.05, 0.0, 0.5, 0.25, 0.35];
    const options: StartSandboxOptions = {
      // 0.05 < errorRate → error, then 0.0 picks the first status; 0.5 → no fault; 0.25 → rate limit; 0.35 → drop
      random: () => values.shift() ?? 0.99,
      faults: {
        errorRate: 0.2,
        errorStatuses: [502, 503],
        rateLimitRate: 0.1,
        dropRate: 0.1,
        routes: ['stocks'],
      },
    };
    await withSandbox(options, async (scripted, scriptedToken) => {
      const get = () =>
        http.get(`${scripted.baseUrl}${PLATFORM_PATHS.stocks}`, { headers: authHeaders(scriptedToken) });
      expect((await get()).status).toBe(502);
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(429);
      await expect(get()).rejects.toMatchObject({ code: 'ECONNRESET' });
      expect((await get()).status).toBe(200);
    });
  });

  it('gives the same outcomes for the same seed', async () => {
    const faults: FaultConfig = { errorRate: 0.3, rateLimitRate: 0.2, routes: ['stocks'] };
    const outcomes = (seed: number): Promise<number[]> =>
      withSandbox({ seed, faults }, async (seeded, seededToken) => {
        const statuses: number[] = [];
        for (let index = 0; index < 30; index++) {
          const response = await http.get(`${seeded.baseUrl}${PLATFORM_PATHS.stocks}`, {
            headers: authHeaders(seededToken),
          });
          statuses.push(response.status);
        }
        return statuses;
      });
    const first = await outcomes(42);
    expect(await outcomes(42)).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(1);
    expect(seededRandom(1)()).toBe(seededRandom(1)());
  });

  it('applies shares only to the configured routes', async () => {
    await sandbox.control.setFaults({ errorRate: 1, routes: ['documents'] });
    expect((await getStocks()).status).toBe(200);
    expect((await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).status).toBe(201);
    const upload = await uploadDocument(sandbox.baseUrl, sandbox.token, {
      document_type: 'badge',
      document_type_id: 5001,
      document_owner: '4711',
      file: smallFile(),
    });
    expect([500, 502, 503]).toContain(upload.status);
  });

  it('commitThenFailRate stores before failing', async () => {
    await sandbox.control.setFaults({
      commitThenFailRate: 1,
      commitThenFailModes: ['503'],
      routes: ['orders'],
    });
    expect((await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).status).toBe(503);
    expect((await sandbox.control.state()).orders).toHaveLength(1);
    expect((await sandbox.control.stats()).faults).toEqual({ 'commit-then-503': 1 });
  });

  it('adds latency (counted, not timed)', async () => {
    await sandbox.control.setFaults({ latencyMs: { min: 1, max: 3 }, routes: ['stocks'] });
    expect((await getStocks()).status).toBe(200);
    expect((await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).status).toBe(201);
    expect((await sandbox.control.stats()).faults).toEqual({ latency: 1 });
  });
});

describe('Retry-After tells "not sent" from "may have taken effect"', () => {
  // A client treats a 503 with Retry-After as not sent (safe to retry) and one without as possibly committed.
  it('commit-then-503 answers 503 without Retry-After, on orders and documents, and probabilistic ones too', async () => {
    await sandbox.control.setFaults({
      retryAfterSeconds: 9,
      failNext: [
        { route: 'orders', kind: 'commit-then-503' },
        { route: 'documents', kind: 'commit-then-503' },
      ],
    });
    const order = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(), 'ra-order');
    expect(order.status).toBe(503);
    expect(order.headers['retry-after']).toBeUndefined();
    const orderId = (await sandbox.control.listOrders({ idempotencyKey: 'ra-order' }))[0]?.id;
    expect(orderId).toBe('5001');
    const upload = await uploadDocument(
      sandbox.baseUrl,
      sandbox.token,
      { document_type: 'badge', document_type_id: orderId, document_owner: '4711', file: smallFile() },
      'ra-doc',
    );
    expect(upload.status).toBe(503);
    expect(upload.headers['retry-after']).toBeUndefined();
    expect(await sandbox.control.listDocuments({ idempotencyKey: 'ra-doc' })).toHaveLength(1);

    await sandbox.control.setFaults({
      retryAfterSeconds: 9,
      commitThenFailRate: 1,
      commitThenFailModes: ['503'],
      routes: ['orders'],
    });
    const drawn = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload());
    expect(drawn.status).toBe(503);
    expect(drawn.headers['retry-after']).toBeUndefined();
  });

  it('maintenance answers 503 with Retry-After and stores nothing', async () => {
    await sandbox.control.setFaults({ maintenance: true, retryAfterSeconds: 9 });
    const order = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(), 'ra-maintenance');
    expect(order.status).toBe(503);
    expect(order.headers['retry-after']).toBe('9');
    expect(await sandbox.control.listOrders()).toEqual([]);
  });
});

describe('maintenance', () => {
  it('answers 503 everywhere, the token call included, while the control API keeps working', async () => {
    await sandbox.control.setFaults({ maintenance: true, retryAfterSeconds: 30 });
    const auth = await requestToken(sandbox.baseUrl, { username: 'demo', password: 'demo-password' });
    expect(auth.status).toBe(503);
    expect(auth.headers['retry-after']).toBe('30');
    expect(errorOf(auth)).toMatchObject({ status: 503, code: 'maintenance' });
    expect((await getStocks()).status).toBe(503);
    expect((await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).status).toBe(503);
    const upload = await uploadDocument(sandbox.baseUrl, sandbox.token, { file: smallFile() });
    expect(upload.status).toBe(503);
    expect((await sandbox.control.stats()).faults).toEqual({ maintenance: 4 });

    await sandbox.control.setFaults({});
    expect((await getStocks()).status).toBe(200);
  });
});

describe('stats', () => {
  it('counts requests by route and status, token calls and replays', async () => {
    await requestToken(sandbox.baseUrl, { username: 'demo', password: 'wrong' });
    await tokenFor(sandbox.baseUrl, DEMO_USER);
    await getStocks();
    await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(), 'k');
    await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(), 'k');
    await createOrder(sandbox.baseUrl, sandbox.token, {});
    await http.get(`${sandbox.baseUrl}/nowhere`);
    expect(await sandbox.control.stats()).toEqual({
      requests: {
        auth: { '200': 1, '401': 1 },
        stocks: { '200': 1 },
        orders: { '201': 2, '422': 1 },
        unknown: { '404': 1 },
      },
      totalRequests: 7,
      authCalls: { issued: 1, rejected: 1 },
      faults: {},
      idempotentReplays: 1,
    });
  });
});
