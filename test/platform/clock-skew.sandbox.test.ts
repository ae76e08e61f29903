/**
 * Tokens of a platform whose clock runs behind ours, over real HTTP: the same twelve orders (stock lookup,
 * creation, upload) through the real client against the `reference` sandbox and against `strict-clock` (its
 * clock ten minutes behind, JWTs with `exp` but neither `iat` nor `expires_in`, sign-ins rate-limited) need the
 * same number of sign-ins, and no call fails. Read at face value, every `strict-clock` token is past its `exp`
 * on arrival.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlatformClient } from '../../src/platform';
import { TokenCache } from '../../src/platform/token-cache';
import { DEMO_USER, startSandbox } from '../../src/sandbox';
import type { SandboxProfileName } from '../../src/sandbox';

const ORDERS = 12;
/** Keycloak's default access token lifespan: shorter than the skew, so each `exp` looks past on arrival. */
const TOKEN_TTL_SECONDS = 300;
/** Time between two orders on the clock the sandbox and the client share: tokens expire during the run. */
const ORDER_INTERVAL_MS = 60_000;

let dir: string;
let photo: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clock-skew-'));
  photo = join(dir, 'vehicle.png');
  await writeFile(photo, Buffer.from('\x89PNG\r\n\x1a\n a small fake image', 'latin1'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the platform saw of {@link ORDERS} orders placed a minute apart, and how many calls failed. */
async function placeOrders(profile: SandboxProfileName): Promise<Record<string, number>> {
  const clock = { nowMs: Date.now() };
  const now = (): number => clock.nowMs;
  const sandbox = await startSandbox({ profile, now, tokenTtlSeconds: TOKEN_TTL_SECONDS });
  try {
    const client = createPlatformClient({
      baseUrl: sandbox.baseUrl,
      credentials: { username: DEMO_USER.username, password: DEMO_USER.password },
      tokenCache: new TokenCache({ now }),
    });
    let failedCalls = 0;
    for (let order = 0; order < ORDERS; order += 1) {
      try {
        await client.listStocks();
        const { orderId } = await client.createOrder({
          payload: { vehicle: { licence_plate: `B-SK ${order}` }, badge: { colour: 'green' } },
          idempotencyKey: `skew-${order}`,
        });
        await client.uploadDocument({
          filePath: photo,
          orderId,
          documentOwner: DEMO_USER.id,
          idempotencyKey: `skew-${order}-photo`,
        });
      } catch {
        failedCalls += 1;
      }
      clock.nowMs += ORDER_INTERVAL_MS;
    }
    const stats = await sandbox.control.stats();
    return {
      signIns: stats.authCalls.issued,
      refusedSignIns: stats.requests.auth?.['429'] ?? 0,
      failedCalls,
      orders: (await sandbox.control.listOrders()).length,
      documents: (await sandbox.control.listDocuments()).length,
    };
  } finally {
    await sandbox.close();
  }
}

it('signs in as often against a platform ten minutes behind, with exp but no iat, as against one in step', async () => {
  const inStep = await placeOrders('reference');
  const behind = await placeOrders('strict-clock');
  // Five-minute tokens over twelve minutes: renewed before expiry where the lifetime is known, after the
  // platform's 401 where it is not; either way a few sign-ins, not one per call.
  expect(inStep).toEqual({
    signIns: 3,
    refusedSignIns: 0,
    failedCalls: 0,
    orders: ORDERS,
    documents: ORDERS,
  });
  expect(behind).toEqual(inStep);
});
