/**
 * The probe against the sandbox (which honours keys) and against a fake platform that ignores them and names
 * its links differently: it reports what it saw, recommends the configuration, and creates nothing unless
 * allowed.
 */
import { createPlatformClient, probePlatform } from '../../src/platform';
import { TokenCache } from '../../src/platform/token-cache';
import { DEMO_USER, startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { harness } from './fake-http';

const testOrder = {
  vehicle: { licence_plate: 'B-PR 0001', vin: 'WVWZZZ1JZXW000009' },
  badge: { colour: 'green', emission_class: 4 },
};

describe('against the sandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('finds keys honoured and pins the shapes it saw', async () => {
    const client = createPlatformClient({
      baseUrl: sandbox.baseUrl,
      credentials: { username: DEMO_USER.username, password: DEMO_USER.password },
      tokenCache: new TokenCache(),
    });
    const report = await probePlatform({ client, allowTestOrders: true, testOrder });
    expect(report.authentication.ok).toBe(true);
    expect(report.stocks.status).toBe(200);
    expect(report.orders?.keyHonoured).toBe(true);
    expect(report.documents?.keyHonoured).toBe(true);
    expect(report.recommended.BADGE_IDEMPOTENCY_KEYS).toBe('honoured');
    expect(report.recommended.responseMap?.orderId).toMatch(/^\//);
    expect(JSON.stringify(report)).not.toMatch(/https?:\/\//);
  });
});

describe('against a platform that ignores keys', () => {
  function platform() {
    let orders = 0;
    let documents = 0;
    return harness((request) => {
      if (request.path.endsWith('/stocks')) return { status: 200, body: { data: [{ id: 1 }] } };
      if (request.path.endsWith('/orders')) {
        orders += 1;
        return { status: 201, body: { result: { order: { number: String(9000 + orders) } } } };
      }
      documents += 1;
      return {
        status: 200,
        body: {
          document: { id: `doc-${documents}` },
          urls: { original: 'https://cdn/o?sig=secret', signed: 'https://cdn/d?sig=secret' },
        },
      };
    });
  }

  it('reports an order answer without a readable id as unknown and recommends holding', async () => {
    const h = platform();
    const report = await probePlatform({
      client: h.client,
      allowTestOrders: true,
    });
    // `number` is not an id name: the order id is unreadable, so nothing is uploaded.
    expect(report.orders?.first).toMatchObject({
      status: 201,
      orderId: null,
      failure: { code: 'UNEXPECTED_RESPONSE', outcome: 'maybe-applied' },
    });
    expect(report.recommended.BADGE_IDEMPOTENCY_KEYS).toBeNull();
  });

  it('pins the links and the ids it found', async () => {
    let orders = 0;
    let documents = 0;
    const h = harness((request) => {
      if (request.path.endsWith('/stocks')) return { status: 200, body: [] };
      if (request.path.endsWith('/orders')) {
        orders += 1;
        return { status: 201, body: { data: { order_id: 9000 + orders } } };
      }
      documents += 1;
      return {
        status: 200,
        body: {
          document: { id: `doc-${documents}` },
          urls: { original: 'https://cdn/o', signed: { href: 'https://cdn/d' } },
        },
      };
    });
    const report = await probePlatform({ client: h.client, allowTestOrders: true });
    expect(report.orders?.keyHonoured).toBe(false);
    expect(report.documents?.keyHonoured).toBe(false);
    expect(report.documents?.first.linksFound).toEqual(['original', 'download']);
    expect(report.recommended).toEqual({
      BADGE_IDEMPOTENCY_KEYS: null,
      // The fake platform's token names the user in a numeric sub.
      BADGE_USER_ID_CLAIM: 'sub',
      responseMap: {
        orderId: '/data/order_id',
        documentId: '/document/id',
        links: { original: '/urls/original', download: '/urls/signed' },
      },
    });
    expect(JSON.stringify(report)).not.toContain('https://cdn');
  });

  it('creates nothing without allowTestOrders', async () => {
    const h = platform();
    const report = await probePlatform({ client: h.client });
    expect(report.orders).toBeUndefined();
    expect(h.apiRequests().map((r) => r.path)).toEqual(['/badge/v2/api/v1/stocks']);
    expect(report.recommended.BADGE_IDEMPOTENCY_KEYS).toBeNull();
  });
});
