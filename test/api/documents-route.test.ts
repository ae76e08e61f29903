/**
 * `POST /v1/documents` on a bare fastify instance over real HTTP (port 0), storing into a real local store and a
 * real S3-compatible server (versitygw on loopback).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import fastify, { type FastifyInstance } from 'fastify';
import { documentsRoutes, type UploadLimits } from '../../src/api/documents-plugin';
import {
  createLocalDocumentStore,
  createS3DocumentStore,
  type DocumentStore,
  type PutDocumentInput,
} from '../../src/documents';
import { problemSchema } from '../../src/http-contract';
import { documentUploadResponseSchema } from './api-server';
import { CleanupList } from '../../tools/stack';
import { startLocalS3, type LocalS3 } from '../../tools/stack/s3';
import { pollUntil } from '../../tools/dev/poll';

const MAX_BYTES = 256 * 1024;
const cleanups = new CleanupList();
let s3: LocalS3;
let scratch: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'badge-api-documents-'));
  cleanups.add('scratch', () => rmSync(scratch, { recursive: true, force: true }));
  s3 = await startLocalS3({ cleanups });
}, 600_000);
afterAll(() => cleanups.run());

/** Header naming the uploading client on this bare instance (the API takes it from the credentials). */
const CLIENT_HEADER = 'x-test-client';
const NO_LIMITS: UploadLimits = { maxConcurrent: 100, quotaBytes: 1024 ** 3, quotaWindowMs: 60_000 };

async function serve(
  store: DocumentStore,
  limits: UploadLimits = NO_LIMITS,
): Promise<{ app: FastifyInstance; url: string }> {
  const app = fastify();
  await app.register(documentsRoutes, {
    store,
    maxBytes: MAX_BYTES,
    uploads: limits,
    ownerOf: (request) => String(request.headers[CLIENT_HEADER] ?? 'client-a'),
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  cleanups.add('an API instance', () => app.close());
  return { app, url: `${address}/v1/documents` };
}

function multipartBody(parts: readonly { name: string; filename?: string; type?: string; data: Buffer }[]): {
  body: Buffer;
  contentType: string;
} {
  const boundary = `----badge${randomBytes(8).toString('hex')}`;
  const chunks = parts.flatMap((part) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${
        part.filename === undefined ? '' : `; filename="${part.filename}"`
      }\r\n${part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`}\r\n`,
    ),
    part.data,
    Buffer.from('\r\n'),
  ]);
  return {
    body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

async function post(
  url: string,
  body: Buffer,
  contentType: string,
  client = 'client-a',
): Promise<{ status: number; type: string; json: unknown; retryAfter: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': contentType, [CLIENT_HEADER]: client },
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    json: await response.json(),
    retryAfter: response.headers.get('retry-after'),
  };
}

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

async function storedBytes(store: DocumentStore, ref: string): Promise<Buffer> {
  const document = await store.open({ ref });
  const chunks: Buffer[] = [];
  try {
    await pipeline(
      document.openStream(),
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          chunks.push(chunk);
          callback();
        },
      }),
    );
  } finally {
    await document.close();
  }
  return Buffer.concat(chunks);
}

let count = 0;
const stores: readonly [string, () => DocumentStore][] = [
  [
    'local folder',
    () => {
      count += 1;
      return createLocalDocumentStore({ root: join(scratch, `store-${count}`), maxBytes: MAX_BYTES });
    },
  ],
  [
    'S3 (versitygw)',
    () => {
      count += 1;
      return createS3DocumentStore({
        bucket: s3.bucket,
        prefix: `api-${count}`,
        endpoint: s3.endpoint,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        maxBytes: MAX_BYTES,
      });
    },
  ],
];

