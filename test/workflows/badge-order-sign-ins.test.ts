/**
 * Sign-ins against each strict platform (other names and a tenant header, a clock ten minutes behind with
 * rate-limited sign-ins, client credentials only, routes only with a trailing slash): a new worker process,
 * configured only as docs/platform-client.md says for the platform, places the same orders (a stock on the
 * second page, two slowly stored documents each, one after the other; the orders all at once) each once, and
 * signs in exactly as often as against `reference`: once, its token used for the whole run. Each platform is a
 * sandbox of its own, counted from its start, and each worker process starts with no token, so the counts
 * depend on nothing run before. Real dev server, real sandboxes over HTTP, real worker processes.
 */
import type { SandboxStats, StartSandboxOptions } from '../../src/sandbox';
import { startSandbox } from '../../src/sandbox';
import { documentedPlatformSettings } from '../helpers/documented-settings';
import { useTestStack } from '../helpers/stack';

const ORDERS = 4;
/**
 * Keycloak's default access token lifespan: far longer than the run, and shorter than strict-clock's skew, so
 * each of its tokens is past its `exp` on arrival by our clock.
 */
const TOKEN_TTL_SECONDS = 300;
/**
 * How long each platform takes to store an upload: with one upload at a time, each order's second one is sent
 * seconds after the sign-in, past the client's pacing of sign-ins (2 s), so a token that looks expired is not
 * reused then only by chance.
 */
const UPLOAD_LATENCY_MS = 2_500;
/** What `reference` counts: one token, used for the whole run. */
const ONE_SIGN_IN = { issued: 1, rejected: 0 };

/** The strict platforms of the profile matrix (badge-order-profiles.test.ts). */
const STRICT_PLATFORMS: readonly (readonly [string, StartSandboxOptions])[] = [
  ['strict-names', { profile: 'strict-names' }],
  ['strict-clock', { profile: 'strict-clock' }],
  ['strict-client', { profile: 'strict-client' }],
  ['strict-slash', { profile: 'reference', strictSlash: true }],
];

describe('sign-ins against the strict platforms', () => {
  const stack = useTestStack();

  /** The token calls `platform` counted while a new worker process placed {@link ORDERS} orders on it. */
  async function signInsOf(name: string, platform: StartSandboxOptions): Promise<SandboxStats['authCalls']> {
    const sandbox = await startSandbox({
      ...platform,
      port: 0,
      tokenTtlSeconds: TOKEN_TTL_SECONDS,
      faults: { latencyMs: UPLOAD_LATENCY_MS, routes: ['documents'] },
    });
    try {
      const worker = stack.startWorkerProcess({
        ...documentedPlatformSettings(name),
        BADGE_BASE_URL: sandbox.baseUrl,
      });
      try {
        const results = await Promise.all(
          Array.from({ length: ORDERS }, async (_, index) => {
            const orderRef = `${name}-sign-ins-${index}`;
            const documents = ['photo.jpg', 'form.pdf'].map((file) => ({
              path: stack.writeDocument(`${orderRef}/${file}`, `content of ${orderRef}/${file}`),
            }));
            const started = await stack.orders.startOrder({
              orderRef,
              vehicle: { licensePlate: 'S-IN 57', fuel: 'electric' },
              badge: { type: 'green' },
              stockId: 1002,
              documents,
              options: { maxParallelUploads: 1 },
            });
            return started.handle.result();
          }),
        );
        // Every order completed, each placed once with both its documents.
        const state = await sandbox.control.state();
        expect(state.orders.map((order) => order.id).sort()).toEqual(
          results.map((result) => result.orderId).sort(),
        );
        expect(state.documents).toHaveLength(2 * ORDERS);
        return (await sandbox.control.stats()).authCalls;
      } finally {
        await worker.stop();
      }
    } finally {
      await sandbox.close();
    }
  }

  let referenceRun: Promise<SandboxStats['authCalls']> | undefined;
  /** `reference`'s count, measured once, by whichever test needs it first. */
  const referenceSignIns = (): Promise<SandboxStats['authCalls']> =>
    (referenceRun ??= signInsOf('reference', { profile: 'reference' }));

  it('a worker process signs in once for all the orders against reference', async () => {
    expect(await referenceSignIns()).toEqual(ONE_SIGN_IN);
  });

  it.each(STRICT_PLATFORMS)(
    'a worker process configured as documented signs in against %s as often as against reference',
    async (name, platform) => {
      const reference = await referenceSignIns();
      expect(await signInsOf(name, platform)).toEqual(reference);
      // Two platforms alike in a fault (a token never reused) would agree too: reference's count is one.
      expect(reference).toEqual(ONE_SIGN_IN);
    },
  );
});
