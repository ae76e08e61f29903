/**
 * Client credentials (issue 57; spec: "either a client id and secret or user credentials", "the request for client
 * id and secret credentials: not shown"): the real client, configured only through the documented settings,
 * against the `strict-client` sandbox over HTTP, which takes nothing but the OAuth 2.0 client credentials grant and
 * issues tokens that name the client and no user. The sandbox says how the client authenticated; orders are
 * placed and documents stored with BADGE_DOCUMENT_OWNER as their owner; without it no owner is guessed from the
 * client's token, and what the order is told names BADGE_DOCUMENT_OWNER. No secret reaches a log or an error.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signIn } from '../../src/activities/authenticate';
import type { ActivityDependencies } from '../../src/activities/dependencies';
import { loadPlatformConfig } from '../../src/config';
import { createPlatformClient } from '../../src/platform';
import type { PlatformLogger } from '../../src/platform/types';
import type { PlatformError } from '../../src/platform/errors';
import { DEMO_CLIENT, DEMO_USER, startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { platformClientFromConfig } from '../../src/worker/platform-client';

/** A client whose id and secret need form-encoding in HTTP Basic (RFC 6749 §2.3.1): `:` `+` `/` and a space. */
const PARTNER = { clientId: 'partner app', clientSecret: 'p+ss:w/rd é-secret', userId: DEMO_USER.id };

const VEHICLE = { licence_plate: 'B-CC 57', vin: 'WVWZZZ1JZXW000057' };
const BADGE = { colour: 'green' };

let sandbox: RunningSandbox;
let dir: string;
let photo: string;
/** What the client logged, as text. */
let logged: string[];

const logger: PlatformLogger = {
  debug: (fields, message) => logged.push(JSON.stringify({ fields, message })),
  info: (fields, message) => logged.push(JSON.stringify({ fields, message })),
  warn: (fields, message) => logged.push(JSON.stringify({ fields, message })),
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'client-credentials-'));
  photo = join(dir, 'vehicle.png');
  await writeFile(photo, Buffer.from('\x89PNG\r\n\x1a\n a small fake image', 'latin1'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  logged = [];
  // A sandbox of its own per test: a new base URL, so the process-wide token cache holds nothing for it.
  sandbox = await startSandbox({ port: 0, profile: 'strict-client', clients: [DEMO_CLIENT, PARTNER] });
});

afterEach(async () => {
  await sandbox.close();
});

/** The worker's client from the documented variables (BADGE_PASSWORD and the rest never set). */
function clientFrom(env: Record<string, string>): ReturnType<typeof platformClientFromConfig> {
  return platformClientFromConfig(loadPlatformConfig({ BADGE_BASE_URL: sandbox.baseUrl, ...env }), {
    logger,
  });
}

/** Places an order and uploads one document with the session's owner; returns the order id. */
async function orderWithDocument(client: ReturnType<typeof clientFrom>, key: string): Promise<string> {
  const session = await client.authenticate();
  const { orderId } = await client.createOrder({
    payload: { vehicle: VEHICLE, badge: BADGE, stock_id: '1001' },
    idempotencyKey: `${key}:create`,
  });
  await client.uploadDocument({
    orderId,
    documentOwner: session.documentOwner?.id ?? '',
    idempotencyKey: `${key}:upload`,
    filePath: photo,
  });
  return orderId;
}

/** Every secret of the test's clients: none may appear in a log line or an error. */
function expectNoSecretIn(text: string): void {
  for (const secret of [DEMO_CLIENT.clientSecret, PARTNER.clientSecret, 'p%2Bss%3Aw%2Frd', 'Basic ']) {
    expect(text).not.toContain(secret);
  }
}