describe.each(stores)('POST /v1/documents into the %s store', (_name, createStore) => {
  it('answers 201 with the reference, size and content type; the store holds exactly the bytes', async () => {
    const store = createStore();
    const { url } = await serve(store);
    const bytes = randomBytes(100_000);
    const { body, contentType } = multipartBody([
      { name: 'note', data: Buffer.from('ignored') },
      { name: 'file', filename: 'scan.pdf', type: 'application/pdf', data: bytes },
    ]);
    const answer = await post(url, body, contentType);
    expect(answer.status).toBe(201);
    const parsed = documentUploadResponseSchema.parse(answer.json);
    expect(parsed).toEqual({ ref: sha256(bytes), sizeBytes: bytes.length, contentType: 'application/pdf' });
    expect((await storedBytes(store, parsed.ref)).equals(bytes)).toBe(true);
    // The same bytes again: the same reference.
    expect((await post(url, body, contentType)).json).toEqual(parsed);
  });

  it('answers 413 as problem+json over the limit and stores nothing', async () => {
    const store = createStore();
    const { url } = await serve(store);
    const bytes = randomBytes(MAX_BYTES + 1);
    const { body, contentType } = multipartBody([{ name: 'file', filename: 'big.bin', data: bytes }]);
    const answer = await post(url, body, contentType);
    expect(answer.status).toBe(413);
    expect(answer.type).toContain('application/problem+json');
    expect(problemSchema.parse(answer.json)).toMatchObject({
      status: 413,
      errors: [expect.objectContaining({ field: 'file' })],
    });
    await store.check();
    await expect(store.open({ ref: sha256(bytes) })).rejects.toThrow('is not in the document store');
  });
});

describe('POST /v1/documents: refusals', () => {
  let url: string;
  beforeAll(async () => {
    ({ url } = await serve(
      createLocalDocumentStore({ root: join(scratch, 'refusals'), maxBytes: MAX_BYTES }),
    ));
  });

  it('415 for a body that is not multipart', async () => {
    const answer = await post(url, Buffer.from('{"a":1}'), 'application/json');
    expect(answer.status).toBe(415);
    expect(answer.type).toContain('application/problem+json');
    expect(problemSchema.parse(answer.json).status).toBe(415);
  });

  it('400 naming the field when there is no file part, or an empty one, or one of another name', async () => {
    const noFile = multipartBody([{ name: 'note', data: Buffer.from('x') }]);
    const empty = multipartBody([{ name: 'file', filename: 'a.pdf', data: Buffer.alloc(0) }]);
    const otherName = multipartBody([{ name: 'document', filename: 'a.pdf', data: Buffer.from('x') }]);
    for (const { body, contentType } of [noFile, empty, otherName]) {
      const answer = await post(url, body, contentType);
      expect(answer.status).toBe(400);
      expect(problemSchema.parse(answer.json)).toMatchObject({
        status: 400,
        errors: [expect.objectContaining({ field: 'file' })],
      });
    }
  });
});

