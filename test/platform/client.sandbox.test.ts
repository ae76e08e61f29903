/**
 * The platform client against the sandbox over real HTTP: token sharing and renewal, every error mapping,
 * idempotency, and a 20 MB streamed upload checked against the sandbox's own sha256.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlatformClient } from '../../src/platform';
import { TokenCache } from '../../src/platform/token-cache';
import type { PlatformClient, PlatformClientOptions } from '../../src/platform';
import type { PlatformRequestEvent } from '../../src/platform/types';
import type { PlatformError } from '../../src/platform/errors';
import { BADGE_ONLY_USER, DEMO_USER, DOCUMENT_ONLY_USER, startSandbox } from '../../src/sandbox';
import type { RunningSandbox, SandboxUser } from '../../src/sandbox';

/** A clock shared by the sandbox (token issue and expiry) and, when a test wants, the client's token cache. */
const clock = { offsetMs: 0, now: (): number => Date.now() + clock.offsetMs };

let sandbox: RunningSandbox;
let dir: string;
let photo: string;

const VEHICLE = { licence_plate: 'B-SB 4711', vin: 'WVWZZZ1JZXW000001' };
const BADGE = { colour: 'green', emission_class: 4 };

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, now: clock.now });
  dir = await mkdtemp(join(tmpdir(), 'platform-sandbox-'));
  photo = join(dir, 'vehicle.png');
  await writeFile(photo, Buffer.from('\x89PNG\r\n\x1a\n a small fake image', 'latin1'));
});

afterAll(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  clock.offsetMs = 0;
  await sandbox.control.setFaults({});
  await sandbox.control.setRules({
    acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf'],
    maxUploadBytes: 20 * 1024 * 1024,
  });
  await sandbox.control.reset();
});

function clientFor(
  user: Pick<SandboxUser, 'username' | 'password'> = DEMO_USER,
  options: Partial<PlatformClientOptions> = {},
): PlatformClient {
  return createPlatformClient({
    baseUrl: sandbox.baseUrl,
    credentials: { username: user.username, password: user.password },
    // Every test gets its own cache, so tokens from earlier tests do not count.
    tokenCache: new TokenCache(),
    ...options,
  });
}

let keys = 0;
function key(name: string): string {
  keys += 1;
  return `${name}-${keys}`;
}

async function newOrderId(client: PlatformClient): Promise<string> {
  return (await client.createOrder({ payload: { vehicle: VEHICLE, badge: BADGE }, idempotencyKey: key('o') }))
    .orderId;
}

