/**
 * The document store: where documents live when no shared disk does. A document is stored once, named by its
 * content (`sha256:<hex>`), and an order names it by that reference instead of a path under `DOCUMENTS_ROOT`.
 * Implementations: the local folder (the default, {@link createLocalDocumentStore}) and S3-compatible object
 * storage ({@link createS3DocumentStore}).
 *
 * This file is the interface both sides build against: the HTTP API stores uploads through `put`, the worker
 * uploads from `open`.
 */
import type { Readable } from 'node:stream';
import { CLIENT_ID_PATTERN, isDocumentReference } from '../contract';
import type { UploadSource } from '../platform/types';
import { DocumentRefusedError, InvalidDocumentError, type DocumentUnavailableError } from './errors';
import { HashingStream } from './hashing-stream';

/** What the store answers for a stored document, and what an order carries to name it. */
export interface DocumentReference {
  /** `sha256:<64 hex>` of the stored bytes. */
  readonly ref: string;
  readonly sizeBytes: number;
  /**
   * From `put`, the content type the caller gave. From `open` and `inspect`, the one the bytes were first
   * stored with, by whichever client: the worker's fallback for a reference named without a content type.
   */
  readonly contentType: string;
}

/**
 * What `open` needs: the reference, and the size when the caller knows it (an order carries only `ref`; the
 * hash covers the size anyway, a known size only fails sooner).
 */
type DocumentToOpen = Pick<DocumentReference, 'ref'> & Partial<Pick<DocumentReference, 'sizeBytes'>>;

export interface PutDocumentInput {
  /** The bytes, streamed (never buffered whole). */
  readonly body: Readable;
  readonly contentType: string;
  /** The store refuses a body longer than this, without keeping any of it. */
  readonly maxBytes: number;
  /**
   * The client the document is stored for (the API caller's client id): only it may name the reference in an
   * order (see {@link DocumentStore.claim}). Its mark records `contentType`: the same bytes stored by two
   * clients are one object owned by both, each answered the content type it gave, so neither learns of the
   * other.
   */
  readonly owner: string;
}

/** A stored document as the collector sees it. */
export interface StoredDocument {
  readonly ref: string;
  /** When it was last stored or claimed, by any owner: the collector's grace period runs from here. */
  readonly lastUsedAt: Date;
}

/** A stored document opened for upload: re-streamable (the platform client re-sends after a 401). */
export interface OpenedStoredDocument extends UploadSource {
  readonly reference: DocumentReference;
  /**
   * A new stream of the stored bytes from byte 0. It ends only after the bytes were checked against the
   * reference: the last chunk is held back until the size and SHA-256 match, so a consumer (the platform
   * upload) never receives a complete body of bytes that are not the referenced document. On a mismatch it
   * fails with an {@link InvalidDocumentError} (`INVALID_DOCUMENT`, final); when the store cannot be read now,
   * with a {@link DocumentUnavailableError} (retryable).
   */
  openStream(): Readable;
  /** Releases what `open` holds. Safe to call twice. */
  close(): Promise<void>;
}

