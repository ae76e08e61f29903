import {
  DEMO_USER,
  DOCUMENT_ID_STYLES,
  DOCUMENT_LINK_STYLES,
  ERROR_STYLES,
  FAULT_KINDS,
  IDEMPOTENCY_MODES,
  ORDER_ENVELOPES,
  ORDER_FIELD_SETS,
  PLATFORM_PATHS,
  SANDBOX_PROFILE_NAMES,
  SANDBOX_TENANT_ID,
  STOCK_ENVELOPES,
  STOCK_LINK_STYLES,
  STOCK_TOTAL_HEADERS,
  SandboxConfigError,
  subjectUuid,
  namedProfile,
  resolveProfile,
  sandboxProfileSchema,
  startSandbox,
} from '../../src/sandbox';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import type { FaultKind, SandboxProfile } from '../../src/sandbox';
import { useSandbox, withSandbox } from './fixture';
import type { SandboxFixture } from './fixture';
import {
  authHeaders,
  createOrder,
  errorOf,
  http,
  orderPayload,
  requestToken,
  smallFile,
  uploadDocument,
  uploadForm,
} from './helpers';
import {
  documentIdOf,
  expectErrorShape,
  rawHttp,
  readDocument,
  readOrder,
  readStockPage,
  record,
} from './profile-readers';

/** Leaf values of a profile by dotted path, to count how many choices two profiles differ in. */
function choices(profile: SandboxProfile): Map<string, unknown> {
  const leaves = new Map<string, unknown>();
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'object' && value !== null) {
      for (const [key, entry] of Object.entries(value)) walk(entry, path ? `${path}.${key}` : key);
    } else leaves.set(path, value);
  };
  walk(profile, '');
  leaves.delete('name');
  leaves.delete('description');
  return leaves;
}

function differences(a: SandboxProfile, b: SandboxProfile): string[] {
  const left = choices(a);
  const right = choices(b);
  return [...left.keys()].filter((key) => left.get(key) !== right.get(key));
}

