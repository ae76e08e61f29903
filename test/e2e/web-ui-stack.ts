/**
 * The service with the dev server's Web UI for browser tests: the test stack (dev server, sandbox, workers)
 * with a Web UI whose codec endpoint is a codec server holding the stack's payload keys — as `npm run demo`
 * runs it, including the codec server's no-credentials loopback mode (the dev UI sends none).
 */
import { startCodecServer, type RunningCodecServer } from '../../src/codec/codec-server';
import { findFreePort } from '../../tools/dev/dev-server';
import { startTestStack, type TestStack, type TestStackOptions } from '../helpers/stack';

/** A test stack with a Web UI that decodes payloads through {@link WebUiStack.codec}. */
export interface WebUiStack {
  readonly stack: TestStack;
  readonly codec: RunningCodecServer;
  /** Web UI base URL, e.g. `http://127.0.0.1:41234`. */
  readonly uiUrl: string;
  /** Stops the codec server and the stack. */
  teardown(): Promise<void>;
}

/** Starts the stack with a Web UI on a free port and its codec server. */
export async function startWebUiStack(options: Omit<TestStackOptions, 'temporal'> = {}): Promise<WebUiStack> {
  // The UI needs the codec URL at start and the codec server the UI's origin: fix the codec port first.
  const codecPort = await findFreePort();
  const stack = await startTestStack({
    ...options,
    temporal: { uiPort: 0, uiCodecEndpoint: `http://127.0.0.1:${codecPort}` },
  });
  try {
    const uiUrl = stack.temporal.server.uiUrl;
    if (uiUrl === null) throw new Error('the dev server started without its Web UI');
    const codec = await startCodecServer({
      keys: stack.payloadKeys,
      corsOrigin: uiUrl,
      port: codecPort,
      allowUnauthenticatedOnLoopback: true,
    });
    return {
      stack,
      codec,
      uiUrl,
      async teardown() {
        await codec.close().catch(() => undefined);
        await stack.teardown();
      },
    };
  } catch (error) {
    await stack.teardown();
    throw error;
  }
}
