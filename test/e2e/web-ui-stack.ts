/**
 * The service with the dev server's Web UI for browser tests: the test stack (dev server, sandbox, workers)
 * with a Web UI whose codec endpoint is a codec server holding the stack's payload keys — as `npm run demo`
 * runs it, including the codec server's no-credentials loopback mode (the dev UI sends none).
 */
import type { RunningCodecServer } from '../../src/codec/codec-server';
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
export async function startWebUiStack(
  options: Omit<TestStackOptions, 'temporal' | 'webUi'> = {},
): Promise<WebUiStack> {
  const stack = await startTestStack({ ...options, webUi: true });
  const { codecServer, webUiUrl } = stack.local;
  if (codecServer === null || webUiUrl === null) {
    await stack.teardown();
    throw new Error('the stack started without its Web UI or codec server');
  }
  return { stack, codec: codecServer, uiUrl: webUiUrl, teardown: () => stack.teardown() };
}
