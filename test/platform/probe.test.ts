/**
 * The probe against the sandbox: its reference profile (which honours keys), and a profile that ignores them and
 * names its links differently (`urls`). It reports what it saw, recommends the configuration, and creates nothing
 * unless allowed. (An answer no profile gives, an order id it cannot read, is in probe.unit.test.ts.)
 */
import { createPlatformClient, probePlatform, type ProbeReport } from '../../src/platform';
import type { RequestProfileSettings } from '../../src/platform/request-profile';
import { TokenCache } from '../../src/platform/token-cache';
import type { PlatformCredentials } from '../../src/platform/types';
import { DEMO_CLIENT, DEMO_USER, SANDBOX_TENANT_ID, startSandbox } from '../../src/sandbox';
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
    // The empty order and the upload without a file were asked, and refused as every platform must.
    const { requests } = await sandbox.control.stats();
    expect(requests).toMatchObject({ orders: { '422': 1 }, documents: { '422': 1 } });
    expect(Object.keys(requests.orders ?? {})).toEqual(['422']);
    expect(Object.keys(requests.documents ?? {})).toEqual(['422']);
    expect(await sandbox.control.state()).toMatchObject({ orders: [], documents: [] });
  });
});

/**
 * The strict profiles of issue 57, configured only by what the probe prints: each round applies the settings the
 * previous probe suggested (the operator's part: the tenant id and the client's secret, which the probe cannot
 * know), until a probe suggests nothing more; then a test order and its upload go through.
 */