/** Stores documents by content and opens them again for upload. */
export interface DocumentStore {
  /** `local` or `s3`, for logs and the operator's view. */
  readonly kind: 'local' | 's3';
  /**
   * Checks at start-up that the store can be used (local: creates its folders; S3: the bucket answers), so a
   * wrong setting stops the process with a clear error instead of failing every document.
   * @throws {@link DocumentUnavailableError} saying what is wrong
   */
  check(): Promise<void>;
  /**
   * Stores the body and returns its reference with the caller's own content type; storing the same bytes
   * twice keeps one copy (with its first content type). The body is hashed while it streams; nothing is kept
   * when it fails.
   * @throws {@link DocumentRefusedError} when the body is longer than `maxBytes` or empty
   * @throws {@link DocumentUnavailableError} when the store cannot be written now
   * @throws what the body stream fails with (a client that went away)
   */
  put(input: PutDocumentInput): Promise<DocumentReference>;
  /**
   * Opens a stored document after checking it is there (and within the store's size limit). Its streams fail
   * when the stored object no longer matches the reference (size or hash), so a changed object is never sent
   * as the referenced one.
   * @throws {@link InvalidDocumentError} when the reference is malformed, the document is not in the store, or
   * its size differs from `sizeBytes` or is above the limit (final)
   * @throws {@link DocumentUnavailableError} when the store cannot answer now (retryable)
   */
  open(document: DocumentToOpen): Promise<OpenedStoredDocument>;
  /**
   * Whether a document is there, and its reference, without reading it: for checking a replacement before it is
   * taken. The upload must call `open()` itself, and its stream checks the bytes.
   * @throws as {@link DocumentStore.open}
   */
  inspect(document: DocumentToOpen): Promise<DocumentReference>;
  /**
   * Whether `owner` stored this document and it is still there; if so, marks it used now (its grace period
   * before collection starts again) and answers the content type `owner` stored it with (the object's for a
   * mark written before marks recorded one). Another client's document and an unknown one answer alike: null.
   * @throws {@link DocumentUnavailableError} when the store cannot answer now
   */
  claim(ref: string, owner: string): Promise<{ readonly contentType: string } | null>;
  /** Every stored document, with when it was last used (for the collector). */
  listStored(): Promise<readonly StoredDocument[]>;
  /**
   * Deletes a document and its owners' marks, unless it was stored or claimed at or after `unusedSince`
   * (checked again right before deleting: a document stored again meanwhile is kept).
   * @returns whether it was deleted
   */
  remove(ref: string, options: { readonly unusedSince: Date }): Promise<boolean>;
}

/** The hex digest of a reference (`sha256:<hex>` → `<hex>`). */
export function referenceHex(ref: string): string {
  return ref.slice('sha256:'.length);
}

/** Where a reference's bytes and its owners' marks live under a store's root or prefix. */
export function referenceKeys(ref: string): {
  readonly hex: string;
  readonly data: string;
  readonly owners: string;
} {
  const hex = referenceHex(ref);
  return { hex, data: `sha256/${hex}`, owners: `owners/${hex}/` };
}

/** Refuses a malformed reference before anything touches the store. */
function assertReference(ref: string): void {
  if (!isDocumentReference(ref)) {
    throw new InvalidDocumentError({
      relativePath: ref,
      message: `${ref}: is not a document reference (sha256: and 64 lowercase hex digits)`,
    });
  }
}

/** Refuses an owner that could not be a client id (and so could leave its folder) before it names a key. */
function assertOwner(owner: string): void {
  if (!CLIENT_ID_PATTERN.test(owner)) throw new Error(`${JSON.stringify(owner)} is not a client id`);
}

/** What an owner's mark records. */
interface OwnerMark {
  readonly contentType: string | undefined;
}

/** A store's own storage (a local folder, S3); {@link createDocumentStore} adds what both share. */
interface StoreBackend<Received> extends Pick<DocumentStore, 'kind' | 'check' | 'open' | 'listStored'> {
  /** Streams the body through `hashing` to a temporary place (nothing left there when it fails). */
  receive(input: PutDocumentInput, hashing: HashingStream): Promise<Received>;
  /**
   * Puts received bytes in place as `ref` (bytes stored before keep their first content type), with the same
   * calls to the storage whether or not they were stored before: a client must not learn by the time its upload
   * takes that another stored the same bytes.
   */
  place(received: Received, ref: string, contentType: string): Promise<void>;
  /** Deletes what `receive` left behind, if anything. */
  discard(received: Received): Promise<void>;
  /** The content type the document was first stored with, or null when it is not there. */
  storedContentType(ref: string): Promise<string | null>;
  /** Marks `owner` as having stored `ref` now, with `contentType`. */
  mark(ref: string, owner: string, contentType: string): Promise<void>;
  /**
   * What `owner`'s mark of `ref` records (no content type: a mark written before marks recorded one), without
   * changing it; null when `owner` has no mark.
   */
  readMark(ref: string, owner: string): Promise<OwnerMark | null>;
  /** Marks `owner` as having claimed `ref` now, keeping what its mark records (`mark`, as read). */
  touch(ref: string, owner: string, mark: OwnerMark): Promise<void>;
  /** The last time anyone stored or claimed `ref` (null when the document is gone). */
  lastUsed(ref: string): Promise<number | null>;
  /** Deletes the document, then its owners' marks: marks without data claim nothing. */
  delete(ref: string): Promise<void>;
  /** The retryable error for an operation (`what`: "be read"). */
  unavailable(what: string, error: unknown, ref?: string): DocumentUnavailableError;
}