describe('tokens', () => {
  it('shares one authentication across many concurrent calls', async () => {
    const client = clientFor();
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => client.listStocks()),
      ...Array.from({ length: 5 }, (_, i) =>
        client.createOrder({ payload: { vehicle: VEHICLE, badge: BADGE }, idempotencyKey: key(`c${i}`) }),
      ),
      client.authenticate(),
    ]);
    expect(results).toHaveLength(16);
    const stats = await sandbox.control.stats();
    expect(stats.authCalls).toEqual({ issued: 1, rejected: 0 });
    expect(stats.requests.stocks).toEqual({ '200': 10 });
    expect(stats.requests.orders).toEqual({ '201': 5 });
    expect(await client.authenticate()).toMatchObject({ userId: '4711', fromCache: true });
  });

  it('lists the user’s stocks with string ids', async () => {
    const list = await clientFor().listStocks();
    expect(list.stocks.map((stock) => stock.stockId)).toEqual(expect.arrayContaining(['1001', '1002']));
    expect(list.stocks.map((stock) => stock.stockId)).not.toContain('1101');
  });

  it('renews a token shortly before it expires, without a 401', async () => {
    const client = clientFor(DEMO_USER, { tokenCache: new TokenCache({ now: clock.now }) });
    const first = await client.authenticate();
    expect(first.expiresAt?.getTime()).toBeGreaterThan(clock.now() + 890_000);
    await client.listStocks();
    clock.offsetMs += 850_000; // within the default one-minute margin of the 900 s lifetime
    await client.listStocks();
    const stats = await sandbox.control.stats();
    expect(stats.authCalls.issued).toBe(2);
    expect(stats.requests.stocks).toEqual({ '200': 2 });
  });

  it('re-authenticates once when the platform says the token expired, and repeats the call', async () => {
    const client = clientFor(); // its cache runs on the real clock: it cannot know the sandbox moved on
    await client.listStocks();
    clock.offsetMs += 901_000;
    const list = await client.listStocks();
    expect(list.stocks.length).toBeGreaterThan(0);
    const stats = await sandbox.control.stats();
    expect(stats.authCalls.issued).toBe(2);
    expect(stats.requests.stocks).toEqual({ '200': 2, '401': 1 });
  });

  it('re-authenticates after an injected 401 and succeeds; a second 401 is UNAUTHORIZED', async () => {
    const events: PlatformRequestEvent[] = [];
    const client = clientFor(DEMO_USER, { onRequest: (event) => events.push(event) });
    await sandbox.control.setFaults({ failNext: { route: 'orders', kind: 'unauthorized' } });
    const order = await client.createOrder({
      payload: { vehicle: VEHICLE, badge: BADGE },
      idempotencyKey: key('401'),
    });
    expect(order.orderId).toMatch(/^[1-9]\d*$/);
    expect(events.map((event) => `${event.route}:${String(event.status)}`)).toEqual([
      'auth:200',
      'orders:401',
      'auth:200',
      'orders:201',
    ]);

    await sandbox.control.setFaults({ failNext: { route: 'stocks', kind: 'unauthorized', count: 2 } });
    const error = await client.listStocks().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((error as PlatformError).retryable).toBe(true);
    expect((await sandbox.control.stats()).authCalls.issued).toBe(3);
  });

  it('says an order was not sent when the token call before it failed, first or after a 401', async () => {
    const orders = async (): Promise<number> => (await sandbox.control.stats()).requests.orders?.['201'] ?? 0;
    const create = (name: string): Promise<unknown> =>
      clientFor()
        .createOrder({ payload: { vehicle: VEHICLE, badge: BADGE }, idempotencyKey: key(name) })
        .catch((caught: unknown) => caught);

    await sandbox.control.setFaults({ failNext: { route: 'auth', kind: 'error-500' } });
    expect(await create('token-500')).toMatchObject({
      code: 'SERVER_ERROR',
      path: '/iam/api/v1/auth/jwt',
      outcome: 'not-sent',
      retryable: true,
    });

    await sandbox.control.setFaults({ failNext: { route: 'auth', kind: 'drop' } });
    expect(await create('token-dropped')).toMatchObject({ code: 'NETWORK', outcome: 'not-sent' });

    // A token first; then the order is answered 401, and the token call after it fails.
    const client = clientFor();
    await client.authenticate();
    await sandbox.control.setFaults({
      failNext: [
        { route: 'orders', kind: 'unauthorized' },
        { route: 'auth', kind: 'error-503' },
      ],
    });
    const afterRenewal = await client
      .createOrder({ payload: { vehicle: VEHICLE, badge: BADGE }, idempotencyKey: key('token-renewal-503') })
      .catch((caught: unknown) => caught);
    expect(afterRenewal).toMatchObject({ code: 'SERVER_ERROR', status: 503, outcome: 'not-sent' });
    expect((await sandbox.control.stats()).requests.orders).toEqual({ '401': 1 });
    expect(await orders()).toBe(0);
  });

  it('maps wrong credentials to BAD_CREDENTIALS', async () => {
    const error = await clientFor({ username: 'demo', password: 'wrong-password' })
      .listStocks()
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'BAD_CREDENTIALS' });
    expect((error as PlatformError).retryable).toBe(false);
    expect((error as Error).message).not.toContain('wrong-password');
    expect((await sandbox.control.stats()).authCalls).toEqual({ issued: 0, rejected: 1 });
  });
});

