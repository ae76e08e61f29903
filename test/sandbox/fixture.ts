/**
 * The sandbox of a test file or `describe` block: `useSandbox()` registers hooks that start it, sign the demo
 * user in when asked, reset it before each test when asked, and always close it. `withSandbox()` does the same
 * for one sandbox inside a test.
 */
import { DEMO_USER, startSandbox } from '../../src/sandbox';
import type { RunningSandbox, StartSandboxOptions } from '../../src/sandbox';
import { tokenFor } from './helpers';

/** The started sandbox, readable in tests and in hooks registered after `useSandbox()`; the hooks close it. */
export interface SandboxFixture extends Readonly<Omit<RunningSandbox, 'close'>> {
  /** The demo user's access token, issued once after the start (`signIn: true`). */
  readonly token: string;
}

interface UseSandboxOptions extends Readonly<StartSandboxOptions> {
  /** Sign the demo user in once after the start, for `token`. */
  readonly signIn?: boolean;
  /**
   * Before each test: `'state'` resets orders, documents, keys and counters; `'faults-and-state'` first puts the
   * start faults (`faults`, else none) back in force.
   */
  readonly resetEach?: 'state' | 'faults-and-state';
}

/** Registers the hooks (`beforeAll`, `afterAll`, `beforeEach` with `resetEach`) and returns the fixture. */
export function useSandbox(options: UseSandboxOptions = {}): SandboxFixture {
  const { signIn = false, resetEach, ...start } = options;
  let running: RunningSandbox | undefined;
  let token: string | undefined;
  const started = (): RunningSandbox => {
    if (running === undefined) throw new Error('the sandbox starts in beforeAll');
    return running;
  };

  beforeAll(async () => {
    running = await startSandbox(start);
    if (signIn) token = await tokenFor(running.baseUrl, DEMO_USER);
  });
  afterAll(async () => {
    await running?.close();
  });
  if (resetEach !== undefined) {
    beforeEach(async () => {
      if (resetEach === 'faults-and-state') await started().control.setFaults(start.faults ?? {});
      await started().control.reset();
    });
  }

  return {
    get baseUrl() {
      return started().baseUrl;
    },
    get controlToken() {
      return started().controlToken;
    },
    get control() {
      return started().control;
    },
    get profile() {
      return started().profile;
    },
    get token() {
      if (token === undefined) throw new Error('the token is issued in beforeAll with signIn: true');
      return token;
    },
  };
}

/** Starts a sandbox, signs the demo user in, runs `work` with both and always closes the sandbox. */
export async function withSandbox<T>(
  options: Readonly<StartSandboxOptions>,
  work: (sandbox: RunningSandbox, token: string) => Promise<T>,
): Promise<T> {
  const sandbox = await startSandbox(options);
  try {
    return await work(sandbox, await tokenFor(sandbox.baseUrl, DEMO_USER));
  } finally {
    await sandbox.close();
  }
}