/**
 * A document store from its backend: references and owners checked before the backend sees them, bodies hashed
 * on their way in, and storing, claiming and removing one reference done one at a time.
 */
export function createDocumentStore<Received>(backend: StoreBackend<Received>): DocumentStore {
  // Storing a document and collecting it never interleave in this process (between processes the collector's
  // second look narrows the window to a moment).
  const held = new Map<string, Promise<unknown>>();
  const withLock = async <T>(ref: string, work: () => Promise<T>): Promise<T> => {
    const mine = (held.get(ref) ?? Promise.resolve()).then(work, work);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    held.set(ref, settled);
    try {
      return await mine;
    } finally {
      if (held.get(ref) === settled) held.delete(ref);
    }
  };
  const open = async (document: DocumentToOpen): Promise<OpenedStoredDocument> => {
    assertReference(document.ref);
    return backend.open(document);
  };
  return {
    kind: backend.kind,
    check: () => backend.check(),
    async put(input) {
      assertOwner(input.owner);
      const hashing = new HashingStream(input.maxBytes);
      const received = await backend.receive(input, hashing);
      try {
        if (hashing.bytes === 0) throw new DocumentRefusedError({ reason: 'empty' });
        const ref = hashing.reference();
        const sizeBytes = hashing.bytes;
        return await withLock(ref, async () => {
          // Always put in place: the same bytes stay one copy, and a copy damaged since its own put is healed.
          await backend.place(received, ref, input.contentType);
          await backend.mark(ref, input.owner, input.contentType);
          // The caller's own type, never the first storer's: it tells nobody who else stored the bytes.
          return { ref, sizeBytes, contentType: input.contentType };
        });
      } catch (error) {
        if (error instanceof DocumentRefusedError) throw error;
        throw backend.unavailable('store the document', error);
      } finally {
        await backend.discard(received);
      }
    },
    open,
    async inspect(document) {
      const opened = await open(document);
      await opened.close();
      return opened.reference;
    },
    async claim(ref, owner) {
      assertReference(ref);
      assertOwner(owner);
      return withLock(ref, async () => {
        try {
          // The caller's own mark first: without one, the stored object is never looked at, so another client's
          // document and an unknown one take the same calls (and time) to refuse.
          const mark = await backend.readMark(ref, owner);
          if (mark === null) return null;
          const firstContentType = await backend.storedContentType(ref);
          if (firstContentType === null) return null;
          await backend.touch(ref, owner, mark);
          return { contentType: mark.contentType ?? firstContentType };
        } catch (error) {
          throw backend.unavailable('be read', error, ref);
        }
      });
    },
    listStored: () => backend.listStored(),
    async remove(ref, { unusedSince }) {
      assertReference(ref);
      return withLock(ref, async () => {
        const latest = await backend.lastUsed(ref);
        if (latest === null || latest >= unusedSince.getTime()) return false;
        await backend.delete(ref);
        return true;
      });
    },
  };
}

/**
 * The file name sent to the platform for a document named by reference, when the order gives none: a short
 * name made from the hash, so two documents of one order never share a name.
 */
export function defaultReferenceFilename(ref: string): string {
  return `document-${referenceHex(ref).slice(0, 16)}`;
}