describe('POST /v1/documents: limits per client', () => {
  it('takes at most API_UPLOAD_MAX_CONCURRENT uploads of one client at once (429 naming it); others go on', async () => {
    const store = createLocalDocumentStore({ root: join(scratch, 'concurrent'), maxBytes: MAX_BYTES });
    const { url } = await serve(store, { ...NO_LIMITS, maxConcurrent: 1 });
    const first = multipartBody([{ name: 'file', filename: 'a.bin', data: randomBytes(50_000) }]);
    // The first upload of client-a stays in progress: half its body sent, the rest held back.
    let answered = false;
    const request = httpRequest(url, {
      method: 'POST',
      headers: {
        'content-type': first.contentType,
        'content-length': String(first.body.length),
        [CLIENT_HEADER]: 'client-a',
      },
    });
    const firstAnswer = new Promise<number>((resolveStatus, reject) => {
      request.once('error', reject);
      request.once('response', (response) => {
        answered = true;
        response.resume();
        resolveStatus(response.statusCode ?? 0);
      });
    });
    request.write(first.body.subarray(0, 20_000));
    const second = multipartBody([{ name: 'file', filename: 'b.bin', data: randomBytes(1_000) }]);
    const refused = await pollUntil(
      () => post(url, second.body, second.contentType, 'client-a'),
      (answer) => answer.status === 429,
      { what: 'the second upload of client-a to be refused while the first is in progress' },
    );
    expect(problemSchema.parse(refused.json)).toMatchObject({
      code: 'too-many-uploads',
      detail: expect.stringContaining(
        'at most 1 uploads at once per client (API_UPLOAD_MAX_CONCURRENT)',
      ) as string,
    });
    expect(answered).toBe(false);
    // Another client is not held back by client-a's upload.
    expect((await post(url, second.body, second.contentType, 'client-b')).status).toBe(201);
    request.end(first.body.subarray(20_000));
    expect(await firstAnswer).toBe(201);
    // Done: client-a may upload again.
    expect((await post(url, second.body, second.contentType, 'client-a')).status).toBe(201);
  });

  it('counts the bytes of each client per window: beyond API_UPLOAD_QUOTA_BYTES, 429 naming it and nothing stored', async () => {
    const store = createLocalDocumentStore({ root: join(scratch, 'quota'), maxBytes: MAX_BYTES });
    const { url } = await serve(store, { ...NO_LIMITS, quotaBytes: 100_000, quotaWindowMs: 600_000 });
    const upload = (size: number, client: string) => {
      const { body, contentType } = multipartBody([
        { name: 'file', filename: 'a.bin', data: randomBytes(size) },
      ]);
      return post(url, body, contentType, client);
    };
    expect((await upload(60_000, 'client-a')).status).toBe(201);
    // This one passes the quota on its way in: refused, and not stored.
    const over = await upload(60_000, 'client-a');
    expect(over.status).toBe(429);
    expect(problemSchema.parse(over.json)).toMatchObject({
      code: 'upload-quota-exceeded',
      detail: expect.stringContaining(
        'at most 100000 bytes per 600 s per client (API_UPLOAD_QUOTA_BYTES per API_UPLOAD_QUOTA_WINDOW_MS)',
      ) as string,
    });
    expect(Number(over.retryAfter)).toBeGreaterThan(500);
    expect(await store.listStored()).toHaveLength(1);
    // Spent: even a small one waits for the window to end. Another client has its own quota.
    expect((await upload(10, 'client-a')).status).toBe(429);
    expect((await upload(60_000, 'client-b')).status).toBe(201);
  });
});

describe('POST /v1/documents: streamed', () => {
  it('hands the file to the store while the client is still sending it', async () => {
    let received = 0;
    const inner = createLocalDocumentStore({ root: join(scratch, 'streamed'), maxBytes: MAX_BYTES });
    const store: DocumentStore = {
      ...inner,
      put: (input: PutDocumentInput) => {
        const counting = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            received += chunk.length;
            callback(null, chunk);
          },
        });
        input.body.pipe(counting);
        return inner.put({ ...input, body: counting });
      },
    };
    const { url } = await serve(store);
    const bytes = randomBytes(200_000);
    const { body, contentType } = multipartBody([{ name: 'file', filename: 'a.bin', data: bytes }]);
    const half = 120_000;
    const answer = new Promise<{ status: number; text: string }>((resolveAnswer, reject) => {
      const request = httpRequest(url, {
        method: 'POST',
        headers: { 'content-type': contentType, 'content-length': String(body.length) },
      });
      request.once('error', reject);
      request.once('response', (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.once('end', () => resolveAnswer({ status: response.statusCode ?? 0, text }));
      });
      request.write(body.subarray(0, half));
      // The rest only once the store has seen bytes of the first part: the route did not wait for the whole body.
      void pollUntil(
        () => Promise.resolve(received),
        (bytesSeen) => bytesSeen > 0,
        { what: 'the store to receive bytes before the body was complete' },
      ).then(
        () => request.end(body.subarray(half)),
        (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
      );
    });
    const { status, text } = await answer;
    expect(status).toBe(201);
    expect(JSON.parse(text)).toMatchObject({ ref: sha256(bytes), sizeBytes: bytes.length });
  });
});