describe('errors', () => {
  it('maps 403 for a user without the document scope, naming the scope', async () => {
    const client = clientFor(BADGE_ONLY_USER);
    const orderId = await newOrderId(client);
    const error = await client
      .uploadDocument({ filePath: photo, orderId, documentOwner: '4712', idempotencyKey: key('403') })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'FORBIDDEN' });
    expect(error).toMatchObject({ status: 403, scope: 'document', path: '/document/api/v1/documents' });

    const noBadge = await clientFor(DOCUMENT_ONLY_USER)
      .listStocks()
      .catch((caught: unknown) => caught);
    expect(noBadge).toMatchObject({ code: 'FORBIDDEN' });
    expect(noBadge).toMatchObject({ scope: 'badge' });
  });

  it('maps 404 for an unknown stock to STOCK_NOT_FOUND', async () => {
    const error = await clientFor()
      .createOrder({
        payload: { vehicle: VEHICLE, badge: BADGE, stock_id: '9999' },
        idempotencyKey: key('404'),
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STOCK_NOT_FOUND' });
    expect(error).toMatchObject({ status: 404, stockId: '9999', platformCode: 'stock_not_found' });
    expect((error as Error).message).toBe(
      'POST /badge/v2/api/v1/orders failed with 404 (Not Found): stock 9999 not found for this user',
    );
    expect((await sandbox.control.state()).orders).toHaveLength(0);
  });

  it('maps 422 for a bad payload and for a rejected file', async () => {
    const client = clientFor();
    const payloadError = await client
      .createOrder({
        payload: { vehicle: VEHICLE, badge: BADGE, stock_id: 'abc' },
        idempotencyKey: key('422'),
      })
      .catch((caught: unknown) => caught);
    expect(payloadError).toMatchObject({ code: 'VALIDATION' });
    expect(payloadError).toMatchObject({ status: 422, field: 'stock_id', platformCode: 'validation_failed' });

    const orderId = await newOrderId(client);
    const text = join(dir, 'notes.txt');
    await writeFile(text, 'not an image');
    const fileError = await client
      .uploadDocument({ filePath: text, orderId, documentOwner: '4711', idempotencyKey: key('422f') })
      .catch((caught: unknown) => caught);
    expect(fileError).toMatchObject({ code: 'VALIDATION' });
    expect(fileError).toMatchObject({ status: 422, field: 'file' });

    await sandbox.control.setRules({ maxUploadBytes: 10 });
    const tooLarge = await client
      .uploadDocument({ filePath: photo, orderId, documentOwner: '4711', idempotencyKey: key('422s') })
      .catch((caught: unknown) => caught);
    expect(tooLarge).toMatchObject({ code: 'VALIDATION' });
    expect((tooLarge as Error).message).toContain('exceeds the limit of 10 bytes');
    expect((tooLarge as PlatformError).retryable).toBe(false);
    expect((await sandbox.control.state()).documents).toHaveLength(0);
  });

  it('maps 429 with Retry-After, 5xx and dropped connections to retryable errors', async () => {
    const client = clientFor();
    await client.authenticate();
    await sandbox.control.setFaults({
      retryAfterSeconds: 3,
      failNext: [
        { route: 'stocks', kind: 'rate-limit' },
        { route: 'stocks', kind: 'error-503' },
        { route: 'stocks', kind: 'drop' },
      ],
    });
    const rateLimited = await client.listStocks().catch((caught: unknown) => caught);
    expect(rateLimited).toMatchObject({ code: 'RATE_LIMITED' });
    expect(rateLimited).toMatchObject({ status: 429, retryAfterMs: 3000 });
    const unavailable = await client.listStocks().catch((caught: unknown) => caught);
    expect(unavailable).toMatchObject({ code: 'SERVER_ERROR' });
    expect(unavailable).toMatchObject({ status: 503 });
    const dropped = await client.listStocks().catch((caught: unknown) => caught);
    expect(dropped).toMatchObject({ code: 'NETWORK' });
    for (const error of [rateLimited, unavailable, dropped])
      expect((error as PlatformError).retryable).toBe(true);
    await expect(client.listStocks()).resolves.toMatchObject({ stocks: expect.any(Array) as unknown });
  });
});

