/**
 * DOCUMENTS_ROOT confinement. A document is opened once and every check is made on the open handle, never on the
 * path again: checking a path and then opening it lets whoever can write under the root swap the file (for a
 * symlink to `/etc/passwd`, a folder for a symlink to elsewhere, a growing file, a FIFO) between the two.
 *
 * - The path is relative to the root, without `..` (checked before anything touches the disk).
 * - It is opened with `O_NOFOLLOW` (a symlink as the last component is refused with `ELOOP`) and `O_NONBLOCK` (a
 *   FIFO opens at once instead of blocking a file-system thread until a writer appears).
 * - The open handle must be a regular, non-empty file within the size limit, and must still be under the root
 *   (on Linux its `/proc/self/fd` link is read), which catches a folder swapped for a symlink to outside.
 * - Uploads stream from that handle, from byte 0, never more than the checked size, as often as needed.
 */
import { constants, readlinkSync } from 'node:fs';
import { open, opendir, realpath, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { isConfinedRelativePath, isInsideFolder } from '../contract';
import type { UploadSource } from '../platform/types';
import { createHandleStream } from './document-stream';
import { classifyDocumentError, DocumentUnavailableError, errnoCode, InvalidDocumentError } from './errors';

/**
 * A document opened and checked by {@link DocumentsRoot.open}, to send as the platform client's `UploadSource`
 * (its size is the size checked at open). It holds a file descriptor: always `close()` it,
 * after the upload, whatever its outcome (see {@link withOpenedDocument}).
 */
export interface OpenedDocument extends UploadSource {
  /** The path relative to DOCUMENTS_ROOT, as given. */
  readonly relativePath: string;
  /**
   * A new stream of exactly {@link UploadSource.sizeBytes} bytes from the open handle, from byte 0. It fails with
   * {@link DocumentUnavailableError} when the file shrank or grew since the check, or after `close()`.
   */
  openStream(): Readable;
  /** Closes the handle; waits for reads in flight. Safe to call twice. */
  close(): Promise<void>;
}

/** Opens and checks document paths inside one root folder. */
export interface DocumentsRoot {
  /**
   * Opens a document once and checks the open handle (regular file, not empty, within the size limit, still
   * under the root).
   * @throws {@link InvalidDocumentError} when no retry can help: the path leaves the root, is missing
   * (`ENOENT`, `ENOTDIR`), is a symlink (`ELOOP`), or the file is not regular, empty or too large
   * @throws {@link DocumentUnavailableError} when the file system cannot answer now (`EACCES`, `EMFILE`, `EIO`,
   * any other errno, a missing or unreadable root)
   */
  open(relativePath: string, options?: OpenOptions): Promise<OpenedDocument>;
  /**
   * Makes the checks of {@link DocumentsRoot.open} and closes the file again: for validating a path (a
   * replacement document) before it is uploaded. The upload must call `open()` itself, not trust this answer.
   * @throws as {@link DocumentsRoot.open}
   */
  inspect(
    relativePath: string,
    options?: OpenOptions,
  ): Promise<Pick<OpenedDocument, 'relativePath' | 'sizeBytes'>>;
}

interface OpenOptions {
  /**
   * A folder under the root (relative to it) the document must be in: the path lexically, and the open file
   * itself, wherever links inside the folder lead (an order's `documentsFolder`). @default the whole root
   */
  readonly within?: string;
}

/** How the location of an open handle is confirmed to be under the root. */
export type HandleLocation = 'procfs' | 'path';

interface DocumentsRootOptions {
  /** The folder that holds every document. */
  readonly root: string;
  /** Largest file accepted for upload, in bytes. */
  readonly maxBytes: number;
  /**
   * `procfs` reads where the open descriptor points (`/proc/self/fd/<fd>`, Linux): exact. `path` resolves the
   * path again and requires the same device and inode as the handle: for systems without `/proc`; a file swapped
   * meanwhile is refused, never sent.
   * @default 'procfs' on Linux, else 'path'
   */
  readonly handleLocation?: HandleLocation;
}

// O_NOCTTY: a terminal device placed under the root must never become our controlling terminal.
const OPEN_FLAGS =
  constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function isInside(root: string, candidate: string): boolean {
  const fromRoot = relative(root, candidate);
  return fromRoot !== '' && !fromRoot.startsWith(`..${sep}`) && fromRoot !== '..' && !isAbsolute(fromRoot);
}

function describeKind(info: BigIntStats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'a special file';
}

const outsideRoot = (relativePath: string, fsCode?: string, folder?: string): InvalidDocumentError =>
  new InvalidDocumentError({
    relativePath,
    ...(fsCode !== undefined && { fsCode }),
    message: `${relativePath}: resolves outside ${folder === undefined ? 'DOCUMENTS_ROOT' : `${folder}/`} (symlink escape refused)`,
  });

/** A root that cannot be used now: retryable, as it may be mounted on the next attempt. */
function rootUnavailable(relativePath: string, error: unknown): DocumentUnavailableError {
  const fsCode = errnoCode(error) ?? 'unknown error';
  return new DocumentUnavailableError({
    relativePath,
    fsCode,
    message: `${relativePath}: DOCUMENTS_ROOT is not readable (${fsCode}); will retry`,
  });
}

/**
 * The root's real path, or a retryable error. Whether it is a folder is asked only when a path under it is not
 * found ({@link refusedForTheRoot}): a root that is a file makes every path under it `ENOTDIR`.
 */
async function realRootOf(root: string, relativePath: string): Promise<string> {
  try {
    return await realpath(root);
  } catch (error) {
    throw rootUnavailable(relativePath, error);
  }
}

/**
 * `error` of a path under the root, classified; but when the root itself is missing or not a folder now
 * (unmounted or replaced since its real path was read), every path under it is "missing", which is not the
 * document's fault: the root's retryable error instead.
 */
async function refusedForTheRoot(
  root: string,
  error: unknown,
  relativePath: string,
): Promise<InvalidDocumentError | DocumentUnavailableError> {
  const classified = classifyDocumentError(error, relativePath, 'open');
  if (!(classified instanceof InvalidDocumentError)) return classified;
  try {
    if (!(await stat(root)).isDirectory()) {
      throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    }
  } catch (rootError) {
    return rootUnavailable(relativePath, rootError);
  }
  return classified;
}

/**
 * The real path of a folder under the root that a document must be in; a folder that is missing, or that leads
 * outside the root, holds no document (final), unless the root itself is what is missing ({@link refusedForTheRoot}).
 */
async function realFolderOf(options: {
  /** DOCUMENTS_ROOT as configured, checked again when the folder is not found. */
  readonly root: string;
  readonly realRoot: string;
  readonly folder: string;
  readonly relativePath: string;
}): Promise<string> {
  const { root, realRoot, folder, relativePath } = options;
  let real: string;
  try {
    real = await realpath(resolve(realRoot, folder));
  } catch (error) {
    throw await refusedForTheRoot(root, error, relativePath);
  }
  if (real !== realRoot && !isInside(realRoot, real)) throw outsideRoot(relativePath, undefined, folder);
  return real;
}

/**
 * Whether a refused symlink points outside the root, only to say so in the message: the link is refused either
 * way and nothing is opened through it.
 */
async function leadsOutside(realRoot: string, absolutePath: string): Promise<boolean> {
  try {
    return !isInside(realRoot, await realpath(absolutePath));
  } catch {
    return false;
  }
}

/** Confirms the open handle is a file under the root right now, not where the path pointed at some other time. */
async function confirmLocation(options: {
  readonly strategy: HandleLocation;
  readonly handle: FileHandle;
  readonly info: BigIntStats;
  readonly absolutePath: string;
  readonly realRoot: string;
  readonly relativePath: string;
  /** The folder the document must be in, named in the refusal. */
  readonly folder?: string;
}): Promise<void> {
  const { handle, info, absolutePath, realRoot, relativePath, folder } = options;
  if (options.strategy === 'procfs') {
    // The kernel's own answer for this descriptor, whichever links the path went through. Synchronous on
    // purpose: procfs answers from memory (never from the file's own file system), so this cannot block, and it
    // saves a trip through libuv's thread pool on every upload.
    let location: string;
    try {
      location = readlinkSync(`/proc/self/fd/${handle.fd}`);
    } catch (error) {
      // Without /proc the answer is unknown, which says nothing about the document: never final.
      const fsCode = errnoCode(error) ?? 'unknown error';
      throw new DocumentUnavailableError({
        relativePath,
        fsCode,
        message: `${relativePath}: cannot confirm the file's location under DOCUMENTS_ROOT (${fsCode}); will retry`,
      });
    }
    if (!isInside(realRoot, location)) throw outsideRoot(relativePath, undefined, folder);
    return;
  }
  const location = await realpath(absolutePath);
  if (!isInside(realRoot, location)) throw outsideRoot(relativePath, undefined, folder);
  const atPath = await stat(location, { bigint: true });
  if (atPath.dev !== info.dev || atPath.ino !== info.ino) {
    throw new DocumentUnavailableError({
      relativePath,
      message: `${relativePath}: the file was replaced while it was being opened; will retry`,
    });
  }
}

export function createDocumentsRoot(options: DocumentsRootOptions): DocumentsRoot {
  const root = resolve(options.root);
  const { maxBytes } = options;
  const strategy = options.handleLocation ?? (process.platform === 'linux' ? 'procfs' : 'path');

  async function openDocument(relativePath: string, options: OpenOptions = {}): Promise<OpenedDocument> {
    if (!isConfinedRelativePath(relativePath)) {
      throw new InvalidDocumentError({
        relativePath,
        message: `${relativePath}: must be a relative path inside DOCUMENTS_ROOT`,
      });
    }
    const { within } = options;
    if (within !== undefined && !(isConfinedRelativePath(within) && isInsideFolder(relativePath, within))) {
      throw new InvalidDocumentError({ relativePath, message: `${relativePath}: must be inside ${within}/` });
    }
    // Resolved on every open: a root that was remounted or replaced is followed, not remembered.
    const realRoot = await realRootOf(root, relativePath);
    const absolutePath = resolve(realRoot, relativePath);
    // The folder's own real path, when the document must be in it: the open file is confirmed to lie there.
    const confinement =
      within === undefined ? realRoot : await realFolderOf({ root, realRoot, folder: within, relativePath });
    let handle: FileHandle;
    try {
      handle = await open(absolutePath, OPEN_FLAGS);
    } catch (error) {
      const classified = await refusedForTheRoot(root, error, relativePath);
      if (classified.fsCode === 'ELOOP' && (await leadsOutside(realRoot, absolutePath))) {
        throw outsideRoot(relativePath, 'ELOOP');
      }
      throw classified;
    }
    try {
      const info = await handle.stat({ bigint: true });
      if (!info.isFile()) {
        throw new InvalidDocumentError({
          relativePath,
          message: `${relativePath}: is not a regular file (${describeKind(info)})`,
        });
      }
      await confirmLocation({
        strategy,
        handle,
        info,
        absolutePath,
        realRoot: confinement,
        relativePath,
        ...(within !== undefined && { folder: within }),
      });
      if (info.size === 0n) {
        throw new InvalidDocumentError({ relativePath, message: `${relativePath}: is empty` });
      }
      if (info.size > BigInt(maxBytes)) {
        throw new InvalidDocumentError({
          relativePath,
          message: `${relativePath}: is ${info.size} bytes, above the limit of ${maxBytes} bytes`,
        });
      }
      return openedDocument(handle, Number(info.size), relativePath);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw classifyDocumentError(error, relativePath, 'open');
    }
  }

  return {
    open: openDocument,
    async inspect(relativePath, options) {
      const document = await openDocument(relativePath, options);
      await document.close();
      return { relativePath, sizeBytes: document.sizeBytes };
    },
  };
}

function openedDocument(handle: FileHandle, sizeBytes: number, relativePath: string): OpenedDocument {
  let closing: Promise<void> | undefined;
  const isClosed = (): boolean => closing !== undefined;
  return {
    relativePath,
    sizeBytes,
    openStream: () => createHandleStream({ handle, sizeBytes, relativePath, isClosed }),
    close() {
      closing ??= handle.close();
      return closing;
    },
  };
}

/**
 * Opens a document, hands it to `work` and closes it whatever happens. Closing never changes the outcome: a
 * file handle that fails to close (EIO on a network mount) must not turn a document the platform stored into a
 * failure, nor hide the error `work` failed with.
 * @throws as {@link DocumentsRoot.open}, or what `work` throws
 */
export async function withOpenedDocument<T>(
  documents: DocumentsRoot,
  relativePath: string,
  work: (document: OpenedDocument) => Promise<T>,
  options?: OpenOptions,
): Promise<T> {
  const document = await documents.open(relativePath, options);
  try {
    return await work(document);
  } finally {
    await document.close().catch(() => undefined);
  }
}

/**
 * Checks at start-up that DOCUMENTS_ROOT exists, is a directory and can be listed, so a missing mount or wrong
 * permissions stop the worker with a clear error instead of failing documents. The message names the root: it
 * goes to the operator's logs, not into workflow history.
 * @throws {@link DocumentUnavailableError} (code `DOCUMENT_UNAVAILABLE`) saying what is wrong
 */
export async function assertDocumentsRootReadable(root: string): Promise<void> {
  const absolute = resolve(root);
  try {
    // Listing needs read and search permission on the folder itself (and fails for a missing root or a file).
    const listing = await opendir(absolute);
    try {
      await listing.read();
    } finally {
      await listing.close();
    }
  } catch (error) {
    const fsCode = errnoCode(error) ?? 'unknown error';
    const why =
      fsCode === 'ENOENT'
        ? 'does not exist (is the volume mounted?)'
        : fsCode === 'ENOTDIR'
          ? 'is not a directory'
          : fsCode === 'EACCES' || fsCode === 'EPERM'
            ? 'cannot be read by this process (check its owner and mode)'
            : 'cannot be read';
    throw new DocumentUnavailableError({
      fsCode,
      message: `DOCUMENTS_ROOT ${absolute} ${why} (${fsCode})`,
    });
  }
}
