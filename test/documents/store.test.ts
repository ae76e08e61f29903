/**
 * Both document stores against real storage: the local folder, and S3 through a real S3-compatible server
 * (versitygw) on loopback. The same cases run for each.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ListMultipartUploadsCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  createLocalDocumentStore,
  createS3DocumentStore,
  DocumentRefusedError,
  DocumentUnavailableError,
  InvalidDocumentError,
  type DocumentStore,
  type OpenedStoredDocument,
  type PutDocumentInput,
} from '../../src/documents';
import type { DocumentReference } from '../../src/documents/store';
import { CleanupList } from '../../tools/stack';
import { startLocalS3, type LocalS3 } from '../../tools/stack/s3';

const MIB = 1024 * 1024;
/** The client every document here is stored for. */
const OWNER = 'client-a';
const cleanups = new CleanupList();
let s3: LocalS3;
let scratch: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'badge-store-'));
  cleanups.add('scratch', () => rmSync(scratch, { recursive: true, force: true }));
  s3 = await startLocalS3({ cleanups, buckets: ['documents'] });
}, 600_000);
afterAll(() => cleanups.run());

/** One store under test, and what the tests do behind its back. */
interface StoreUnderTest {
  readonly store: DocumentStore;
  /** Every stored document's key, relative to the store's root or prefix (not its owners' marks). */
  readonly keys: () => Promise<string[]>;
  /** Every key, owners' marks included. */
  readonly allKeys: () => Promise<string[]>;
  /** Overwrites the stored bytes of a reference, as someone with access to the storage could. */
  readonly overwrite: (ref: string, bytes: Buffer) => Promise<void>;
}

let storeCount = 0;

function localStore(): StoreUnderTest {
  storeCount += 1;
  const root = join(scratch, `local-${storeCount}`);
  const store = createLocalDocumentStore({ root, maxBytes: 64 * MIB });
  const walk = (folder: string, prefix = ''): string[] => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return [];
    }
    return entries.flatMap((entry) =>
      entry.isDirectory()
        ? walk(join(folder, entry.name), `${prefix}${entry.name}/`)
        : [`${prefix}${entry.name}`],
    );
  };
  return {
    store,
    keys: () =>
      Promise.resolve(walk(root).filter((key) => !key.endsWith('.json') && !key.startsWith('owners/'))),
    allKeys: () => Promise.resolve(walk(root)),
    overwrite: (ref, bytes) => {
      writeFileSync(join(root, 'sha256', ref.slice('sha256:'.length)), bytes);
      return Promise.resolve();
    },
  };
}

function s3Store(): StoreUnderTest {
  storeCount += 1;
  const prefix = `store-${storeCount}/`;
  const store = createS3DocumentStore({
    bucket: s3.bucket,
    prefix,
    endpoint: s3.endpoint,
    region: s3.region,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    maxBytes: 64 * MIB,
    partSizeBytes: 5 * MIB,
  });
  const allKeys = async (): Promise<string[]> => {
    const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
    return (listed.Contents ?? []).map((object) => (object.Key ?? '').slice(prefix.length));
  };
  return {
    store,
    keys: async () => (await allKeys()).filter((key) => !key.startsWith('owners/')),
    allKeys,
    overwrite: async (ref, bytes) => {
      await s3.client.send(
        new PutObjectCommand({
          Bucket: s3.bucket,
          Key: `${prefix}sha256/${ref.slice('sha256:'.length)}`,
          Body: bytes,
        }),
      );
    },
  };
}

/** Stores `bytes` for OWNER, as `a/b`, with a limit of 1 MiB, unless `input` says otherwise. */
const putBytes = (
  store: DocumentStore,
  bytes: Buffer,
  input: Partial<Pick<PutDocumentInput, 'owner' | 'contentType' | 'maxBytes'>> = {},
): Promise<DocumentReference> =>
  store.put({ owner: OWNER, body: Readable.from([bytes]), contentType: 'a/b', maxBytes: MIB, ...input });

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** Reads a stream to the end; resolves with the bytes, or rejects with its error and what arrived before. */
async function drain(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(
    stream,
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
    }),
  );
  return Buffer.concat(chunks);
}

/** Counts what a consumer receives, and whether the stream ended or failed. */
async function consume(
  stream: NodeJS.ReadableStream,
): Promise<{ received: number; error: unknown; ended: boolean }> {
  let received = 0;
  let ended = false;
  const error = await new Promise<unknown>((resolveOutcome) => {
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    stream.once('end', () => {
      ended = true;
      resolveOutcome(undefined);
    });
    stream.once('error', resolveOutcome);
  });
  return { received, error, ended };
}

async function withOpened<T>(
  store: DocumentStore,
  ref: string,
  work: (document: OpenedStoredDocument) => Promise<T>,
): Promise<T> {
  const document = await store.open({ ref });
  try {
    return await work(document);
  } finally {
    await document.close();
  }
}

