/**
 * DOCUMENTS_ROOT confinement: every document path is relative to the root, and neither `..` nor a symlink may
 * lead outside it. Files must exist, be regular, non-empty and within the configured size limit.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { isConfinedRelativePath } from '../contract';

/** Thrown for a document path or file that can never be uploaded as is (the message says why). */
export class InvalidDocumentError extends Error {
  override readonly name = 'InvalidDocumentError';
  /** Stable failure type (see `SERVICE_FAILURE_TYPES.invalidDocument`). */
  readonly code = 'INVALID_DOCUMENT';
}

/** A file resolved inside the root. */
export interface ResolvedDocument {
  readonly absolutePath: string;
  readonly sizeBytes: number;
}

/** Resolves document paths inside one root folder. */
export interface DocumentsRoot {
  readonly root: string;
  /** Resolves and checks a path relative to the root; throws {@link InvalidDocumentError}. */
  resolve(relativePath: string): Promise<ResolvedDocument>;
}

export interface DocumentsRootOptions {
  /** The folder that holds every document. */
  readonly root: string;
  /** Largest file accepted for upload, in bytes. */
  readonly maxBytes: number;
}

function isInside(root: string, candidate: string): boolean {
  const fromRoot = relative(root, candidate);
  return fromRoot !== '' && !fromRoot.startsWith(`..${sep}`) && fromRoot !== '..' && !isAbsolute(fromRoot);
}

/** Creates the resolver for one DOCUMENTS_ROOT. */
export function createDocumentsRoot(options: DocumentsRootOptions): DocumentsRoot {
  const root = resolve(options.root);
  let realRoot: Promise<string> | undefined;
  return {
    root,
    async resolve(relativePath) {
      if (!isConfinedRelativePath(relativePath)) {
        throw new InvalidDocumentError(`${relativePath}: must be a relative path inside DOCUMENTS_ROOT`);
      }
      realRoot ??= realpath(root).catch((error: unknown) => {
        realRoot = undefined;
        throw new InvalidDocumentError(`DOCUMENTS_ROOT ${root} is not readable: ${(error as Error).message}`);
      });
      const rootOnDisk = await realRoot;
      let target: string;
      try {
        target = await realpath(resolve(rootOnDisk, relativePath));
      } catch {
        throw new InvalidDocumentError(`${relativePath}: no such file under DOCUMENTS_ROOT`);
      }
      if (!isInside(rootOnDisk, target)) {
        throw new InvalidDocumentError(
          `${relativePath}: resolves outside DOCUMENTS_ROOT (symlink escape refused)`,
        );
      }
      const info = await stat(target);
      if (!info.isFile()) throw new InvalidDocumentError(`${relativePath}: is not a regular file`);
      if (info.size === 0) throw new InvalidDocumentError(`${relativePath}: is empty`);
      if (info.size > options.maxBytes) {
        throw new InvalidDocumentError(
          `${relativePath}: is ${info.size} bytes, above the limit of ${options.maxBytes} bytes`,
        );
      }
      return { absolutePath: target, sizeBytes: info.size };
    },
  };
}