describe('profile selection', () => {
  const reference = resolveProfile('reference');

  it('names at least five valid profiles, reference first and the default', () => {
    expect(SANDBOX_PROFILE_NAMES.length).toBeGreaterThanOrEqual(5);
    expect(SANDBOX_PROFILE_NAMES[0]).toBe('reference');
    expect(resolveProfile()).toEqual(reference);
    for (const name of SANDBOX_PROFILE_NAMES) {
      const profile = resolveProfile(name);
      expect(profile.name).toBe(name);
      expect(sandboxProfileSchema.safeParse(profile).success).toBe(true);
      expect(namedProfile(name)).toEqual(profile);
    }
  });

  it('makes every other named profile differ from reference in many choices at once (or ask differently)', () => {
    const answersDiffer = SANDBOX_PROFILE_NAMES.filter(
      (name) => name !== 'reference' && isDeepStrictEqual(resolveProfile(name).requests, REFERENCE_REQUESTS),
    );
    for (const name of answersDiffer) {
      const count = differences(resolveProfile(name), reference).length;
      expect({ name, atLeastEight: count >= 8 }).toEqual({ name, atLeastEight: true });
    }
  });

  it('has named profiles that ignore keys and, together, use every shape choice', () => {
    const profiles = SANDBOX_PROFILE_NAMES.map((name) => resolveProfile(name));
    expect(profiles.filter((profile) => profile.idempotency === 'ignored').length).toBeGreaterThanOrEqual(1);
    const used = <T>(of: (profile: SandboxProfile) => T): Set<T> => new Set(profiles.map(of));
    expect(used((profile) => profile.stocks.envelope)).toEqual(new Set(STOCK_ENVELOPES));
    expect(used((profile) => profile.orders.envelope)).toEqual(new Set(ORDER_ENVELOPES));
    expect(used((profile) => profile.orders.fields)).toEqual(new Set(ORDER_FIELD_SETS));
    expect(used((profile) => profile.documents.links)).toEqual(new Set(DOCUMENT_LINK_STYLES));
    expect(used((profile) => profile.documents.idStyle)).toEqual(new Set(DOCUMENT_ID_STYLES));
    expect(used((profile) => profile.errors)).toEqual(new Set(ERROR_STYLES));
    expect(used((profile) => profile.orders.status)).toEqual(new Set([200, 201]));
    expect(used((profile) => profile.documents.status)).toEqual(new Set([200, 201]));
    expect(used((profile) => profile.documents.filePart)).toEqual(new Set(['file', 'any', 'attachment']));
    expect(used((profile) => profile.stocks.pageSize === null)).toEqual(new Set([true, false]));
    expect(used((profile) => profile.stocks.link)).toEqual(new Set(STOCK_LINK_STYLES));
    expect(used((profile) => profile.stocks.totalHeader)).toEqual(new Set(STOCK_TOTAL_HEADERS));
    expect(used((profile) => profile.token.userIdClaim?.type ?? null)).toEqual(
      new Set([null, 'number', 'string']),
    );
    expect(used((profile) => profile.documents.ownerChecked)).toEqual(new Set([true, false]));
    expect(used((profile) => profile.token.issuedAt)).toEqual(new Set([true, false]));
    expect(used((profile) => profile.token.clockOffsetSeconds === 0)).toEqual(new Set([true, false]));
    expect(used((profile) => profile.token.signInLimit === null)).toEqual(new Set([true, false]));
  });

  it('draws random:<seed> deterministically per seed, and different seeds give different profiles', () => {
    expect(resolveProfile('random:42')).toEqual(resolveProfile('random:42'));
    expect(resolveProfile('random:42').name).toBe('random:42');
    expect(differences(resolveProfile('random:1'), resolveProfile('random:2')).length).toBeGreaterThan(0);
    const drawn = Array.from({ length: 60 }, (_unused, seed) => resolveProfile(`random:${seed}`));
    expect(new Set(drawn.map((profile) => JSON.stringify([...choices(profile)]))).size).toBe(drawn.length);
    // Every choice is really drawn: over 60 seeds each option of each choice shows up.
    const seen = (of: (profile: SandboxProfile) => unknown): Set<unknown> => new Set(drawn.map(of));
    expect(seen((profile) => profile.stocks.envelope)).toEqual(new Set(STOCK_ENVELOPES));
    expect(seen((profile) => profile.documents.links)).toEqual(new Set(DOCUMENT_LINK_STYLES));
    expect(seen((profile) => profile.errors)).toEqual(new Set(ERROR_STYLES));
    expect(seen((profile) => profile.idempotency)).toEqual(new Set(IDEMPOTENCY_MODES));
    expect(seen((profile) => profile.orders.envelope)).toEqual(new Set(ORDER_ENVELOPES));
    expect(seen((profile) => profile.token.expiresAt)).toEqual(
      new Set(['none', 'epoch-seconds', 'iso-8601']),
    );
    expect(seen((profile) => profile.stocks.totalHeader)).toEqual(new Set(STOCK_TOTAL_HEADERS));
    expect(seen((profile) => profile.token.userIdClaim?.name ?? null)).toEqual(
      new Set([null, 'user_id', 'uid']),
    );
    for (const profile of drawn) expect(sandboxProfileSchema.safeParse(profile).success).toBe(true);
  });

  it('overrides idempotency under any profile', () => {
    expect(resolveProfile('hal', 'ignored')).toEqual({ ...resolveProfile('hal'), idempotency: 'ignored' });
    expect(resolveProfile('legacy', 'honoured').idempotency).toBe('honoured');
  });

  it('accepts a whole custom profile and validates it', () => {
    const custom: SandboxProfile = { ...resolveProfile('hal'), name: 'custom' };
    expect(resolveProfile(custom)).toEqual(custom);
    const broken = { ...custom, errors: 'xml' } as unknown as SandboxProfile;
    expect(() => resolveProfile(broken)).toThrow(SandboxConfigError);
  });

  it.each(['nope', 'random:', 'random:-1', 'random:x', 'random:99999999999'])('refuses %p', (selection) => {
    expect(() => resolveProfile(selection)).toThrow(/unknown profile/);
  });

  it('refuses an unknown profile at start and an unknown idempotency mode', async () => {
    await expect(startSandbox({ profile: 'nope' })).rejects.toThrow(/unknown profile "nope"/);
    expect(() => resolveProfile('reference', 'sometimes' as 'ignored')).toThrow(/idempotency/);
  });
});

