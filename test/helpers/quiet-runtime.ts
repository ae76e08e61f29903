/** Keeps the SDK's worker logs to warnings in tests, so failures stand out. */
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed in this jest worker process by an earlier test file.
}
