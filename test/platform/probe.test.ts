/**
 * The probe against the sandbox: its reference profile (which honours keys), and a profile that ignores them and
 * names its links differently (`urls`). It reports what it saw, recommends the configuration, and creates nothing
 * unless allowed. (An answer no profile gives, an order id it cannot read, is in probe.unit.test.ts.)
 */
import { createPlatformClient, probePlatform } from '../../src/platform';
import { TokenCache } from '../../src/platform/token-cache';
import { DEMO_USER, startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';

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

describe('against a platform that ignores keys and names its links urls.*', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, profile: 'urls', idempotency: 'ignored' });
  });
  afterAll(async () => {
    await sandbox.close();
  });
  beforeEach(async () => {
    await sandbox.control.reset();
  });
  const client = () =>
    createPlatformClient({
      baseUrl: sandbox.baseUrl,
      credentials: { username: DEMO_USER.username, password: DEMO_USER.password },
      tokenCache: new TokenCache(),
    });

  it('finds keys ignored and pins the links and the ids it found', async () => {
    const report = await probePlatform({ client: client(), allowTestOrders: true, testOrder });
    expect(report.orders?.keyHonoured).toBe(false);
    expect(report.documents?.keyHonoured).toBe(false);
    expect(report.documents?.first.linksFound).toEqual(['original', 'thumbnail', 'download']);
    expect(report.recommended).toEqual({
      BADGE_IDEMPOTENCY_KEYS: null,
      // The sandbox's token names the user in a numeric sub.
      BADGE_USER_ID_CLAIM: 'sub',
      responseMap: {
        orderId: '/data/id',
        documentId: '/document/id',
        links: { original: '/urls/original', thumbnail: '/urls/thumbnail', download: '/urls/signed' },
      },
    });
    expect(JSON.stringify(report)).not.toMatch(/https?:\/\//);
    // The same key sent twice, and the platform made two orders and two documents: what the report says.
    const platform = await sandbox.control.state();
    expect(platform.orders.map((order) => order.id)).toEqual([
      report.orders?.first.orderId,
      report.orders?.second?.orderId,
    ]);
    expect(platform.documents).toHaveLength(2);
  });

  it('creates nothing without allowTestOrders', async () => {
    const report = await probePlatform({ client: client() });
    expect(report.orders).toBeUndefined();
    expect(report.recommended.BADGE_IDEMPOTENCY_KEYS).toBeNull();
    expect(Object.keys((await sandbox.control.stats()).requests).sort()).toEqual(['auth', 'stocks']);
    expect(await sandbox.control.state()).toMatchObject({ orders: [], documents: [] });
  });
});
