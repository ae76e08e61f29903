/**
 * The document store in a local folder (the default): `sha256/<hex>` files under the store's root, each with
 * a small `sha256/<hex>.json` beside it holding the content type it was first stored with, and a mark
 * `owners/<hex>/<client>` for each client that stored it, holding in the same JSON form the content type that
 * client stored it with (empty when written before marks recorded one); its time is when that client last
 * stored or claimed it. Uploads land in `incoming/` first and are renamed into place once hashed (same file
 * system: the rename is atomic), so a `sha256/<hex>` file is never half written. Opening goes through the
 * same confinement as `DOCUMENTS_ROOT` (one open, checks on the handle, no symlinks), and every stream is
 * checked against the reference.
 *
 * It serves one host (the API and the workers share the folder); without a shared disk, use the S3 store.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pipeline as pipelineWithCallback } from 'node:stream';
import { z } from 'zod';
import { isDocumentReference } from '../contract';
import { createDocumentsRoot } from './documents-root';
import { DocumentRefusedError, DocumentUnavailableError, errnoCode, InvalidDocumentError } from './errors';
import { createDocumentStore, referenceKeys, type DocumentStore, type StoredDocument } from './store';
import { createVerifiedStream } from './verified-stream';

/** Content type of a stored document whose metadata file is missing. */
const UNKNOWN_CONTENT_TYPE = 'application/octet-stream';

/** The store's folder (created by `check()`), the largest document `open` accepts, and how it confirms files. */
type LocalDocumentStoreOptions = Parameters<typeof createDocumentsRoot>[0];

/** What a metadata file and an owner's mark hold: one form, read by one parser. */
const metadataSchema = z.object({ contentType: z.string().min(1) });

/** The content type a metadata file or a mark holds; undefined when none (an empty mark, a damaged file). */
function recordedContentType(text: string): string | undefined {
  try {
    const parsed = metadataSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.contentType : undefined;
  } catch {
    return undefined;
  }
}