describe('docs/sandbox.md', () => {
  it('lists every named profile with the choices it really makes', () => {
    const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'sandbox.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Profiles'));
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('|'))
      .slice(0, 31)
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim().replace(/[`*]/g, '')),
      );
    const [header, , ...body] = rows;
    expect(header?.slice(1)).toEqual([...SANDBOX_PROFILE_NAMES]);
    const cell: Record<string, (profile: SandboxProfile) => string> = {
      'token token_type': (p) => p.token.tokenType ?? '—',
      'token expires_in': (p) => (p.token.expiresIn ? 'yes' : '—'),
      'token expires_at': (p) => (p.token.expiresAt === 'none' ? '—' : p.token.expiresAt),
      'token refresh_token': (p) => (p.token.refreshToken ? 'yes' : '—'),
      'token sub': (p) => (p.token.userIdClaim === null ? 'user id' : 'UUID'),
      'user id claim': (p) =>
        p.token.userIdClaim === null ? '—' : `${p.token.userIdClaim.name} (${p.token.userIdClaim.type})`,
      'token iat': (p) => (p.token.issuedAt ? 'yes' : '—'),
      'identity clock': (p) =>
        p.token.clockOffsetSeconds === 0 ? 'in step' : `${p.token.clockOffsetSeconds / 60} min`,
      'sign-in limit': (p) =>
        p.token.signInLimit === null
          ? '—'
          : `${p.token.signInLimit.count} / ${p.token.signInLimit.perSeconds} s`,
      'stocks envelope': (p) => p.stocks.envelope,
      'stocks page size': (p) => (p.stocks.pageSize === null ? 'all' : String(p.stocks.pageSize)),
      'stocks Link header': (p) => p.stocks.link,
      'stocks total header': (p) => (p.stocks.totalHeader === 'none' ? '—' : p.stocks.totalHeader),
      stock_id: (p) => p.stocks.stockIdType,
      'order success': (p) => String(p.orders.status),
      'order envelope': (p) => p.orders.envelope,
      'order fields': (p) => p.orders.fields,
      'order id': (p) => p.orders.idType,
      'first order id': (p) => String(p.orders.firstOrderId),
      'upload success': (p) => String(p.documents.status),
      'document links': (p) => p.documents.links,
      'document id': (p) => p.documents.idStyle,
      'file part': (p) => p.documents.filePart,
      document_owner: (p) => (p.documents.ownerChecked ? 'checked' : 'recorded'),
      'error body': (p) => p.errors,
      'order names': (p) =>
        p.requests.orderFields.vehicle === 'vehicle'
          ? '—'
          : `${p.requests.orderFields.vehicle}, ${p.requests.orderFields.badge}`,
      'tenant header': (p) => p.requests.tenantHeader ?? '—',
      'Idempotency-Key': (p) => p.idempotency,
    };
    const documented = body.filter((row) => row[0] !== undefined && row[0] in cell);
    expect(documented.map((row) => row[0])).toEqual(Object.keys(cell));
    for (const [choice, ...values] of documented) {
      const expected = SANDBOX_PROFILE_NAMES.map((name) => cell[choice ?? '']?.(resolveProfile(name)));
      expect({ choice, values }).toEqual({ choice, values: expected });
    }
  });
});

/** Walks every page of the stock list, asserting the declared shape; returns stock ids and the request count. */
async function allStocks(
  sandbox: SandboxFixture,
  profile: SandboxProfile,
  token: string,
): Promise<{ ids: unknown[]; requests: number }> {
  const ids: unknown[] = [];
  let url: string | null = `${sandbox.baseUrl}${PLATFORM_PATHS.stocks}`;
  let requests = 0;
  while (url !== null && requests < 10) {
    const response = await http.get(url, { headers: authHeaders(token) });
    requests++;
    expect(response.status).toBe(200);
    const page = readStockPage(profile, response, sandbox.baseUrl, requests);
    if (profile.stocks.pageSize !== null)
      expect(page.records.length).toBeLessThanOrEqual(profile.stocks.pageSize);
    ids.push(...page.records.map((stock) => stock.stock_id));
    url = page.next;
  }
  return { ids, requests };
}

/**
 * The profiles whose requests are the reference's: the answers' shapes are checked with the reference's requests.
 * A profile that asks for other names has its own test of what it refuses (below); its answers are another's.
 */
const REFERENCE_REQUESTS = resolveProfile('reference').requests;

const PROFILES_UNDER_TEST = [
  ...SANDBOX_PROFILE_NAMES.filter((name) =>
    isDeepStrictEqual(resolveProfile(name).requests, REFERENCE_REQUESTS),
  ),
  'random:42',
  'random:2026',
];

describe.each(PROFILES_UNDER_TEST)('profile %s over HTTP', (selection) => {
  const sandbox = useSandbox({
    profile: selection,
    faults: { retryAfterSeconds: 4 },
    signIn: true,
    resetEach: 'faults-and-state',
  });
  let profile: SandboxProfile;

  beforeAll(async () => {
    profile = await sandbox.control.profile();
  });

  it('reports the resolved profile on the control API', () => {
    expect(profile).toEqual(resolveProfile(selection));
    expect(sandbox.profile).toEqual(profile);
  });

  it('answers the token call with the declared fields', async () => {
    const response = await requestToken(sandbox.baseUrl, { username: 'demo', password: 'demo-password' });
    expect(response.status).toBe(200);
    const body = record(response.data, 'token body');
    const expected = ['access_token'];
    if (profile.token.tokenType !== null) expected.push('token_type');
    if (profile.token.expiresIn) expected.push('expires_in');
    if (profile.token.expiresAt !== 'none') expected.push('expires_at');
    if (profile.token.refreshToken) expected.push('refresh_token');
    expect(Object.keys(body).sort()).toEqual(expected.sort());
    expect(body.access_token).toEqual(expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/));
    if (profile.token.tokenType !== null) expect(body.token_type).toBe(profile.token.tokenType);
    if (profile.token.expiresIn) expect(body.expires_in).toBe(900);
    // The identity API's clock, in which exp and expires_at are written, may run off the real one.
    const inFifteenMinutes = Date.now() / 1000 + profile.token.clockOffsetSeconds + 900;
    const claims = JSON.parse(
      Buffer.from(String(body.access_token).split('.')[1] ?? '', 'base64url').toString(),
    ) as Record<string, unknown>;
    expect(Math.abs((claims.exp as number) - inFifteenMinutes)).toBeLessThan(120);
    expect('iat' in claims).toBe(profile.token.issuedAt);
    if (profile.token.expiresAt === 'epoch-seconds') {
      expect(Number.isInteger(body.expires_at)).toBe(true);
      expect(Math.abs((body.expires_at as number) - inFifteenMinutes)).toBeLessThan(120);
    }
    if (profile.token.expiresAt === 'iso-8601') {
      expect(Math.abs(Date.parse(body.expires_at as string) / 1000 - inFifteenMinutes)).toBeLessThan(120);
    }
    if (profile.token.refreshToken) expect(body.refresh_token).toEqual(expect.any(String));
  });

  it('names the user in sub, or in the declared claim beside a UUID sub', () => {
    const claims = JSON.parse(
      Buffer.from(sandbox.token.split('.')[1] ?? '', 'base64url').toString(),
    ) as Record<string, unknown>;
    const claim = profile.token.userIdClaim;
    if (claim === null) {
      expect(claims.sub).toBe(DEMO_USER.id);
    } else {
      expect(claims.sub).toBe(subjectUuid(DEMO_USER.id));
      expect(claims.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(claims[claim.name]).toBe(claim.type === 'number' ? Number(DEMO_USER.id) : DEMO_USER.id);
    }
  });

  it('refuses an upload for another owner with 422 naming document_owner only when it checks the owner', async () => {
    const orderId = readOrder(
      profile,
      (await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).data,
    ).id;
    const form = uploadForm({
      document_type: 'badge',
      document_type_id: orderId,
      document_owner: subjectUuid(DEMO_USER.id),
      file: smallFile(),
    });
    const response = await rawHttp.post<string>(`${sandbox.baseUrl}${PLATFORM_PATHS.documents}`, form, {
      headers: { ...form.getHeaders(), ...authHeaders(sandbox.token) },
    });
    if (profile.documents.ownerChecked) expectErrorShape(profile, response, 422, 'document_owner');
    else expect(response.status).toBe(profile.documents.status);
  });

  it('lists the stocks in the declared envelope, id type and pages', async () => {
    const first = await http.get(`${sandbox.baseUrl}${PLATFORM_PATHS.stocks}`, {
      headers: authHeaders(sandbox.token),
    });
    const header = (name: string): unknown => first.headers[name] as unknown;
    const total = { 'x-total-count': header('x-total-count'), 'x-total': header('x-total') };
    expect(total).toEqual({
      'x-total-count': profile.stocks.totalHeader === 'x-total-count' ? '3' : undefined,
      'x-total': profile.stocks.totalHeader === 'x-total' ? '3' : undefined,
    });
    const { ids, requests } = await allStocks(sandbox, profile, sandbox.token);
    const expected = DEMO_USER.stocks.map((stock) =>
      profile.stocks.stockIdType === 'string' ? String(stock.stock_id) : stock.stock_id,
    );
    expect(ids).toEqual(expected);
    const { pageSize } = profile.stocks;
    expect(requests).toBe(pageSize === null ? 1 : Math.ceil(expected.length / pageSize));
  });

  it('answers 422 for a malformed page number only when it pages', async () => {
    const response = await rawHttp.get<string>(`${sandbox.baseUrl}${PLATFORM_PATHS.stocks}?page=zero`, {
      headers: authHeaders(sandbox.token),
    });
    if (profile.stocks.pageSize === null) expect(response.status).toBe(200);
    else expectErrorShape(profile, response, 422, 'page');
  });

  it('creates an order with the declared code, envelope and id, and accepts the listed stock id form', async () => {
    const stockId = profile.stocks.stockIdType === 'string' ? '1001' : 1001;
    const response = await createOrder(
      sandbox.baseUrl,
      sandbox.token,
      { ...orderPayload(), stock_id: stockId },
      'k-order',
    );
    expect(response.status).toBe(profile.orders.status);
    const { id, order } = readOrder(profile, response.data);
    expect(id).toBe(profile.orders.firstOrderId);
    if (profile.orders.fields !== 'id-only') expect(order.stock_id).toBe(stockId);
    expect(await sandbox.control.listOrders({ idempotencyKey: 'k-order' })).toEqual([
      expect.objectContaining({ id, stock_id: 1001, idempotency_key: 'k-order', user_id: DEMO_USER.id }),
    ]);
  });

  it('stores an upload and answers with the declared code, id and links', async () => {
    const orderId = readOrder(
      profile,
      (await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).data,
    ).id;
    const file = smallFile(3000);
    const response = await uploadDocument(
      sandbox.baseUrl,
      sandbox.token,
      { document_type: 'badge', document_type_id: orderId, document_owner: DEMO_USER.id, file },
      'k-doc',
    );
    expect(response.status).toBe(profile.documents.status);
    const read = readDocument(profile, response.data);
    const id = documentIdOf(profile, read.wireId);
    const self = `${sandbox.baseUrl}${PLATFORM_PATHS.documents}/${encodeURIComponent(id)}`;
    expect(read.original).toBe(`${self}/original`);
    expect(read.thumbnail).toBe(`${self}/thumbnail`);
    expect(read.download).toMatch(
      new RegExp(
        `^${self.replace(/[.?*+()[\]\\]/g, '\\$&')}/download\\?signature=[0-9a-f]{64}&expires=\\d+$`,
      ),
    );
    expect(await sandbox.control.listDocuments({ idempotencyKey: 'k-doc' })).toEqual([
      expect.objectContaining({
        id,
        order_id: orderId,
        size: 3000,
        file_part: 'file',
        idempotency_key: 'k-doc',
      }),
    ]);
  });

  it('accepts another file part name only when the profile accepts any', async () => {
    const orderId = readOrder(
      profile,
      (await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).data,
    ).id;
    const parts = {
      document_type: 'badge',
      document_type_id: orderId,
      document_owner: DEMO_USER.id,
      file: smallFile(),
      filePartName: 'document',
    };
    const form = uploadForm(parts);
    const response = await rawHttp.post<string>(`${sandbox.baseUrl}${PLATFORM_PATHS.documents}`, form, {
      headers: { ...form.getHeaders(), ...authHeaders(sandbox.token) },
    });
    if (profile.documents.filePart === 'any') {
      expect(response.status).toBe(profile.documents.status);
      expect(await sandbox.control.listDocuments()).toEqual([
        expect.objectContaining({ file_part: 'document' }),
      ]);
    } else {
      // Named by the part it wants.
      expectErrorShape(profile, response, 422, profile.documents.filePart);
      expect(await sandbox.control.listDocuments()).toEqual([]);
    }
  });

  it('answers errors in the declared shape, keeping Retry-After where it belongs', async () => {
    const stocksUrl = `${sandbox.baseUrl}${PLATFORM_PATHS.stocks}`;
    const ordersUrl = `${sandbox.baseUrl}${PLATFORM_PATHS.orders}`;
    const json = { ...authHeaders(sandbox.token), 'content-type': 'application/json' };
    expectErrorShape(profile, await rawHttp.get<string>(stocksUrl), 401);
    expectErrorShape(
      profile,
      await rawHttp.post<string>(ordersUrl, JSON.stringify(orderPayload(9999)), { headers: json }),
      404,
      'stock_id',
    );
    expectErrorShape(
      profile,
      await rawHttp.post<string>(ordersUrl, JSON.stringify({ badge: {} }), { headers: json }),
      422,
      'vehicle',
    );
    expectErrorShape(profile, await rawHttp.get<string>(`${sandbox.baseUrl}/badge/v2/api/v1/nothing`), 404);

    await sandbox.control.setFaults({ retryAfterSeconds: 4, maintenance: true });
    const maintenance = await rawHttp.get<string>(stocksUrl, { headers: authHeaders(sandbox.token) });
    expectErrorShape(profile, maintenance, 503);
    expect(maintenance.headers['retry-after']).toBe('4');

    await sandbox.control.setFaults({
      retryAfterSeconds: 4,
      failNext: { route: 'orders', kind: 'commit-then-503' },
    });
    const committed = await rawHttp.post<string>(ordersUrl, JSON.stringify(orderPayload()), {
      headers: json,
    });
    expectErrorShape(profile, committed, 503);
    expect(committed.headers['retry-after']).toBeUndefined();
    expect(await sandbox.control.listOrders()).toHaveLength(1);

    // The control API keeps its own error shape whatever the profile.
    const control = await http.get(`${sandbox.baseUrl}/_sandbox/state`);
    expect(record(control.data, 'control error').error).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('honours or ignores Idempotency-Key as declared, for orders and documents', async () => {
    const first = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(), 'same-order');
    const second = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(), 'same-order');
    expect([first.status, second.status]).toEqual([profile.orders.status, profile.orders.status]);
    const firstId = readOrder(profile, first.data).id;
    const secondId = readOrder(profile, second.data).id;
    const orders = await sandbox.control.listOrders({ idempotencyKey: 'same-order' });

    const upload = () =>
      uploadDocument(
        sandbox.baseUrl,
        sandbox.token,
        {
          document_type: 'badge',
          document_type_id: firstId,
          document_owner: DEMO_USER.id,
          file: smallFile(),
        },
        'same-doc',
      );
    const firstDocument = readDocument(profile, (await upload()).data);
    const secondDocument = readDocument(profile, (await upload()).data);
    const documents = await sandbox.control.listDocuments({ idempotencyKey: 'same-doc' });

    if (profile.idempotency === 'honoured') {
      expect(secondId).toBe(firstId);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(orders.map((order) => order.id)).toEqual([firstId]);
      expect(secondDocument.wireId).toEqual(firstDocument.wireId);
      expect(documents).toHaveLength(1);
    } else {
      expect(secondId).toBe(String(BigInt(firstId) + 1n));
      expect(second.headers['idempotent-replayed']).toBeUndefined();
      expect(orders.map((order) => order.id)).toEqual([firstId, secondId]);
      expect(secondDocument.wireId).not.toEqual(firstDocument.wireId);
      expect(documents.map((document) => document.id)).toEqual([
        String(firstDocument.wireId),
        String(secondDocument.wireId),
      ]);
      expect(documents.every((document) => document.order_id === firstId)).toBe(true);
    }
  });

  const outcomes: Record<FaultKind, { status: number | 'dropped'; stored: boolean; retryAfter: boolean }> = {
    'error-500': { status: 500, stored: false, retryAfter: false },
    'error-502': { status: 502, stored: false, retryAfter: false },
    'error-503': { status: 503, stored: false, retryAfter: false },
    'rate-limit': { status: 429, stored: false, retryAfter: true },
    drop: { status: 'dropped', stored: false, retryAfter: false },
    unauthorized: { status: 401, stored: false, retryAfter: false },
    'commit-then-500': { status: 500, stored: true, retryAfter: false },
    'commit-then-503': { status: 503, stored: true, retryAfter: false },
    'commit-then-drop': { status: 'dropped', stored: true, retryAfter: false },
  };

  it('applies every fault kind, and a keyed retry after a commit duplicates only when keys are ignored', async () => {
    expect(Object.keys(outcomes).sort()).toEqual([...FAULT_KINDS].sort());
    for (const kind of FAULT_KINDS) {
      const expected = outcomes[kind];
      await sandbox.control.setFaults({ retryAfterSeconds: 4, failNext: { route: 'orders', kind } });
      const key = `fault-${kind}`;
      const attempt = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(), key).then(
        (response) => response,
        (error: unknown) => error,
      );
      if (expected.status === 'dropped') {
        expect(attempt).toBeInstanceOf(Error);
      } else {
        const response = attempt as Awaited<ReturnType<typeof createOrder>>;
        expect({ kind, status: response.status }).toEqual({ kind, status: expected.status });
        expect(response.headers['retry-after'] !== undefined).toBe(expected.retryAfter);
      }
      expect({ kind, stored: (await sandbox.control.listOrders({ idempotencyKey: key })).length }).toEqual({
        kind,
        stored: expected.stored ? 1 : 0,
      });
      const retry = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(), key);
      expect(retry.status).toBe(profile.orders.status);
      const copies = expected.stored && profile.idempotency === 'ignored' ? 2 : 1;
      const stored = await sandbox.control.listOrders({ idempotencyKey: key });
      expect({ kind, copies: stored.length }).toEqual({ kind, copies });
      expect(stored.at(-1)?.id).toBe(readOrder(profile, retry.data).id);
    }
    const stats = await sandbox.control.stats();
    expect(Object.keys(stats.faults).sort()).toEqual([...FAULT_KINDS].sort());
  });

  it('keeps commit-then-fail on uploads: the document is stored before the failure', async () => {
    const orderId = readOrder(
      profile,
      (await createOrder(sandbox.baseUrl, sandbox.token, orderPayload())).data,
    ).id;
    await sandbox.control.setFaults({ failNext: { route: 'documents', kind: 'commit-then-500' } });
    const parts = {
      document_type: 'badge',
      document_type_id: orderId,
      document_owner: DEMO_USER.id,
      file: smallFile(),
    };
    expect((await uploadDocument(sandbox.baseUrl, sandbox.token, parts, 'doc-fault')).status).toBe(500);
    expect((await uploadDocument(sandbox.baseUrl, sandbox.token, parts, 'doc-fault')).status).toBe(
      profile.documents.status,
    );
    const copies = await sandbox.control.listDocuments({ idempotencyKey: 'doc-fault', orderId });
    expect(copies).toHaveLength(profile.idempotency === 'ignored' ? 2 : 1);
  });
});

describe('the idempotency override', () => {
  it('makes any profile ignore keys (and the ignoring platform does not even check the header)', async () => {
    await withSandbox({ profile: 'hal', idempotency: 'ignored' }, async (sandbox, token) => {
      const profile = await sandbox.control.profile();
      expect(profile).toMatchObject({ name: 'hal', idempotency: 'ignored' });
      const longKey = 'k'.repeat(300);
      for (let attempt = 0; attempt < 3; attempt++) {
        expect((await createOrder(sandbox.baseUrl, token, orderPayload(), longKey)).status).toBe(200);
      }
      expect(await sandbox.control.listOrders({ idempotencyKey: longKey })).toHaveLength(3);
    });
  });

  it('makes a key-ignoring profile honour keys', async () => {
    await withSandbox({ profile: 'legacy', idempotency: 'honoured' }, async (sandbox, token) => {
      await createOrder(sandbox.baseUrl, token, orderPayload(), 'once');
      await createOrder(sandbox.baseUrl, token, orderPayload(), 'once');
      expect(await sandbox.control.listOrders({ idempotencyKey: 'once' })).toHaveLength(1);
    });
  });
});

describe('the strict-names profile over HTTP', () => {
  const sandbox = useSandbox({ profile: 'strict-names', resetEach: 'faults-and-state' });
  const tenant = { 'x-tenant-id': SANDBOX_TENANT_ID };

  it('refuses every call without its tenant header with 400 naming the header', async () => {
    const withoutTenant = await requestToken(sandbox.baseUrl, {
      username: 'demo',
      password: 'demo-password',
    });
    expect(withoutTenant.status).toBe(400);
    expect(errorOf(withoutTenant)).toMatchObject({ field: 'X-Tenant-ID' });
    const wrongTenant = await http.post(
      `${sandbox.baseUrl}${PLATFORM_PATHS.token}`,
      { username: 'demo', password: 'demo-password' },
      { headers: { 'x-tenant-id': 'another' } },
    );
    expect(wrongTenant.status).toBe(400);
  });

  it('wants vehicle_data, badge_data and the file part attachment (422 naming each), and takes them', async () => {
    const signIn = await http.post<{ access_token: string }>(
      `${sandbox.baseUrl}${PLATFORM_PATHS.token}`,
      { username: 'demo', password: 'demo-password' },
      { headers: tenant },
    );
    expect(signIn.status).toBe(200);
    const headers = { ...tenant, ...authHeaders(signIn.data.access_token) };
    const post = (body: unknown) =>
      http.post(`${sandbox.baseUrl}${PLATFORM_PATHS.orders}`, body, { headers });
    const refused = await post(orderPayload());
    expect(refused.status).toBe(422);
    expect(errorOf(refused)).toMatchObject({ field: 'vehicle_data' });
    const { vehicle, badge } = orderPayload();
    const created = await post({ vehicle_data: vehicle, badge_data: badge, stock_id: 1001 });
    expect(created.status).toBe(201);
    const orderId = String((created.data as { id: unknown }).id);
    const [order] = await sandbox.control.listOrders();
    expect(order).toMatchObject({ id: orderId, stock_id: 1001 });

    const upload = (filePartName: string) => {
      const form = uploadForm({
        document_type: 'badge',
        document_type_id: orderId,
        document_owner: DEMO_USER.id,
        file: smallFile(),
        filePartName,
      });
      return http.post(`${sandbox.baseUrl}${PLATFORM_PATHS.documents}`, form, {
        headers: { ...form.getHeaders(), ...headers },
      });
    };
    const wrongPart = await upload('file');
    expect(wrongPart.status).toBe(422);
    expect(errorOf(wrongPart)).toMatchObject({ field: 'attachment' });
    expect((await upload('attachment')).status).toBe(201);
    expect(await sandbox.control.listDocuments({ orderId })).toHaveLength(1);
  });
});
