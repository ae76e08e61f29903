/**
 * Inputs and results of the badge order activities. Nothing here is secret: these values travel in workflow
 * history. The access token stays in the worker's token cache.
 */
import type { DocumentLinks } from '../contract';

/**
 * A platform id in an activity's input or result: its digits (or text) as a string. A number where a release
 * before 0.4.0 scheduled the activity or recorded its result (a safe integer: `String` gives its digits).
 */
export type PlatformIdValue = string | number;

/** Non-secret facts about the worker's platform session. */
export interface AuthenticateResult {
  /** The token's `sub`; the document owner of sessions recorded before `documentOwner` existed. */
  readonly userId: string | null;
  /**
   * The document owner the worker's configuration and the token decide on (`BADGE_DOCUMENT_OWNER`,
   * `BADGE_USER_ID_CLAIM`, else the default chain of claims), or null when nothing names the user. Absent in
   * sessions recorded before 0.4.0: those orders used `userId`.
   */
  readonly documentOwner?: string | null;
  /** Where `documentOwner` came from, or what was looked at when it is null (names only). */
  readonly documentOwnerSource?: string;
  /** ISO time the token expires, when the token says. */
  readonly expiresAt: string | null;
  /**
   * Whether the platform is known to honour `Idempotency-Key` (worker configuration). Absent in sessions
   * recorded before the setting existed: read as `unknown`.
   */
  readonly idempotencyKeys?: 'honoured' | 'unknown';
}

export interface LookUpStockInput {
  readonly stockId: PlatformIdValue;
}

export interface LookUpStockResult {
  /** Whether the user's stocks list the requested stock; null when the list could not be read in full. */
  readonly listed: boolean | null;
  /** How many stocks the user has (for the fallback reason), when known. */
  readonly stockCount: number | null;
}

export interface CreateOrderInput {
  readonly idempotencyKey: string;
  readonly vehicle: Record<string, unknown>;
  readonly badge: Record<string, unknown>;
  /** Omitted to order without a stock. */
  readonly stockId?: PlatformIdValue;
}

export interface CreateOrderResult {
  /** The platform's order id, its digits as sent (a number in results recorded before 0.4.0). */
  readonly orderId: PlatformIdValue;
}

export interface InspectDocumentInput {
  /** Relative to DOCUMENTS_ROOT, or a document reference (`sha256:<hex>`) in the document store. */
  readonly path: string;
  /** The order's `documentsFolder`: a path must lie in it. Absent in older histories: anywhere under the root. */
  readonly documentsFolder?: string;
}

export interface InspectDocumentResult {
  readonly sizeBytes: number;
}

export interface UploadDocumentInput {
  readonly idempotencyKey: string;
  readonly orderId: PlatformIdValue;
  readonly documentOwner: PlatformIdValue;
  /**
   * The document's source: relative to DOCUMENTS_ROOT, or a document reference (`sha256:<hex>`) in the document
   * store (the contract keeps the two apart: a path shaped like a reference is refused).
   */
  readonly path: string;
  /** The order's `documentsFolder`: a path must lie in it. Absent in older histories: anywhere under the root. */
  readonly documentsFolder?: string;
  readonly contentType?: string;
  readonly filename?: string;
}

export interface UploadDocumentResult {
  /** The platform's id of the stored document, when its answer named one. Absent in older histories. */
  readonly documentId?: string | null;
  readonly links: DocumentLinks;
  /** An earlier attempt may have stored the file already. Absent in older histories. */
  readonly possibleDuplicate?: boolean;
  readonly sizeBytes: number;
  /** The activity attempt that succeeded (1 when the first try did). */
  readonly attempt: number;
}