describe.each([
  ['local folder', localStore],
  ['S3 (versitygw)', s3Store],
])('document store: %s', (_name, create) => {
  it('stores by content: the reference is the SHA-256, and opening streams exactly the bytes, more than once', async () => {
    const { store, keys } = create();
    const bytes = randomBytes(3 * MIB + 17);
    const stored = await store.put({
      owner: OWNER,
      body: Readable.from([bytes.subarray(0, MIB), bytes.subarray(MIB)]),
      contentType: 'application/pdf',
      maxBytes: 8 * MIB,
    });
    expect(stored).toEqual({ ref: sha256(bytes), sizeBytes: bytes.length, contentType: 'application/pdf' });
    await withOpened(store, stored.ref, async (document) => {
      expect(document.sizeBytes).toBe(bytes.length);
      expect(document.reference).toEqual(stored);
      expect((await drain(document.openStream())).equals(bytes)).toBe(true);
      expect((await drain(document.openStream())).equals(bytes)).toBe(true);
    });
    expect(await store.inspect({ ref: stored.ref, sizeBytes: bytes.length })).toEqual(stored);
    expect(await keys()).toEqual([`sha256/${stored.ref.slice(7)}`]);
  });

  it('is idempotent by content: the same bytes twice give the same reference and one object', async () => {
    const { store, keys } = create();
    const bytes = randomBytes(100_000);
    const first = await putBytes(store, bytes, { contentType: 'image/png' });
    const second = await putBytes(store, bytes, { contentType: 'image/jpeg' });
    expect(second).toEqual(first);
    expect(await keys()).toEqual([`sha256/${first.ref.slice(7)}`]);
  });

  it('refuses a body over the limit and keeps nothing (also after parts were uploaded)', async () => {
    const { store, keys } = create();
    const small = putBytes(store, randomBytes(1001), { contentType: 'image/png', maxBytes: 1000 });
    await expect(small).rejects.toMatchObject({ reason: 'too-large', maxBytes: 1000 });
    await expect(small).rejects.toBeInstanceOf(DocumentRefusedError);
    // 12 MiB in 1 MiB chunks against a limit of 11 MiB: two 5 MiB parts are stored before the limit is hit.
    const chunks = Array.from({ length: 12 }, () => randomBytes(MIB));
    await expect(
      store.put({ owner: OWNER, body: Readable.from(chunks), contentType: 'image/png', maxBytes: 11 * MIB }),
    ).rejects.toMatchObject({ reason: 'too-large' });
    expect(await keys()).toEqual([]);
    const pending = await s3.client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }));
    expect(pending.Uploads ?? []).toEqual([]);
  });

  it('belongs to the clients that stored it: a claim by another, or of an unknown reference, is false', async () => {
    const { store } = create();
    const bytes = randomBytes(2_000);
    const stored = await putBytes(store, bytes, { owner: 'client-a' });
    expect(await store.claim(stored.ref, 'client-a')).toBe(true);
    expect(await store.claim(stored.ref, 'client-b')).toBe(false);
    expect(await store.claim(`sha256:${'0'.repeat(64)}`, 'client-a')).toBe(false);
    // The same bytes from client-b: one object, owned by both.
    await putBytes(store, bytes, { owner: 'client-b' });
    expect(await store.claim(stored.ref, 'client-b')).toBe(true);
    expect(await store.claim(stored.ref, 'client-a')).toBe(true);
    await expect(store.claim(stored.ref, '../client-a')).rejects.toThrow('is not a client id');
  });

  it('lists what it holds, and removes a document with its owners only when unused since the given time', async () => {
    const { store, allKeys } = create();
    const before = new Date(Date.now() - 60_000);
    const stored = await putBytes(store, randomBytes(3_000), { owner: 'client-a' });
    const listed = await store.listStored();
    expect(listed.map(({ ref }) => ref)).toEqual([stored.ref]);
    expect(listed[0]?.lastUsedAt.getTime()).toBeGreaterThan(before.getTime());
    // Used after `before`: kept.
    expect(await store.remove(stored.ref, { unusedSince: before })).toBe(false);
    expect(await store.claim(stored.ref, 'client-a')).toBe(true);
    expect(await store.remove(stored.ref, { unusedSince: new Date(Date.now() + 60_000) })).toBe(true);
    expect(await store.listStored()).toEqual([]);
    expect(await store.claim(stored.ref, 'client-a')).toBe(false);
    await expect(store.open({ ref: stored.ref })).rejects.toThrow('is not in the document store');
    expect((await allKeys()).filter((key) => !key.startsWith('incoming/'))).toEqual([]);
    expect(await store.remove(stored.ref, { unusedSince: new Date(Date.now() + 60_000) })).toBe(false);
  });

  it('refuses an empty body', async () => {
    const { store, keys } = create();
    await expect(
      store.put({ owner: OWNER, body: Readable.from([]), contentType: 'image/png', maxBytes: 10 }),
    ).rejects.toMatchObject({ reason: 'empty' });
    expect(await keys()).toEqual([]);
  });

  it('a missing or malformed reference is a final document error', async () => {
    const { store } = create();
    // check() creates the local store's folders (a missing folder is an unmounted volume: retryable).
    await store.check();
    const missing = `sha256:${'0'.repeat(64)}`;
    await expect(store.open({ ref: missing })).rejects.toBeInstanceOf(InvalidDocumentError);
    await expect(store.open({ ref: missing })).rejects.toThrow(`${missing}: is not in the document store`);
    await expect(store.open({ ref: 'sha256:xyz' })).rejects.toBeInstanceOf(InvalidDocumentError);
    await expect(store.open({ ref: '../../etc/passwd' })).rejects.toMatchObject({ code: 'INVALID_DOCUMENT' });
  });

  it('a size other than the reference says is refused at open', async () => {
    const { store } = create();
    const stored = await putBytes(store, randomBytes(500));
    await expect(store.open({ ref: stored.ref, sizeBytes: 501 })).rejects.toMatchObject({
      code: 'INVALID_DOCUMENT',
    });
  });

  it('an object changed after put (same size) fails the stream finally, and its last chunk is never delivered', async () => {
    const { store, overwrite } = create();
    const bytes = randomBytes(2 * MIB);
    const stored = await putBytes(store, bytes, { maxBytes: 4 * MIB });
    const changed = Buffer.from(bytes);
    changed[changed.length - 1] = (changed[changed.length - 1] ?? 0) ^ 0xff;
    await overwrite(stored.ref, changed);
    await withOpened(store, stored.ref, async (document) => {
      const outcome = await consume(document.openStream());
      expect(outcome.ended).toBe(false);
      expect(outcome.error).toBeInstanceOf(InvalidDocumentError);
      expect(outcome.error).toMatchObject({ code: 'INVALID_DOCUMENT', relativePath: stored.ref });
      expect(String(outcome.error)).toContain('no longer matches its reference');
      // The consumer (the platform upload) never held a complete body.
      expect(outcome.received).toBeLessThan(bytes.length);
    });
  });

  it('an object changed to another size is refused, final', async () => {
    const { store, overwrite } = create();
    const bytes = randomBytes(10_000);
    const stored = await putBytes(store, bytes);
    await withOpened(store, stored.ref, async (document) => {
      // Changed between open and read: the stream fails before the end.
      await overwrite(stored.ref, Buffer.concat([bytes, Buffer.from('x')]));
      const outcome = await consume(document.openStream());
      expect(outcome.ended).toBe(false);
      expect(['INVALID_DOCUMENT', 'DOCUMENT_UNAVAILABLE']).toContain(
        (outcome.error as { code?: string }).code,
      );
      expect(outcome.received).toBeLessThan(bytes.length + 1);
    });
    // Opened again, the new size is refused for good.
    await withOpened(store, stored.ref, async (document) => {
      const outcome = await consume(document.openStream());
      expect(outcome.error).toMatchObject({ code: 'INVALID_DOCUMENT' });
      expect(outcome.ended).toBe(false);
    });
  });

  it('a put of the right bytes heals a damaged copy', async () => {
    const { store, overwrite } = create();
    const bytes = randomBytes(4_000);
    const stored = await putBytes(store, bytes);
    await overwrite(stored.ref, randomBytes(4_000));
    await putBytes(store, bytes);
    await withOpened(store, stored.ref, async (document) => {
      expect((await drain(document.openStream())).equals(bytes)).toBe(true);
    });
  });

  it('check() passes for a usable store', async () => {
    await expect(create().store.check()).resolves.toBeUndefined();
  });
});

describe('S3 document store: unavailable storage', () => {
  it('a bucket that does not exist fails check() and put() as retryable, naming the bucket', async () => {
    const store = createS3DocumentStore({
      bucket: 'no-such-bucket',
      endpoint: s3.endpoint,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      maxBytes: MIB,
    });
    await expect(store.check()).rejects.toBeInstanceOf(DocumentUnavailableError);
    await expect(store.check()).rejects.toThrow('no-such-bucket');
    await expect(putBytes(store, Buffer.from('x'), { maxBytes: 10 })).rejects.toBeInstanceOf(
      DocumentUnavailableError,
    );
  });

  it('wrong credentials are retryable, and no message holds the secret', async () => {
    const store = createS3DocumentStore({
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: 'wrong-secret-value' },
      maxBytes: MIB,
    });
    const failure = await store.open({ ref: `sha256:${'1'.repeat(64)}` }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DocumentUnavailableError);
    expect(String((failure as Error).message)).not.toContain('wrong-secret-value');
  });
});
