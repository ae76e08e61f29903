/** The operator CLI (`src/commands/ops-command.ts`) run in-process against a test stack. */
import { runOps } from '../../src/commands/ops-command';
import type { PlatformClient } from '../../src/platform';
import type { TestStack } from './stack';

/**
 * Runs the CLI with `args` against the stack's Temporal (and `platformClient`, which only `probe` uses);
 * returns its exit code and what it wrote to each stream, one line per call.
 */
export async function runOpsOn(
  stack: Pick<TestStack, 'temporal' | 'taskQueue'>,
  args: readonly string[],
  platformClient?: (baseUrl?: string) => PlatformClient,
): Promise<{ readonly code: number; readonly out: string; readonly err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runOps(args, {
    temporal: () => ({
      client: stack.temporal.client,
      taskQueue: stack.taskQueue,
      webUiUrl: 'http://127.0.0.1:8233',
    }),
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    platformClient,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
