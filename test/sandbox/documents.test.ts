import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { BADGE_ONLY_USER, PLATFORM_PATHS } from '../../src/sandbox';
import type { DocumentResponse } from '../../src/sandbox';
import { waitUntil } from '../../tools/dev/poll';
import { useSandbox, withSandbox } from './fixture';
import {
  authHeaders,
  createOrderId,
  errorOf,
  generatedFile,
  http,
  sha256,
  smallFile,
  tokenFor,
  uploadDocument,
  uploadForm,
} from './helpers';
import type { UploadParts } from './helpers';

const sandbox = useSandbox({ signIn: true, resetEach: 'state' });
let orderId: string;

beforeEach(async () => {
  await sandbox.control.setRules({
    acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf'],
    maxUploadBytes: 20 * 1024 * 1024,
  });
  orderId = await createOrderId(sandbox.baseUrl, sandbox.token);
});

function validParts(overrides: Partial<UploadParts> = {}): UploadParts {
  return {
    document_type: 'badge',
    document_type_id: orderId,
    document_owner: '4711',
    file: smallFile(),
    ...overrides,
  };
}

describe('document upload', () => {
  it.each([
    ['fields before the file', false],
    ['the file before the fields', true],
  ])('answers 201 with links, size and sha256 (%s)', async (_case, fileFirst) => {
    const content = Buffer.from('%PDF-1.7 a tiny application form');
    const response = await uploadDocument(
      sandbox.baseUrl,
      sandbox.token,
      validParts({ fileFirst, file: { content, filename: 'form.pdf', contentType: 'application/pdf' } }),
    );
    expect(response.status).toBe(201);
    const body = response.data as DocumentResponse;
    const self = `${sandbox.baseUrl}${PLATFORM_PATHS.documents}/doc-1`;
    expect(body).toEqual({
      id: 'doc-1',
      document_type: 'badge',
      document_type_id: Number(orderId),
      document_owner: '4711',
      filename: 'form.pdf',
      content_type: 'application/pdf',
      size: content.length,
      sha256: sha256(content),
      links: {
        original: `${self}/original`,
        thumbnail: `${self}/thumbnail`,
        download: expect.stringMatching(
          new RegExp(`^${self}/download\\?signature=[0-9a-f]{64}&expires=\\d+$`),
        ) as string,
      },
    });
    const state = await sandbox.control.state();
    expect(state.documents).toEqual([
      expect.objectContaining({
        id: 'doc-1',
        size: content.length,
        sha256: sha256(content),
        user_id: '4711',
      }),
    ]);
  });

  it('derives the content type from the filename when the part says octet-stream', async () => {
    const response = await uploadDocument(
      sandbox.baseUrl,
      sandbox.token,
      validParts({
        file: { content: Buffer.from('png'), filename: 'x.png', contentType: 'application/octet-stream' },
      }),
    );
    expect(response.status).toBe(201);
    expect((response.data as DocumentResponse).content_type).toBe('image/png');
  });

  it.each<[string, Partial<UploadParts>, string]>([
    ['a document_type other than badge', { document_type: 'vehicle' }, 'document_type'],
    ['no document_type', { document_type: undefined }, 'document_type'],
    ['no document_type_id', { document_type_id: undefined }, 'document_type_id'],
    ['a document_type_id that is no order', { document_type_id: 9999 }, 'document_type_id'],
    ['a non-numeric document_type_id', { document_type_id: 'abc' }, 'document_type_id'],
    ['no document_owner', { document_owner: undefined }, 'document_owner'],
    ['no file', { file: undefined }, 'file'],
    ['an empty file', { file: { content: Buffer.alloc(0), filename: 'empty.jpg' } }, 'file'],
    [
      'a content type not accepted',
      { file: { content: Buffer.from('x'), filename: 'a.gif', contentType: 'image/gif' } },
      'file',
    ],
    ['a file part with another name', { filePartName: 'upload' }, 'file'],
  ])('answers 422 for %s, naming the field', async (_case, overrides, field) => {
    const response = await uploadDocument(sandbox.baseUrl, sandbox.token, validParts(overrides));
    expect(response.status).toBe(422);
    expect(errorOf(response)).toMatchObject({ status: 422, code: 'validation_failed', field });
    expect(errorOf(response).message).toContain(field);
    expect((await sandbox.control.state()).documents).toEqual([]);
  });

  it("answers 422 when document_type_id is another user's order", async () => {
    const otherToken = await tokenFor(sandbox.baseUrl, BADGE_ONLY_USER);
    const foreignOrder = await createOrderId(sandbox.baseUrl, otherToken);
    const response = await uploadDocument(
      sandbox.baseUrl,
      sandbox.token,
      validParts({ document_type_id: foreignOrder }),
    );
    expect(response.status).toBe(422);
    expect(errorOf(response).field).toBe('document_type_id');
  });

  it('answers 422 for a body that is not multipart', async () => {
    const response = await http.post(
      `${sandbox.baseUrl}${PLATFORM_PATHS.documents}`,
      { document_type: 'badge' },
      { headers: authHeaders(sandbox.token) },
    );
    expect(response.status).toBe(422);
    expect(errorOf(response)).toMatchObject({ code: 'validation_failed' });
  });

  it('enforces the size limit while streaming and accepts the same file once the rule is relaxed', async () => {
    await sandbox.control.setRules({ maxUploadBytes: 1024 * 1024 });
    const file = generatedFile(1024 * 1024 + 1);
    const tooLarge = await uploadDocument(
      sandbox.baseUrl,
      sandbox.token,
      validParts({ file: { content: file.stream(), knownLength: 1024 * 1024 + 1 } }),
    );
    expect(tooLarge.status).toBe(422);
    expect(errorOf(tooLarge)).toMatchObject({ code: 'validation_failed', field: 'file' });
    expect(errorOf(tooLarge).message).toContain('1048576');

    await sandbox.control.setRules({ maxUploadBytes: 2 * 1024 * 1024 });
    const accepted = await uploadDocument(
      sandbox.baseUrl,
      sandbox.token,
      validParts({ file: { content: file.stream(), knownLength: 1024 * 1024 + 1 } }),
    );
    expect(accepted.status).toBe(201);
    expect(accepted.data).toMatchObject({ size: 1024 * 1024 + 1, sha256: file.sha256 });
  });

  it('rejects a far larger upload early with 422 (answer before the client finished sending)', async () => {
    await sandbox.control.setRules({ maxUploadBytes: 64 * 1024 });
    const size = 30 * 1024 * 1024;
    const response = await uploadDocument(
      sandbox.baseUrl,
      sandbox.token,
      validParts({ file: { content: generatedFile(size).stream(), knownLength: size } }),
    );
    expect(response.status).toBe(422);
    expect(errorOf(response).field).toBe('file');
  });

  it('accepts a content type once it is added to the rules at run time', async () => {
    const gif = { content: Buffer.from('GIF89a'), filename: 'a.gif', contentType: 'image/gif' };
    const uploadGif = () => uploadDocument(sandbox.baseUrl, sandbox.token, validParts({ file: gif }));
    expect((await uploadGif()).status).toBe(422);
    const rules = await sandbox.control.setRules({
      acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf', 'image/gif'],
    });
    expect(rules.acceptedContentTypes).toContain('image/gif');
    expect((await uploadGif()).status).toBe(201);
  });

  it('streams a 50 MB upload and records its exact size and sha256', async () => {
    await sandbox.control.setRules({ maxUploadBytes: 64 * 1024 * 1024 });
    const size = 50 * 1024 * 1024;
    const file = generatedFile(size);
    const response = await uploadDocument(
      sandbox.baseUrl,
      sandbox.token,
      validParts({
        file: { content: file.stream(), knownLength: size, filename: 'scan.png', contentType: 'image/png' },
      }),
    );
    expect(response.status).toBe(201);
    expect(response.data).toMatchObject({ size, sha256: file.sha256 });
    const [stored] = (await sandbox.control.state()).documents;
    expect(stored).toMatchObject({ size, sha256: file.sha256, filename: 'scan.png' });
  });
});

