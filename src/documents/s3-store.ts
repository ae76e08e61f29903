/**
 * The document store in S3-compatible object storage: objects `<prefix>sha256/<hex>`, each with its content
 * type and a `sha256` metadata entry, and an empty object `<prefix>owners/<hex>/<client>` for each client
 * that stored it, whose metadata entry `content-type` is the content type that client stored it with (none on
 * a mark written before marks recorded one) and whose LastModified is when that client last stored or claimed
 * it. An upload streams into `<prefix>incoming/<uuid>` (a multipart upload for large bodies, parts of
 * `partSizeBytes`, at most two of them uploading at once), is hashed on the way, and is then copied to its
 * content address on the server (no second transfer) and the temporary object deleted. A body over the limit
 * aborts the upload: nothing is kept.
 *
 * Opening asks for the object's size; each stream reads the object again and is checked against the reference
 * on its way (see `verified-stream.ts`).
 */
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type HeadObjectCommandOutput,
  type _Object,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { S3_TIMEOUT_DEFAULT_MS, type DocumentStoreConfig } from '../config';
import { isDocumentReference } from '../contract';
import { DocumentUnavailableError, InvalidDocumentError } from './errors';
import { createDocumentStore, referenceKeys, type DocumentStore, type StoredDocument } from './store';
import { createVerifiedStream, mismatchError } from './verified-stream';

/**
 * The `DOCUMENT_STORE_S3_*` settings (`src/config.ts` says what each means and its default; without credentials
 * the SDK's standard chain is used), and what the process adds.
 */
interface S3DocumentStoreOptions extends Omit<
  Extract<DocumentStoreConfig, { kind: 's3' }>,
  'kind' | 'allowInsecureHttp' | 'timeoutMs'
> {
  /** @default {@link S3_TIMEOUT_DEFAULT_MS} */
  readonly timeoutMs?: number;
  /** Largest document `open` accepts (the worker's `MAX_DOCUMENT_BYTES`). */
  readonly maxBytes: number;
  /** Size of one part of a multipart upload (at least 5 MiB, S3's minimum). @default 5 MiB */
  readonly partSizeBytes?: number;
  /** A client of the caller's (tests); the connection options above are then ignored. */
  readonly client?: S3Client;
}

const MIB = 1024 * 1024;

/** Content type of a stored object that has none. */
const UNKNOWN_CONTENT_TYPE = 'application/octet-stream';

/**
 * The metadata entry of a mark holding its owner's content type. Not the mark's own Content-Type: S3 gives
 * every object one (`binary/octet-stream` or `application/octet-stream` when none is sent), so an old empty
 * mark could not be told from a client's upload of that type, which would then get the first storer's.
 */
const MARK_CONTENT_TYPE = 'content-type';

interface S3ErrorShape {
  readonly name?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

function statusOf(error: unknown): number | undefined {
  const status = (error as S3ErrorShape | null)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

function nameOf(error: unknown): string {
  const name = (error as S3ErrorShape | null)?.name;
  return typeof name === 'string' ? name : 'unknown error';
}

function isNotFound(error: unknown): boolean {
  const name = nameOf(error);
  return name === 'NotFound' || name === 'NoSuchKey' || statusOf(error) === 404;
}

/** What S3 answered, for messages: the error's name and status, never a signed URL or a credential. */
function describe(error: unknown): string {
  const status = statusOf(error);
  return status === undefined ? nameOf(error) : `${nameOf(error)}, HTTP ${status}`;
}

function unavailable(what: string, error: unknown, ref?: string): DocumentUnavailableError {
  return new DocumentUnavailableError({
    ...(ref !== undefined && { relativePath: ref }),
    message: `${ref === undefined ? '' : `${ref}: `}the document store cannot ${what} now (${describe(error)}); will retry`,
  });
}

function notInStore(ref: string): InvalidDocumentError {
  return new InvalidDocumentError({ relativePath: ref, message: `${ref}: is not in the document store` });
}

export function createS3DocumentStore(options: S3DocumentStoreOptions): DocumentStore {
  const { bucket, maxBytes } = options;
  const prefix =
    options.prefix === undefined || options.prefix === '' ? '' : `${options.prefix.replace(/\/+$/, '')}/`;
  const region = options.region ?? (options.endpoint === undefined ? undefined : 'us-east-1');
  const { accessKeyId, secretAccessKey, sessionToken } = options.credentials ?? {};
  const timeoutMs = options.timeoutMs ?? S3_TIMEOUT_DEFAULT_MS;
  const client =
    options.client ??
    new S3Client({
      ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
      ...(region !== undefined && { region }),
      forcePathStyle: options.forcePathStyle ?? options.endpoint !== undefined,
      ...(accessKeyId !== undefined &&
        secretAccessKey !== undefined && { credentials: { accessKeyId, secretAccessKey, sessionToken } }),
      // Retries belong to the activity's retry policy, which knows how long a document may take.
      maxAttempts: 2,
      // A stalled store fails the call instead of holding an upload, a PUT or the collector for ever. Inactivity,
      // not a deadline: a large part streams for as long as it moves.
      requestHandler: { connectionTimeout: timeoutMs, socketTimeout: timeoutMs },
    });
  // The smallest part S3 takes: the parts in memory (queueSize + the one filling) are what an upload costs.
  const partSize = Math.max(options.partSizeBytes ?? 5 * MIB, 5 * MIB);
  const keyOf = (ref: string): string => `${prefix}${referenceKeys(ref).data}`;
  const markerOf = (ref: string, owner: string): string => `${prefix}${referenceKeys(ref).owners}${owner}`;

  /** Every object under `keyPrefix`, page by page. */
  async function listAll(keyPrefix: string): Promise<_Object[]> {
    const objects: _Object[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: keyPrefix, ContinuationToken: token }),
      );
      objects.push(...(page.Contents ?? []));
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return objects;
  }

