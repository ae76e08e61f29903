/**
 * Both document stores against real storage: the local folder, and S3 through a real S3-compatible server
 * (versitygw) on loopback. The same cases run for each.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
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
import { startStalledServer } from '../helpers/stalled-server';

const MIB = 1024 * 1024;
/** The client every document here is stored for. */
const OWNER = 'client-a';
const cleanups = new CleanupList();
let s3: LocalS3;
let scratch: string;
/** The S3 server's folder: versitygw keeps each object as a file there, so a test can set its time. */
let s3DataDir: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'badge-store-'));
  cleanups.add('scratch', () => rmSync(scratch, { recursive: true, force: true }));
  s3DataDir = join(scratch, 's3');
  s3 = await startLocalS3({ cleanups, buckets: ['documents'], dataDir: s3DataDir });
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
  /** Writes `owner`'s mark of a reference as marks were written before they recorded a content type: empty. */
  readonly writeOldMark: (ref: string, owner: string) => Promise<void>;
  /** Sets the time of a reference's object and of each of its marks (S3: their LastModified) to `time`. */
  readonly setTimes: (ref: string, time: Date) => void;
  /** The calls to its storage (file system functions, S3 commands) that `work` makes, in order. */
  readonly callsOf: (work: () => Promise<unknown>) => Promise<string[]>;
}

/**
 * The file system functions the local store calls, watched (they still do their work): which the store calls
 * under its root, in order, is what a caller waiting for it could tell by the time it takes.
 */
const FILE_FUNCTIONS = [
  'mkdir',
  'readdir',
  'readFile',
  'rename',
  'rm',
  'stat',
  'utimes',
  'writeFile',
] as const;
// The module object the store's own imports read from (not a copy, as `import * as` would give).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const fileSystem = require('node:fs/promises') as Record<
  (typeof FILE_FUNCTIONS)[number],
  (...args: unknown[]) => unknown
>;
const fileSpies = FILE_FUNCTIONS.map((name) => ({ name, spy: jest.spyOn(fileSystem, name) }));

/** The file system calls `work` makes under `root`, in order. */
async function fileCallsOf(root: string, work: () => Promise<unknown>): Promise<string[]> {
  const before = new Map(fileSpies.map(({ name, spy }) => [name, spy.mock.calls.length]));
  await work();
  return fileSpies
    .flatMap(({ name, spy }) =>
      spy.mock.calls.slice(before.get(name)).map((args, index) => ({
        name,
        path: String(args[0]),
        order: spy.mock.invocationCallOrder[(before.get(name) ?? 0) + index] ?? 0,
      })),
    )
    .filter(({ path }) => path.startsWith(root))
    .sort((a, b) => a.order - b.order)
    .map(({ name }) => name);
}

/** Sets the time of the files of `ref`'s object and marks under `folder` (a store's root, a bucket's prefix). */
function setFileTimes(folder: string, ref: string, time: Date): void {
  const hex = ref.slice('sha256:'.length);
  const marks = join(folder, 'owners', hex);
  for (const file of [join(folder, 'sha256', hex), ...readdirSync(marks).map((name) => join(marks, name))]) {
    utimesSync(file, time, time);
  }
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
    writeOldMark: (ref, owner) => {
      const marks = join(root, 'owners', ref.slice('sha256:'.length));
      mkdirSync(marks, { recursive: true });
      writeFileSync(join(marks, owner), '');
      return Promise.resolve();
    },
    setTimes: (ref, time) => setFileTimes(root, ref, time),
    callsOf: (work) => fileCallsOf(root, work),
  };
}

