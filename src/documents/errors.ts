/**
 * The two ways a document can fail: for good (the path or the file itself is wrong, a retry cannot help) or for
 * now (the file system could not answer: permissions, descriptors, I/O, an unmounted root). Keeping them apart
 * stops a passing outage from sending every document of every order to repair at once.
 *
 * Messages name the document's path relative to DOCUMENTS_ROOT and the errno code, never an absolute host path:
 * they end up in workflow history and in the operators' views.
 */
import type { FailureCode } from '../failure-types';

/** Errno codes that say the document itself is not there as a file we may read; no retry can change that. */
const FINAL_FILE_SYSTEM_CODES: ReadonlySet<string> = new Set(['ENOENT', 'ENOTDIR', 'ELOOP']);

/**
 * Thrown when a document path or file can never be uploaded as is: it leaves DOCUMENTS_ROOT, does not exist,
 * is a symlink, is not a regular file, is empty or is too large; or a referenced document (`sha256:…`) is not in
 * the store, or the stored object no longer matches its reference (size or hash). Final: the workflow sends the
 * document to repair.
 */
export class InvalidDocumentError extends Error {
  override readonly name = 'InvalidDocumentError';
  /** Its failure code (final; see `src/failure-types.ts`). */
  readonly code = 'INVALID_DOCUMENT' satisfies FailureCode;
  /** The document's path relative to DOCUMENTS_ROOT, or its reference, as the caller gave it. */
  readonly relativePath: string;
  /** The errno code behind the refusal (`ENOENT`, `ENOTDIR`, `ELOOP`), when a system call refused. */
  readonly fsCode: string | undefined;

  constructor(init: { readonly relativePath: string; readonly message: string; readonly fsCode?: string }) {
    super(init.message);
    this.relativePath = init.relativePath;
    this.fsCode = init.fsCode;
  }
}

/**
 * Thrown when the file system could not answer for a document right now: `EACCES`, `EMFILE`, `EIO`, any errno
 * not known to be final, a missing or unreadable DOCUMENTS_ROOT, or a file that changed while it was read.
 * Retryable: the next attempt opens and checks the file again.
 */
export class DocumentUnavailableError extends Error {
  override readonly name = 'DocumentUnavailableError';
  /** Its failure code (retryable; see `src/failure-types.ts`). */
  readonly code = 'DOCUMENT_UNAVAILABLE' satisfies FailureCode;
  /** The document's path relative to DOCUMENTS_ROOT, or `undefined` when the root itself is unavailable. */
  readonly relativePath: string | undefined;
  /** The errno code behind the failure, when a system call failed. */
  readonly fsCode: string | undefined;

  constructor(init: { readonly relativePath?: string; readonly message: string; readonly fsCode?: string }) {
    super(init.message);
    this.relativePath = init.relativePath;
    this.fsCode = init.fsCode;
  }
}

/** The string `code` of an error (a Node.js system error's errno code, a fastify error's), if it has one. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Classifies a system error raised while opening or reading one document. The original error is not kept as
 * `cause`: its message holds the absolute host path.
 * @param error what the file system threw
 * @param relativePath the document's path relative to DOCUMENTS_ROOT
 * @param doing what we tried, for the message ("open", "read")
 */
export function classifyDocumentError(
  error: unknown,
  relativePath: string,
  doing: 'open' | 'read',
): InvalidDocumentError | DocumentUnavailableError {
  if (error instanceof InvalidDocumentError || error instanceof DocumentUnavailableError) return error;
  const fsCode = errnoCode(error);
  if (fsCode !== undefined && FINAL_FILE_SYSTEM_CODES.has(fsCode)) {
    const why =
      fsCode === 'ELOOP'
        ? 'is a symbolic link (only regular files are uploaded)'
        : 'no such file under DOCUMENTS_ROOT';
    return new InvalidDocumentError({ relativePath, fsCode, message: `${relativePath}: ${why}` });
  }
  return new DocumentUnavailableError({
    relativePath,
    ...(fsCode !== undefined && { fsCode }),
    message: `${relativePath}: cannot ${doing} the file right now (${fsCode ?? 'unknown error'}); will retry`,
  });
}

/** Why {@link DocumentStore.put} refused a body. */
type DocumentRefusal = 'too-large' | 'empty';

/**
 * Thrown by a document store's `put` when the body cannot be stored: longer than the limit (the HTTP API answers
 * 413) or empty (400). Nothing of the body is kept.
 */
export class DocumentRefusedError extends Error {
  override readonly name = 'DocumentRefusedError';
  /** Stable code for the HTTP API's problem details (not a workflow failure type: no workflow sees it). */
  readonly code = 'DOCUMENT_REFUSED';
  readonly reason: DocumentRefusal;
  /** The limit that was passed, for `too-large`. */
  readonly maxBytes: number | undefined;

  constructor(init: { readonly reason: DocumentRefusal; readonly maxBytes?: number }) {
    super(
      init.reason === 'too-large'
        ? `the document is larger than the limit of ${init.maxBytes ?? '?'} bytes`
        : 'the document is empty',
    );
    this.reason = init.reason;
    this.maxBytes = init.maxBytes;
  }
}