describe('idempotency keys on documents', () => {
  it('returns the first response and stores one document for a repeated key', async () => {
    const first = await uploadDocument(sandbox.baseUrl, sandbox.token, validParts(), 'doc-key-1');
    const second = await uploadDocument(sandbox.baseUrl, sandbox.token, validParts(), 'doc-key-1');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.data).toEqual(first.data);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect((await sandbox.control.state()).documents).toHaveLength(1);
  });

  it('does not remember a rejected upload, so the corrected one may reuse the key', async () => {
    const rejected = await uploadDocument(
      sandbox.baseUrl,
      sandbox.token,
      validParts({ document_type: 'x' }),
      'doc-key-2',
    );
    expect(rejected.status).toBe(422);
    const fixed = await uploadDocument(sandbox.baseUrl, sandbox.token, validParts(), 'doc-key-2');
    expect(fixed.status).toBe(201);
    expect((await sandbox.control.state()).documents).toHaveLength(1);
  });

  it('answers 409 with Retry-After while the first request with the key is still in flight', async () => {
    const stream = new PassThrough();
    const form = uploadForm(validParts({ file: { content: stream, filename: 'slow.jpg', knownLength: 4 } }));
    const slow = http.post(`${sandbox.baseUrl}${PLATFORM_PATHS.documents}`, form, {
      headers: { ...form.getHeaders(), ...authHeaders(sandbox.token, 'doc-key-3') },
    });
    stream.write(Buffer.from('ab'));
    await waitUntil('the first upload to be in flight', async () =>
      (await sandbox.control.state()).idempotencyKeys.some((record) => record.key === 'doc-key-3'),
    );

    const conflict = await uploadDocument(sandbox.baseUrl, sandbox.token, validParts(), 'doc-key-3');
    expect(conflict.status).toBe(409);
    expect(conflict.headers['retry-after']).toBe('1');
    expect(errorOf(conflict)).toMatchObject({ status: 409, code: 'idempotency_conflict' });

    stream.end(Buffer.from('cd'));
    const first = await slow;
    expect(first.status).toBe(201);
    const replay = await uploadDocument(sandbox.baseUrl, sandbox.token, validParts(), 'doc-key-3');
    expect(replay.status).toBe(201);
    expect(replay.data).toEqual(first.data);
    expect((await sandbox.control.state()).documents).toHaveLength(1);
  });
  it('releases the key of an upload whose client went away, so a retry is not refused with 409', async () => {
    const stream = new PassThrough();
    const form = uploadForm(validParts({ file: { content: stream, filename: 'dead.jpg', knownLength: 4 } }));
    const controller = new AbortController();
    const dying = http.post(`${sandbox.baseUrl}${PLATFORM_PATHS.documents}`, form, {
      headers: { ...form.getHeaders(), ...authHeaders(sandbox.token, 'doc-key-4') },
      signal: controller.signal,
    });
    stream.write(Buffer.from('ab'));
    await waitUntil('the upload to be in flight', async () =>
      (await sandbox.control.state()).idempotencyKeys.some((record) => record.key === 'doc-key-4'),
    );
    controller.abort();
    await expect(dying).rejects.toThrow();
    await waitUntil(
      'the key of the dead upload to be released',
      async () =>
        !(await sandbox.control.state()).idempotencyKeys.some((record) => record.key === 'doc-key-4'),
    );
    const retry = await uploadDocument(sandbox.baseUrl, sandbox.token, validParts(), 'doc-key-4');
    expect(retry.status).toBe(201);
    expect((await sandbox.control.state()).documents).toHaveLength(1);
  });
});

describe('storage directory', () => {
  it('writes the received bytes to the storage directory when configured', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'badge-sandbox-'));
    try {
      await withSandbox({ storageDir: dir }, async (stored, storedToken) => {
        const id = await createOrderId(stored.baseUrl, storedToken);
        const content = Buffer.from('jpeg bytes');
        const response = await uploadDocument(stored.baseUrl, storedToken, {
          ...validParts({ document_type_id: id }),
          file: { content, filename: 'a.jpg' },
        });
        expect(response.status).toBe(201);
        const [document] = (await stored.control.state()).documents;
        expect(document?.stored_path).toBe(join(dir, 'doc-1'));
        expect(await readFile(join(dir, 'doc-1'))).toEqual(content);
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
