/**
 * The document store: where documents live when no shared disk does. A document is stored once, named by its
 * content (`sha256:<hex>`), and an order names it by that reference instead of a path under `DOCUMENTS_ROOT`.
 * Implementations: the local folder (the default) and S3-compatible object storage.
 *
 * This file is the interface both sides build against: the HTTP API stores uploads through `put`, the worker
 * uploads from `open`.
 */
import type { Readable } from 'node:stream';
import type { UploadSource } from './documents-root';

/** Pattern of a content-addressed document reference: `sha256:` and 64 lowercase hex digits. */
export const DOCUMENT_REFERENCE_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** What the store answers for a stored document, and what an order carries to name it. */
export interface DocumentReference {
  /** `sha256:<64 hex>` of the stored bytes. */
  readonly ref: string;
  readonly sizeBytes: number;
  readonly contentType: string;
}

/** Input of {@link DocumentStore.put}. */
export interface PutDocumentInput {
  /** The bytes, streamed (never buffered whole). */
  readonly body: Readable;
  readonly contentType: string;
  /** The store refuses a body longer than this, without keeping any of it. */
  readonly maxBytes: number;
}

/** A stored document opened for upload: re-streamable (the platform client re-sends after a 401). */
export interface OpenedStoredDocument extends UploadSource {
  readonly reference: DocumentReference;
  /** Releases what `open` holds. Safe to call twice. */
  close(): Promise<void>;
}

/** Stores documents by content and opens them again for upload. */
export interface DocumentStore {
  /** `local` or `s3`, for logs and the operator's view. */
  readonly kind: string;
  /** Stores the body and returns its reference; storing the same bytes twice keeps one copy. */
  put(input: PutDocumentInput): Promise<DocumentReference>;
  /**
   * Opens a stored document. Its streams fail when the stored object no longer matches the reference (size or
   * hash), so a changed object is never sent as the referenced one.
   */
  open(reference: DocumentReference): Promise<OpenedStoredDocument>;
}
