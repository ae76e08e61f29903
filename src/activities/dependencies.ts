/** What the badge order activities need; built once per worker process from configuration. */
import type { DocumentStore, DocumentsRoot } from '../documents';
import type { PlatformClient } from '../platform';

/** What the worker knows about the platform that the workflow cannot see. */
interface PlatformBehaviour {
  /**
   * `honoured`: the platform is known to answer a repeated `Idempotency-Key` with the first result, so a
   * creation whose outcome is unknown may be sent again. `unknown` (the default): such an order is held for
   * reconciliation instead.
   */
  readonly idempotencyKeys: 'honoured' | 'unknown';
  /**
   * What an upload does after an attempt that may have stored the file: `retry` (a duplicate attachment
   * costs less than a lost one; the document is flagged `possibleDuplicate`) or `hold` (the document waits
   * for repair).
   */
  readonly uploadUnknownOutcome: 'retry' | 'hold';
}

/** The activities' dependencies. */
export interface ActivityDependencies {
  readonly platform: PlatformClient;
  readonly documentsRoot: DocumentsRoot;
  /** Where documents named by reference (`sha256:…`) are read from. */
  readonly documentStore: DocumentStore;
  /** @default keys unknown, uploads retried */
  readonly behaviour?: PlatformBehaviour;
  /** Least time between two upload heartbeats (the SDK throttles further). @default 1000 */
  readonly heartbeatIntervalMs?: number;
}

/** The behaviour assumed when the worker is told nothing. */
export const DEFAULT_PLATFORM_BEHAVIOUR: PlatformBehaviour = {
  idempotencyKeys: 'unknown',
  uploadUnknownOutcome: 'retry',
};
