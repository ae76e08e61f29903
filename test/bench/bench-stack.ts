/** The bench stack as the bench's own tests start it: small limits and no log. */
import { startBenchStack, type BenchStack } from '../../bench/stack';

/** Starts the bench stack with the tests' settings; the caller calls `teardown()`. */
export function startTestBenchStack(): Promise<BenchStack> {
  return startBenchStack({
    maxConcurrentActivities: 20,
    maxDocumentBytes: 1024 * 1024,
    tokenTtlSeconds: 900,
    workerLogLevel: 'warn',
    log: () => undefined,
  });
}