describe('the client credentials grant against a platform that takes nothing else', () => {
  it('authenticates the client with HTTP Basic by default, form-encoded first, and places orders with BADGE_DOCUMENT_OWNER', async () => {
    const client = clientFrom({
      BADGE_CLIENT_ID: PARTNER.clientId,
      BADGE_CLIENT_SECRET: PARTNER.clientSecret,
      BADGE_DOCUMENT_OWNER: DEMO_USER.id,
    });
    const session = await client.authenticate();
    expect(session).toMatchObject({
      credentials: 'client',
      documentOwner: { id: DEMO_USER.id, source: 'BADGE_DOCUMENT_OWNER' },
    });
    const orderId = await orderWithDocument(client, 'basic');

    const stats = await sandbox.control.stats();
    expect(stats.clientAuth).toEqual({ basic: 1 });
    expect(stats.authCalls).toEqual({ issued: 1, rejected: 0 });
    // The platform holds the order under the user the client acts for, and the document, whose owner it checks
    // against that user (ownerChecked): the owner sent was BADGE_DOCUMENT_OWNER.
    expect(sandbox.profile.documents.ownerChecked).toBe(true);
    const orders = await sandbox.control.listOrders();
    expect(orders.map((order) => [order.id, order.user_id, order.stock_id])).toEqual([
      [orderId, DEMO_USER.id, 1001],
    ]);
    const documents = await sandbox.control.listDocuments({ orderId });
    expect(documents.map((document) => [document.order_id, document.user_id])).toEqual([
      [orderId, DEMO_USER.id],
    ]);
    expectNoSecretIn(logged.join('\n'));
  });

  it('sends client_id and client_secret in the form with BADGE_CLIENT_AUTH=body', async () => {
    const client = clientFrom({
      BADGE_CLIENT_ID: DEMO_CLIENT.clientId,
      BADGE_CLIENT_SECRET: DEMO_CLIENT.clientSecret,
      BADGE_CLIENT_AUTH: 'body',
      BADGE_DOCUMENT_OWNER: DEMO_USER.id,
    });
    const orderId = await orderWithDocument(client, 'body');
    expect((await sandbox.control.stats()).clientAuth).toEqual({ body: 1 });
    expect(
      (await sandbox.control.listDocuments({ orderId })).map((document) => [
        document.order_id,
        document.user_id,
      ]),
    ).toEqual([[orderId, DEMO_USER.id]]);
  });

  it('takes no owner from a client’s token: without BADGE_DOCUMENT_OWNER the order is told to set it', async () => {
    const client = clientFrom({
      BADGE_CLIENT_ID: DEMO_CLIENT.clientId,
      BADGE_CLIENT_SECRET: DEMO_CLIENT.clientSecret,
    });
    const session = await client.authenticate();
    // The token's `sub` is the client id (RFC 9068 §2.2), which the default chain would have taken.
    expect(session).toMatchObject({
      credentials: 'client',
      userId: DEMO_CLIENT.clientId,
      documentOwner: null,
    });
    const told = await signIn({ platform: client } as ActivityDependencies, new AbortController().signal);
    expect(told.documentOwner).toBeNull();
    expect(told.documentOwnerSource).toMatch(/BADGE_DOCUMENT_OWNER/);
  });

  it('is refused with a wrong secret (BAD_CREDENTIALS), the secret in no error or log', async () => {
    const client = clientFrom({
      BADGE_CLIENT_ID: PARTNER.clientId,
      BADGE_CLIENT_SECRET: 'not-the-p+ss:w/rd é-secret',
    });
    const error = (await client.authenticate().catch((caught: unknown) => caught)) as PlatformError;
    expect(error).toMatchObject({ code: 'BAD_CREDENTIALS', status: 401 });
    expectNoSecretIn(`${error.message} ${JSON.stringify(error)} ${String(error.stack)} ${logged.join('\n')}`);
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain('not-the-');
    expect((await sandbox.control.stats()).authCalls).toEqual({ issued: 0, rejected: 1 });
  });

  it('refuses user credentials: the platform takes only the client credentials grant', async () => {
    const client = createPlatformClient({
      baseUrl: sandbox.baseUrl,
      credentials: { username: DEMO_USER.username, password: DEMO_USER.password },
    });
    await expect(client.authenticate()).rejects.toMatchObject({ code: 'VALIDATION', status: 400 });
    expect((await sandbox.control.stats()).clientAuth).toBeUndefined();
  });
});