describe('idempotency', () => {
  it('creates one order however often the same key is sent', async () => {
    const client = clientFor();
    const input = {
      payload: { vehicle: VEHICLE, badge: BADGE, stock_id: '1001' },
      idempotencyKey: key('same'),
    };
    const first = await client.createOrder(input);
    const second = await client.createOrder(input);
    expect(second.orderId).toBe(first.orderId);
    const state = await sandbox.control.state();
    expect(state.orders).toHaveLength(1);
    expect(state.idempotencyKeys).toEqual([
      expect.objectContaining({ key: input.idempotencyKey, route: 'orders', state: 'completed' }),
    ]);
    expect((await sandbox.control.stats()).idempotentReplays).toBe(1);
  });

  it('stores the order once when the answer is lost, and the repeat gets the same order', async () => {
    const client = clientFor();
    await client.authenticate();
    await sandbox.control.setFaults({ failNext: { route: 'orders', kind: 'commit-then-drop' } });
    const input = { payload: { vehicle: VEHICLE, badge: BADGE }, idempotencyKey: key('lost') };
    const lost = await client.createOrder(input).catch((caught: unknown) => caught);
    expect(lost).toMatchObject({ code: 'NETWORK' });
    const repeated = await client.createOrder(input);
    const state = await sandbox.control.state();
    expect(state.orders).toHaveLength(1);
    expect(state.orders[0]?.id).toBe(repeated.orderId);
  });
});

describe('uploads', () => {
  it('streams a 20 MB file; the sandbox’s sha256 matches; a 409 while in flight, then a replay', async () => {
    const size = 20 * 1000 * 1000;
    const filePath = join(dir, 'large-scan.png');
    const hash = createHash('sha256');
    const out = createWriteStream(filePath);
    for (let written = 0; written < size; written += 1 << 20) {
      const chunk = randomBytes(Math.min(1 << 20, size - written));
      hash.update(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const sha256 = hash.digest('hex');

    const client = clientFor();
    const orderId = await newOrderId(client);
    const idempotencyKey = key('large');
    let progressed = 0;
    let startedSecond: () => void = () => undefined;
    const secondMayStart = new Promise<void>((resolve) => {
      startedSecond = resolve;
    });
    const first = client.uploadDocument({
      filePath,
      orderId,
      documentOwner: '4711',
      idempotencyKey,
      onProgress: (bytes) => {
        progressed = bytes;
        if (bytes > 4 * 1000 * 1000) startedSecond();
      },
    });
    await secondMayStart;
    // The same key while the first upload is still streaming: the platform says 409.
    const conflict = await client
      .uploadDocument({ filePath: photo, orderId, documentOwner: '4711', idempotencyKey })
      .catch((caught: unknown) => caught);
    expect(conflict).toMatchObject({ code: 'CONFLICT' });
    expect((conflict as PlatformError).retryable).toBe(true);

    const uploaded = await first;
    expect(progressed).toBe(size);
    expect(uploaded.documentId).toBe('doc-1');
    expect(uploaded.links.original).toMatch(/\/documents\/doc-1\/original$/);
    expect(uploaded.links.thumbnail).toMatch(/\/documents\/doc-1\/thumbnail$/);
    expect(uploaded.links.download).toMatch(/\/documents\/doc-1\/download\?signature=[0-9a-f]+/);

    const [stored] = (await sandbox.control.state()).documents;
    expect(stored).toMatchObject({
      sha256,
      size,
      document_type: 'badge',
      document_type_id: orderId,
      document_owner: '4711',
      filename: 'large-scan.png',
      content_type: 'image/png',
    });

    // The same key once the first upload is done: the first document, not a second one.
    const replay = await client.uploadDocument({ filePath, orderId, documentOwner: '4711', idempotencyKey });
    expect(replay.documentId).toBe('doc-1');
    expect((await sandbox.control.state()).documents).toHaveLength(1);
  }, 120_000);

  it('re-sends the whole file after a 401', async () => {
    const client = clientFor();
    const orderId = await newOrderId(client);
    await sandbox.control.setFaults({ failNext: { route: 'documents', kind: 'unauthorized' } });
    const uploaded = await client.uploadDocument({
      filePath: photo,
      orderId,
      documentOwner: '4711',
      idempotencyKey: key('doc401'),
    });
    expect(uploaded.documentId).not.toBeNull();
    const stats = await sandbox.control.stats();
    expect(stats.requests.documents).toEqual({ '201': 1, '401': 1 });
    expect((await sandbox.control.state()).documents[0]?.size).toBeGreaterThan(0);
  });
});