function s3Store(): StoreUnderTest {
  storeCount += 1;
  const prefix = `store-${storeCount}/`;
  // The store's client as it would build it, with every command it sends recorded.
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    maxAttempts: 2,
  });
  const commands: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      commands.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'initialize' },
  );
  const store = createS3DocumentStore({
    bucket: s3.bucket,
    prefix,
    client,
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
    writeOldMark: async (ref, owner) => {
      await s3.client.send(
        new PutObjectCommand({
          Bucket: s3.bucket,
          Key: `${prefix}owners/${ref.slice('sha256:'.length)}/${owner}`,
          Body: '',
        }),
      );
    },
    setTimes: (ref, time) => setFileTimes(join(s3DataDir, s3.bucket, prefix), ref, time),
    callsOf: async (work) => {
      const before = commands.length;
      await work();
      return commands.slice(before);
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
    // Each put answers the type it gave; the object keeps its first, and the owner's mark its latest.
    expect(second).toEqual({ ...first, contentType: 'image/jpeg' });
    expect(await keys()).toEqual([`sha256/${first.ref.slice(7)}`]);
    expect((await store.inspect({ ref: first.ref })).contentType).toBe('image/png');
    expect(await store.claim(first.ref, OWNER)).toEqual({ contentType: 'image/jpeg' });
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
    expect(await store.claim(stored.ref, 'client-a')).toEqual({ contentType: 'a/b' });
    expect(await store.claim(stored.ref, 'client-b')).toBeNull();
    expect(await store.claim(`sha256:${'0'.repeat(64)}`, 'client-a')).toBeNull();
    // The same bytes from client-b: one object, owned by both.
    await putBytes(store, bytes, { owner: 'client-b' });
    expect(await store.claim(stored.ref, 'client-b')).toEqual({ contentType: 'a/b' });
    expect(await store.claim(stored.ref, 'client-a')).toEqual({ contentType: 'a/b' });
    await expect(store.claim(stored.ref, '../client-a')).rejects.toThrow('is not a client id');
  });

  it('takes the same calls to storage whether another client stored the document or not, to put or to claim it', async () => {
    const { store, callsOf } = create();
    const theirs = randomBytes(3_000);
    await putBytes(store, theirs, { owner: 'client-b', contentType: 'image/png' });
    // Bytes client-b stored, and bytes nobody did: client-a cannot tell them apart by what its put costs.
    const putTheirs = await callsOf(() => putBytes(store, theirs, { owner: 'client-a' }));
    const putNew = await callsOf(() => putBytes(store, randomBytes(3_000), { owner: 'client-a' }));
    expect(putTheirs).toEqual(putNew);
    expect(putTheirs.length).toBeGreaterThan(0);
    // Nor client-c a claim of client-b's document from one of a document nobody stored.
    const claimTheirs = await callsOf(() => store.claim(sha256(theirs), 'client-c'));
    const claimUnknown = await callsOf(() => store.claim(sha256(randomBytes(3_000)), 'client-c'));
    expect(claimTheirs).toEqual(claimUnknown);
    expect(claimTheirs.length).toBeGreaterThan(0);
    // The first content type stays the object's; each owner keeps its own.
    expect((await store.inspect({ ref: sha256(theirs) })).contentType).toBe('image/png');
    expect(await store.claim(sha256(theirs), 'client-a')).toEqual({ contentType: 'a/b' });
  });

  it("answers each owner the content type it stored the same bytes with, never another's; an old empty mark the object's", async () => {
    const { store, keys, writeOldMark } = create();
    const bytes = randomBytes(2_500);
    const ofA = await putBytes(store, bytes, { owner: 'client-a', contentType: 'image/jpeg' });
    const ofB = await putBytes(store, bytes, { owner: 'client-b', contentType: 'x-probe/guess' });
    expect(ofA).toEqual({ ref: sha256(bytes), sizeBytes: bytes.length, contentType: 'image/jpeg' });
    // B's put tells nothing of A's: its own type back, as if it were the first.
    expect(ofB).toEqual({ ...ofA, contentType: 'x-probe/guess' });
    expect(await store.claim(ofA.ref, 'client-b')).toEqual({ contentType: 'x-probe/guess' });
    expect(await store.claim(ofA.ref, 'client-a')).toEqual({ contentType: 'image/jpeg' });
    // One object, keeping its first type: what the worker uses for a reference named without one.
    expect(await keys()).toEqual([`sha256/${ofA.ref.slice(7)}`]);
    expect((await store.inspect({ ref: ofA.ref })).contentType).toBe('image/jpeg');
    // A mark written before marks recorded a content type still claims the document, with the object's type.
    await writeOldMark(ofA.ref, 'client-c');
    expect(await store.claim(ofA.ref, 'client-c')).toEqual({ contentType: 'image/jpeg' });
    expect(await store.claim(ofA.ref, 'client-c')).toEqual({ contentType: 'image/jpeg' });
  });

  it('a claim refreshes the last use and keeps the content type the owner stored the bytes with', async () => {
    const { store, setTimes } = create();
    const stored = await putBytes(store, randomBytes(1_500), { owner: 'client-a', contentType: 'image/png' });
    // Whole seconds: S3's LastModified has no finer grain.
    const longAgo = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    setTimes(stored.ref, longAgo);
    expect(await store.listStored()).toEqual([{ ref: stored.ref, lastUsedAt: longAgo }]);

    const beforeClaim = Math.floor(Date.now() / 1000) * 1000;
    expect(await store.claim(stored.ref, 'client-a')).toEqual({ contentType: 'image/png' });
    const [listed] = await store.listStored();
    expect(listed?.lastUsedAt.getTime()).toBeGreaterThanOrEqual(beforeClaim);
    // Used since: the collector's second look keeps it.
    expect(await store.remove(stored.ref, { unusedSince: new Date(longAgo.getTime() + 60_000) })).toBe(false);
    // The refreshed mark still records the owner's type.
    expect(await store.claim(stored.ref, 'client-a')).toEqual({ contentType: 'image/png' });
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
    expect(await store.claim(stored.ref, 'client-a')).toEqual({ contentType: 'a/b' });
    expect(await store.remove(stored.ref, { unusedSince: new Date(Date.now() + 60_000) })).toBe(true);
    expect(await store.listStored()).toEqual([]);
    expect(await store.claim(stored.ref, 'client-a')).toBeNull();
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

  it('a store that accepts connections and never answers fails each call as retryable after DOCUMENT_STORE_S3_TIMEOUT_MS', async () => {
    const stalled = await startStalledServer();
    cleanups.add('stalled S3', () => stalled.close());
    const store = createS3DocumentStore({
      bucket: 'documents',
      endpoint: stalled.url,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      maxBytes: MIB,
      timeoutMs: 200,
    });
    await expect(store.check()).rejects.toBeInstanceOf(DocumentUnavailableError);
    await expect(putBytes(store, randomBytes(100))).rejects.toBeInstanceOf(DocumentUnavailableError);
    await expect(store.claim(sha256(randomBytes(100)), OWNER)).rejects.toBeInstanceOf(
      DocumentUnavailableError,
    );
    await expect(store.listStored()).rejects.toBeInstanceOf(DocumentUnavailableError);
    expect(stalled.accepted()).toBeGreaterThan(0);
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