  /** What S3 knows of an object, or null when there is no such object. */
  const found = (key: string): Promise<HeadObjectCommandOutput | null> =>
    client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).catch((error: unknown) => {
      if (isNotFound(error)) return null;
      throw error;
    });

  async function head(ref: string): Promise<HeadObjectCommandOutput> {
    try {
      return await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(ref) }));
    } catch (error) {
      if (isNotFound(error)) throw notInStore(ref);
      throw unavailable('be read', error, ref);
    }
  }

  /** Writes `owner`'s mark of `ref` (its time: now), recording the content type it stored the bytes with. */
  async function writeMark(ref: string, owner: string, contentType: string | undefined): Promise<void> {
    await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: markerOf(ref, owner),
        Body: '',
        Metadata: contentType === undefined ? {} : { [MARK_CONTENT_TYPE]: contentType },
      }),
    );
  }

  async function deleteQuietly(key: string): Promise<void> {
    // Best effort: an incoming object left behind holds no reference and can be expired by a lifecycle rule.
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })).catch(() => undefined);
  }

  return createDocumentStore<string>({
    kind: 's3',
    async check() {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch (error) {
        throw new DocumentUnavailableError({
          message: `the document store's bucket ${bucket} cannot be used (${describe(error)})`,
        });
      }
    },
    async receive(input, hashing) {
      const temporary = `${prefix}incoming/${randomUUID()}`;
      let bodyError: Error | undefined;
      pipeline(input.body, hashing, (error) => {
        if (error) bodyError = error;
      });
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: temporary, Body: hashing, ContentType: input.contentType },
        partSize,
        // Parts uploaded at once, each held in memory.
        queueSize: 2,
        // A failed multipart upload is aborted, its parts deleted.
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        // Stop reading the body: the caller (the API) answers and closes the connection.
        hashing.destroy();
        await deleteQuietly(temporary);
        // The body's own failure (over the limit, a client that went away) says more than the SDK's.
        if (bodyError !== undefined) throw bodyError;
        throw unavailable('store the document', error);
      }
      if (bodyError !== undefined) {
        await deleteQuietly(temporary);
        throw bodyError;
      }
      return temporary;
    },
    async place(temporary, ref, contentType) {
      // Copied whether the bytes were stored before or not (one copy, and the first content type stays), on the
      // server: the bytes travel once. A damaged copy is replaced by this one.
      const existing = await found(keyOf(ref));
      await client.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: keyOf(ref),
          CopySource: `${bucket}/${temporary.split('/').map(encodeURIComponent).join('/')}`,
          MetadataDirective: 'REPLACE',
          ContentType: existing?.ContentType ?? contentType,
          Metadata: { sha256: referenceKeys(ref).hex },
        }),
      );
    },
    discard: deleteQuietly,
    async open(document) {
      const { ref } = document;
      const found = await head(ref);
      const sizeBytes = found.ContentLength ?? -1;
      if (sizeBytes <= 0) {
        throw new InvalidDocumentError({
          relativePath: ref,
          message: `${ref}: the stored document is empty`,
        });
      }
      if (document.sizeBytes !== undefined && sizeBytes !== document.sizeBytes) {
        throw mismatchError(ref, `${sizeBytes} bytes instead of ${document.sizeBytes}`);
      }
      if (sizeBytes > maxBytes) {
        throw new InvalidDocumentError({
          relativePath: ref,
          message: `${ref}: is ${sizeBytes} bytes, above the limit of ${maxBytes} bytes`,
        });
      }
      const reference = {
        ref,
        sizeBytes,
        contentType: found.ContentType ?? UNKNOWN_CONTENT_TYPE,
      };
      const reads = new Set<AbortController>();
      let closed = false;
      return {
        reference,
        sizeBytes,
        openStream() {
          const verified = createVerifiedStream({ ref, sizeBytes });
          if (closed) {
            verified.destroy(
              new DocumentUnavailableError({ relativePath: ref, message: `${ref}: the document was closed` }),
            );
            return verified;
          }
          const abort = new AbortController();
          reads.add(abort);
          verified.once('close', () => {
            reads.delete(abort);
            abort.abort();
          });
          client
            .send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(ref) }), { abortSignal: abort.signal })
            .then(
              (answer) => {
                const body = answer.Body as Readable | undefined;
                if (verified.destroyed) {
                  body?.destroy();
                  return;
                }
                if (body === undefined) {
                  verified.destroy(unavailable('be read (no body)', new Error('no body'), ref));
                  return;
                }
                if (answer.ContentLength !== undefined && answer.ContentLength !== sizeBytes) {
                  // Changed since open: fail before a single byte passes.
                  body.destroy();
                  verified.destroy(
                    mismatchError(ref, `${answer.ContentLength} bytes instead of ${sizeBytes}`),
                  );
                  return;
                }
                // Not `pipeline`: it would pass the body's raw error on. A broken connection mid-read is no
                // mismatch, and says so (retryable).
                body.once('error', (error) => {
                  if (!verified.destroyed) verified.destroy(unavailable('be read', error, ref));
                });
                verified.once('close', () => body.destroy());
                body.pipe(verified);
              },
              (error: unknown) => {
                if (verified.destroyed) return;
                verified.destroy(isNotFound(error) ? notInStore(ref) : unavailable('be read', error, ref));
              },
            );
          return verified;
        },
        close() {
          closed = true;
          for (const abort of reads) abort.abort();
          reads.clear();
          return Promise.resolve();
        },
      };
    },
    async storedContentType(ref) {
      const object = await found(keyOf(ref));
      return object === null ? null : (object.ContentType ?? UNKNOWN_CONTENT_TYPE);
    },
    mark: writeMark,
    async readMark(ref, owner) {
      const mark = await found(markerOf(ref, owner));
      return mark === null ? null : { contentType: mark.Metadata?.[MARK_CONTENT_TYPE] };
    },
    // S3 cannot change an object's time: the mark is written again, with what it recorded.
    touch: (ref, owner, mark) => writeMark(ref, owner, mark.contentType),
    async lastUsed(ref) {
      const object = await head(ref).catch((error: unknown) => {
        if (error instanceof InvalidDocumentError) return null;
        throw error;
      });
      if (object === null) return null;
      const markers = await listAll(`${prefix}${referenceKeys(ref).owners}`);
      return Math.max(...[object, ...markers].map((found) => found.LastModified?.getTime() ?? 0));
    },
    async delete(ref) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(ref) }));
      for (const marker of await listAll(`${prefix}${referenceKeys(ref).owners}`)) {
        if (marker.Key !== undefined) await deleteQuietly(marker.Key);
      }
    },
    async listStored() {
      try {
        const objects = await listAll(`${prefix}sha256/`);
        const markers = await listAll(`${prefix}owners/`);
        const latest = new Map<string, number>();
        for (const object of objects) {
          const ref = `sha256:${(object.Key ?? '').slice(`${prefix}sha256/`.length)}`;
          if (isDocumentReference(ref)) latest.set(ref, object.LastModified?.getTime() ?? 0);
        }
        for (const marker of markers) {
          const ref = `sha256:${(marker.Key ?? '').slice(`${prefix}owners/`.length).split('/')[0] ?? ''}`;
          const known = latest.get(ref);
          if (known !== undefined) latest.set(ref, Math.max(known, marker.LastModified?.getTime() ?? 0));
        }
        return [...latest].map(([ref, time]): StoredDocument => ({ ref, lastUsedAt: new Date(time) }));
      } catch (error) {
        throw unavailable('be listed', error);
      }
    },
    unavailable,
  });
}