/** A file that is not there (or whose folder is not). */
const isMissing = (error: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes(errnoCode(error) ?? '');

/** The store's errors name the reference, never a host path. */
function asStoreError(error: unknown, ref: string): InvalidDocumentError | DocumentUnavailableError {
  if (error instanceof InvalidDocumentError) {
    const missing = error.fsCode === 'ENOENT' || error.fsCode === 'ENOTDIR';
    return new InvalidDocumentError({
      relativePath: ref,
      ...(error.fsCode !== undefined && { fsCode: error.fsCode }),
      message: missing
        ? `${ref}: is not in the document store`
        : `${ref}: the stored file is refused (${error.message.replace(/^sha256\/[0-9a-f]+: /, '')})`,
    });
  }
  const fsCode = errnoCode(error) ?? (error as { fsCode?: string } | null)?.fsCode;
  return new DocumentUnavailableError({
    relativePath: ref,
    ...(fsCode !== undefined && { fsCode }),
    message: `${ref}: the document store cannot be read now (${fsCode ?? 'unknown error'}); will retry`,
  });
}

function unavailable(what: string, error: unknown): DocumentUnavailableError {
  const fsCode = errnoCode(error) ?? 'unknown error';
  return new DocumentUnavailableError({ fsCode, message: `the document store cannot ${what} (${fsCode})` });
}

export function createLocalDocumentStore(options: LocalDocumentStoreOptions): DocumentStore {
  const root = resolve(options.root);
  const files = createDocumentsRoot({ ...options, root });
  const incoming = join(root, 'incoming');
  const objects = join(root, 'sha256');
  const ownersOf = (ref: string): string => join(root, referenceKeys(ref).owners);
  const dataOf = (ref: string): string => join(objects, referenceKeys(ref).hex);
  const metadataOf = (ref: string): string => `${dataOf(ref)}.json`;
  const markOf = (ref: string, owner: string): string => join(ownersOf(ref), owner);

  async function contentTypeOf(ref: string): Promise<string> {
    // The bytes are what is checked; a lost content type only loses a hint.
    const text = await readFile(metadataOf(ref), 'utf8').catch(() => '');
    return recordedContentType(text) ?? UNKNOWN_CONTENT_TYPE;
  }

  async function lastUsed(ref: string): Promise<number | null> {
    const object = await stat(dataOf(ref)).catch(() => null);
    if (object === null) return null;
    let latest = object.mtimeMs;
    const owners = await readdir(ownersOf(ref)).catch(() => [] as string[]);
    for (const owner of owners) {
      const marker = await stat(join(ownersOf(ref), owner)).catch(() => null);
      if (marker !== null) latest = Math.max(latest, marker.mtimeMs);
    }
    return latest;
  }

  return createDocumentStore<string>({
    kind: 'local',
    async check() {
      try {
        // Existing folders are enough: a worker only reads, possibly from a read-only mount.
        const [incomingInfo, objectsInfo] = await Promise.all([
          stat(incoming).catch(() => null),
          stat(objects).catch(() => null),
        ]);
        if (incomingInfo?.isDirectory() && objectsInfo?.isDirectory()) return;
        await mkdir(incoming, { recursive: true });
        await mkdir(objects, { recursive: true });
      } catch (error) {
        throw unavailable(`create its folders under ${root}`, error);
      }
    },
    async receive(input, hashing) {
      try {
        await mkdir(incoming, { recursive: true });
        await mkdir(objects, { recursive: true });
      } catch (error) {
        throw unavailable('create its folders', error);
      }
      const temporary = join(incoming, randomUUID());
      try {
        await pipeline(input.body, hashing, createWriteStream(temporary, { flags: 'wx', mode: 0o600 }));
      } catch (error) {
        await rm(temporary, { force: true });
        if (error instanceof DocumentRefusedError || errnoCode(error) === undefined) throw error;
        throw unavailable('write', error);
      }
      return temporary;
    },
    async place(temporary, ref, contentType) {
      // Read, written and renamed whether the bytes were stored before or not (the first content type kept).
      const first = recordedContentType(await readFile(metadataOf(ref), 'utf8').catch(() => ''));
      // The metadata first: a data file in place always has its content type beside it.
      await writeFile(`${temporary}.json`, JSON.stringify({ contentType: first ?? contentType }), {
        mode: 0o600,
      });
      await rename(`${temporary}.json`, metadataOf(ref));
      // Renamed over a copy already there (same file system: atomic).
      await rename(temporary, dataOf(ref));
    },
    async discard(temporary) {
      await rm(temporary, { force: true });
      await rm(`${temporary}.json`, { force: true });
    },
    async open(document) {
      const { ref } = document;
      let opened;
      try {
        opened = await files.open(referenceKeys(ref).data);
      } catch (error) {
        throw asStoreError(error, ref);
      }
      if (document.sizeBytes !== undefined && opened.sizeBytes !== document.sizeBytes) {
        await opened.close();
        throw new InvalidDocumentError({
          relativePath: ref,
          message: `${ref}: the stored document has ${opened.sizeBytes} bytes, not ${document.sizeBytes}`,
        });
      }
      const sizeBytes = opened.sizeBytes;
      const reference = { ref, sizeBytes, contentType: await contentTypeOf(ref) };
      return {
        reference,
        sizeBytes,
        openStream() {
          const verified = createVerifiedStream({ ref, sizeBytes });
          // The file stream's own errors (the file changed size, the handle was closed) fail the verified stream.
          pipelineWithCallback(opened.openStream(), verified, () => undefined);
          return verified;
        },
        close: () => opened.close(),
      };
    },
    storedContentType: async (ref) =>
      (await stat(dataOf(ref)).catch(() => null)) === null ? null : contentTypeOf(ref),
    async mark(ref, owner, contentType) {
      await mkdir(ownersOf(ref), { recursive: true });
      // Written aside and renamed over the mark (its time: now), so a claim never reads half of one.
      const temporary = join(incoming, `${randomUUID()}.mark`);
      try {
        await writeFile(temporary, JSON.stringify({ contentType }), { mode: 0o600 });
        await rename(temporary, markOf(ref, owner));
      } finally {
        await rm(temporary, { force: true });
      }
    },
    async readMark(ref, owner) {
      try {
        return { contentType: recordedContentType(await readFile(markOf(ref, owner), 'utf8')) };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async touch(ref, owner) {
      // Only the time changes: the content type the owner stored the bytes with stays.
      const now = new Date();
      await utimes(markOf(ref, owner), now, now);
    },
    lastUsed,
    async delete(ref) {
      await rm(dataOf(ref), { force: true });
      await rm(metadataOf(ref), { force: true });
      await rm(ownersOf(ref), { recursive: true, force: true });
    },
    async listStored() {
      let names: string[];
      try {
        names = await readdir(objects);
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return [];
        throw unavailable('be listed', error);
      }
      const stored: StoredDocument[] = [];
      for (const name of names) {
        const ref = `sha256:${name}`;
        if (!isDocumentReference(ref)) continue;
        const latest = await lastUsed(ref);
        if (latest !== null) stored.push({ ref, lastUsedAt: new Date(latest) });
      }
      return stored;
    },
    unavailable: (what, error) => unavailable(what, error),
  });
}