describe('against the strict profiles, configured only by what the probe prints', () => {
  interface Configured {
    requestProfile: RequestProfileSettings;
    tenantId?: string;
    credentials: PlatformCredentials;
  }
  const asUser: PlatformCredentials = { username: DEMO_USER.username, password: DEMO_USER.password };
  const probe = (sandbox: RunningSandbox, configured: Configured, allowTestOrders: boolean) =>
    probePlatform({
      client: createPlatformClient({
        baseUrl: sandbox.baseUrl,
        ...configured,
        documentOwner: { kind: 'fixed', id: DEMO_USER.id },
        tokenCache: new TokenCache(),
      }),
      allowTestOrders,
      testOrder,
    });
  /** What the operator does with a report: merge the suggested profile, fill in what only they know. */
  function apply(configured: Configured, report: ProbeReport): Configured {
    const suggested = report.recommended.requestProfile ?? {};
    const merged: Record<string, unknown> = { ...configured.requestProfile };
    for (const [member, value] of Object.entries(suggested)) {
      merged[member] = { ...(merged[member] as object | undefined), ...(value as object) };
    }
    return {
      requestProfile: merged,
      ...((configured.tenantId !== undefined || report.recommended.BADGE_TENANT_ID !== undefined) && {
        tenantId: SANDBOX_TENANT_ID,
      }),
      credentials:
        report.recommended.clientCredentials === true
          ? { clientId: DEMO_CLIENT.clientId, clientSecret: DEMO_CLIENT.clientSecret }
          : configured.credentials,
    };
  }
  /** Probes and applies until a probe suggests nothing; every report, the last one fine. */
  async function converge(sandbox: RunningSandbox, allowTestOrders: boolean) {
    let configured: Configured = { requestProfile: {}, credentials: asUser };
    const reports: ProbeReport[] = [];
    for (let round = 0; round < 6; round += 1) {
      const report = await probe(sandbox, configured, allowTestOrders);
      reports.push(report);
      const { requestProfile, BADGE_TENANT_ID, clientCredentials } = report.recommended;
      if (requestProfile === undefined && BADGE_TENANT_ID === undefined && clientCredentials === undefined)
        return { reports, configured };
      configured = apply(configured, report);
    }
    throw new Error(`no end after 6 probes: ${JSON.stringify(reports.at(-1)?.notes)}`);
  }

  let sandbox: RunningSandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('strict-names: the tenant header first, then each order field it names, then the file part', async () => {
    sandbox = await startSandbox({ port: 0, profile: 'strict-names' });
    const { reports, configured } = await converge(sandbox, true);
    const [first, second] = reports;
    // Refused before anything else: the probe names the header, places {tenant} and says it cannot know the id.
    expect(first?.authentication.failure?.unsent).toBe('X-Tenant-ID');
    expect(first?.recommended).toMatchObject({
      requestProfile: { headers: { 'X-Tenant-ID': '{tenant}' } },
      BADGE_TENANT_ID: '<the tenant id the platform gave you>',
    });
    expect(first?.notes.join('\n')).toMatch(/cannot know your tenant id/);
    expect(second?.refusals?.order).toMatchObject({ status: 422, failure: { unsent: 'vehicle_data' } });
    expect(configured).toEqual({
      requestProfile: {
        headers: { 'X-Tenant-ID': '{tenant}' },
        orderFields: { vehicle: 'vehicle_data', badge: 'badge_data' },
        documentParts: { file: 'attachment' },
      },
      tenantId: SANDBOX_TENANT_ID,
      credentials: asUser,
    });
    // The last probe: nothing to set, and its test order and upload went through with those settings.
    const last = reports.at(-1);
    expect(last?.refusals?.order.status).toBe(422);
    expect(last?.orders?.first.status).toBe(201);
    expect(last?.documents?.first.status).toBe(201);
    expect(JSON.stringify(last)).not.toContain(SANDBOX_TENANT_ID);
    // Only the probes' test orders exist: no empty create and no upload without a file stored anything.
    const state = await sandbox.control.state();
    expect(
      state.orders.every((order) => order.vehicle.licence_plate === testOrder.vehicle.licence_plate),
    ).toBe(true);
    expect(state.documents.every((document) => document.size > 0)).toBe(true);
  });

  it('strict-names without test orders: learns the header and the first order field, creates nothing, says what it could not tell', async () => {
    sandbox = await startSandbox({ port: 0, profile: 'strict-names' });
    const { reports, configured } = await converge(sandbox, false);
    // The empty order teaches the first field the platform names; the next one only a test order's refusal.
    expect(configured.requestProfile).toEqual({
      headers: { 'X-Tenant-ID': '{tenant}' },
      orderFields: { vehicle: 'vehicle_data' },
    });
    const said = reports.at(-1)?.notes.join('\n');
    expect(said).toMatch(/whether the other order fields are right is known only with allowTestOrders/);
    expect(said).toMatch(/whether the file part is right is known only with allowTestOrders/);
    expect(await sandbox.control.state()).toMatchObject({ orders: [], documents: [] });
  });

  it('strict-client: user credentials refused for the grant; with the client id and secret nothing more to set', async () => {
    sandbox = await startSandbox({ port: 0, profile: 'strict-client' });
    const { reports, configured } = await converge(sandbox, true);
    expect(reports).toHaveLength(2);
    expect(reports[0]?.authentication.ok).toBe(false);
    expect(reports[0]?.recommended.clientCredentials).toBe(true);
    expect(reports[0]?.notes.join('\n')).toMatch(/set BADGE_CLIENT_ID and BADGE_CLIENT_SECRET/);
    expect(configured.credentials).toMatchObject({ clientId: DEMO_CLIENT.clientId });
    expect(reports[1]).toMatchObject({
      authentication: { ok: true },
      stocks: { status: 200 },
      documents: { first: { status: 201 } },
    });
    expect(JSON.stringify(reports)).not.toContain(DEMO_CLIENT.clientSecret);
  });

  it('strict-clock: fine at once, one sign-in for the whole probe', async () => {
    sandbox = await startSandbox({ port: 0, profile: 'strict-clock' });
    const { reports } = await converge(sandbox, true);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ authentication: { ok: true }, documents: { first: { status: 201 } } });
    expect((await sandbox.control.stats()).authCalls).toEqual({ issued: 1, rejected: 0 });
  });

  it('routes only with a trailing slash: says where the platform redirected and that nothing is to set', async () => {
    sandbox = await startSandbox({ port: 0, strictSlash: true });
    const { reports } = await converge(sandbox, true);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.stocks).toMatchObject({ status: 200, redirectedTo: '/badge/v2/api/v1/stocks/' });
    expect(reports[0]?.notes.join('\n')).toMatch(
      /redirected the stock list to \/badge\/v2\/api\/v1\/stocks\/ .*nothing to set/,
    );
    expect(reports[0]?.documents?.first.status).toBe(201);
  });
});
