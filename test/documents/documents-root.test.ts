/**
 * DOCUMENTS_ROOT access on a real folder with real files, symlinks and FIFOs: confinement, the size limit, the
 * races between a check and an upload (each now refused or harmless), and which failures are final.
 */
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertDocumentsRootReadable,
  createDocumentsRoot,
  DocumentUnavailableError,
  InvalidDocumentError,
  withOpenedDocument,
  type DocumentsRoot,
  type HandleLocation,
  type OpenedDocument,
} from '../../src/documents';
import { loadWorkerConfig } from '../../src/config';

interface Drained {
  readonly bytes: Buffer;
  readonly error: unknown;
}

/** Reads a stream to its end or its error, keeping every byte that came out before an error. */
async function drain(stream: NodeJS.ReadableStream): Promise<Drained> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
    return { bytes: Buffer.concat(chunks), error: undefined };
  } catch (error) {
    return { bytes: Buffer.concat(chunks), error };
  }
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

async function invalid(promise: Promise<unknown>): Promise<InvalidDocumentError> {
  const error = await caught(promise);
  expect(error).toBeInstanceOf(InvalidDocumentError);
  expect((error as InvalidDocumentError).code).toBe('INVALID_DOCUMENT');
  return error as InvalidDocumentError;
}

async function unavailable(promise: Promise<unknown>): Promise<DocumentUnavailableError> {
  const error = await caught(promise);
  expect(error).toBeInstanceOf(DocumentUnavailableError);
  expect((error as DocumentUnavailableError).code).toBe('DOCUMENT_UNAVAILABLE');
  return error as DocumentUnavailableError;
}

const MAX_BYTES = 1024 * 1024;

describe.each<HandleLocation>(['procfs', 'path'])(
  'DOCUMENTS_ROOT (handle location by %s)',
  (handleLocation) => {
    let scratch: string;
    let rootPath: string;
    let outside: string;
    let documents: DocumentsRoot;
    const opened: OpenedDocument[] = [];
    const open = async (relativePath: string): Promise<OpenedDocument> => {
      const document = await documents.open(relativePath);
      opened.push(document);
      return document;
    };

    beforeAll(() => {
      scratch = mkdtempSync(join(tmpdir(), 'documents-root-'));
      rootPath = join(scratch, 'root');
      outside = join(scratch, 'outside');
      mkdirSync(join(rootPath, 'orders'), { recursive: true });
      mkdirSync(outside);
      writeFileSync(join(rootPath, 'orders', 'form.pdf'), '%PDF-1.4 form');
      writeFileSync(join(rootPath, 'orders', 'empty.pdf'), '');
      writeFileSync(join(rootPath, 'orders', 'large.pdf'), Buffer.alloc(MAX_BYTES + 1, 1));
      writeFileSync(join(outside, 'secret.txt'), 'outside the root');
      writeFileSync(join(outside, 'form.pdf'), 'SECRET FROM OUTSIDE');
      symlinkSync(join(outside, 'secret.txt'), join(rootPath, 'escape.txt'));
      symlinkSync(outside, join(rootPath, 'linked-folder'));
      symlinkSync(join(rootPath, 'orders', 'form.pdf'), join(rootPath, 'alias.pdf'));
      symlinkSync(join(rootPath, 'orders'), join(rootPath, 'orders-alias'));
      documents = createDocumentsRoot({ root: rootPath, maxBytes: MAX_BYTES, handleLocation });
    });

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((document) => document.close()));
    });

    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    describe('confinement and limits (final)', () => {
      it('opens a file inside the root with its size and streams exactly its bytes', async () => {
        const document = await open('orders/form.pdf');
        expect(document).toMatchObject({ relativePath: 'orders/form.pdf', sizeBytes: 13 });
        expect((await drain(document.openStream())).bytes.toString()).toBe('%PDF-1.4 form');
      });

      it('opens a document only inside the folder it must be in: the path, and wherever links lead', async () => {
        mkdirSync(join(rootPath, 'clients', 'a'), { recursive: true });
        mkdirSync(join(rootPath, 'clients', 'b'), { recursive: true });
        writeFileSync(join(rootPath, 'clients', 'a', 'own.pdf'), 'a');
        writeFileSync(join(rootPath, 'clients', 'b', 'theirs.pdf'), 'b');
        symlinkSync(join(rootPath, 'clients', 'b'), join(rootPath, 'clients', 'a', 'to-b'));
        const within = { within: 'clients/a' };
        const own = await documents.open('clients/a/own.pdf', within);
        opened.push(own);
        expect(own.sizeBytes).toBe(1);
        expect((await invalid(documents.open('clients/b/theirs.pdf', within))).message).toBe(
          'clients/b/theirs.pdf: must be inside clients/a/',
        );
        // Inside the folder by its path, in the other folder by its link: refused on the open file.
        expect((await invalid(documents.open('clients/a/to-b/theirs.pdf', within))).message).toBe(
          'clients/a/to-b/theirs.pdf: resolves outside clients/a/ (symlink escape refused)',
        );
        // Without a folder the whole root is open, links inside it included.
        opened.push(await documents.open('clients/a/to-b/theirs.pdf'));
      });

      it('refuses traversal with .. and absolute paths before touching the disk', async () => {
        expect((await invalid(documents.open('../outside/secret.txt'))).message).toBe(
          '../outside/secret.txt: must be a relative path inside DOCUMENTS_ROOT',
        );
        expect((await invalid(documents.open('orders/../../outside/secret.txt'))).message).toMatch(
          /must be a relative path inside/,
        );
        const absolute = join(outside, 'secret.txt');
        expect((await invalid(documents.open(absolute))).message).toBe(
          `${absolute}: must be a relative path inside DOCUMENTS_ROOT`,
        );
      });

      it('refuses a symlink at the last component, naming an escape as such (ELOOP, final)', async () => {
        const escape = await invalid(documents.open('escape.txt'));
        expect(escape.message).toBe('escape.txt: resolves outside DOCUMENTS_ROOT (symlink escape refused)');
        expect(escape.fsCode).toBe('ELOOP');
        const inside = await invalid(documents.open('alias.pdf'));
        expect(inside.fsCode).toBe('ELOOP');
        expect(inside.message).toBe('alias.pdf: is a symbolic link (only regular files are uploaded)');
      });

      it('refuses a folder symlink that leads outside, and allows one that stays inside', async () => {
        expect((await invalid(documents.open('linked-folder/form.pdf'))).message).toBe(
          'linked-folder/form.pdf: resolves outside DOCUMENTS_ROOT (symlink escape refused)',
        );
        expect((await open('orders-alias/form.pdf')).sizeBytes).toBe(13);
      });

      it('refuses a missing file, a file under a file, a folder and an empty file', async () => {
        const missing = await invalid(documents.open('orders/missing.pdf'));
        expect(missing.message).toBe('orders/missing.pdf: no such file under DOCUMENTS_ROOT');
        expect(missing.fsCode).toBe('ENOENT');
        expect((await invalid(documents.open('orders/form.pdf/inner.pdf'))).fsCode).toBe('ENOTDIR');
        expect((await invalid(documents.open('orders'))).message).toBe(
          'orders: is not a regular file (a directory)',
        );
        expect((await invalid(documents.open('orders/empty.pdf'))).message).toBe(
          'orders/empty.pdf: is empty',
        );
      });

      it('refuses a file above MAX_DOCUMENT_BYTES, naming both sizes', async () => {
        expect((await invalid(documents.open('orders/large.pdf'))).message).toBe(
          `orders/large.pdf: is ${MAX_BYTES + 1} bytes, above the limit of ${MAX_BYTES} bytes`,
        );
      });

      it('never names a host path outside the root in its messages', async () => {
        const errors = await Promise.all(
          ['escape.txt', 'linked-folder/form.pdf', 'orders/missing.pdf', 'orders/large.pdf'].map((path) =>
            caught(documents.open(path)),
          ),
        );
        for (const error of errors) expect((error as Error).message).not.toContain(scratch);
      });

      it('inspects without keeping the file open, with the same checks', async () => {
        await expect(documents.inspect('orders/form.pdf')).resolves.toEqual({
          relativePath: 'orders/form.pdf',
          sizeBytes: 13,
        });
        await invalid(documents.inspect('orders/empty.pdf'));
        await invalid(documents.inspect('escape.txt'));
      });
    });

    describe('streaming from the open handle', () => {
      it('streams the same bytes twice, from byte 0, matching the sha256 of the file', async () => {
        const content = randomBytes(300 * 1024 + 7);
        writeFileSync(join(rootPath, 'orders', 'scan.pdf'), content);
        const document = await open('orders/scan.pdf');
        const first = await drain(document.openStream());
        const second = await drain(document.openStream());
        expect(first.error).toBeUndefined();
        expect(second.error).toBeUndefined();
        expect(first.bytes.length).toBe(content.length);
        expect(sha256(first.bytes)).toBe(sha256(content));
        expect(sha256(second.bytes)).toBe(sha256(readFileSync(join(rootPath, 'orders', 'scan.pdf'))));
      });

      it('fails a stream after close, and close may be called twice', async () => {
        const document = await documents.open('orders/form.pdf');
        await document.close();
        await document.close();
        const { bytes, error } = await drain(document.openStream());
        expect(bytes.length).toBe(0);
        expect(error).toBeInstanceOf(DocumentUnavailableError);
        expect((error as Error).message).toBe('orders/form.pdf: the document was closed');
      });

      it('withOpenedDocument closes the document when the work throws', async () => {
        let seen: OpenedDocument | undefined;
        await expect(
          withOpenedDocument(documents, 'orders/form.pdf', (document) => {
            seen = document;
            return Promise.reject(new Error('upload failed'));
          }),
        ).rejects.toThrow('upload failed');
        expect((await drain(seen!.openStream())).error).toBeInstanceOf(DocumentUnavailableError);
      });

      it('withOpenedDocument keeps the work’s result and error when closing fails', async () => {
        const failingClose: DocumentsRoot = {
          ...documents,
          open: async (...args) => {
            const document = await documents.open(...args);
            return {
              ...document,
              close: async () => {
                await document.close();
                throw Object.assign(new Error('EIO: i/o error, close'), { code: 'EIO' });
              },
            };
          },
        };
        const read = (document: OpenedDocument): Promise<string> =>
          drain(document.openStream()).then(({ bytes }) => bytes.toString());
        expect(await withOpenedDocument(failingClose, 'orders/form.pdf', read)).toBe(
          readFileSync(join(rootPath, 'orders/form.pdf'), 'utf8'),
        );
        await expect(
          withOpenedDocument(failingClose, 'orders/form.pdf', () =>
            Promise.reject(new Error('upload failed')),
          ),
        ).rejects.toThrow('upload failed');
      });
    });

    describe('races between the check and the upload', () => {
      let n = 0;
      const fresh = (content: string | Buffer): string => {
        n += 1;
        const name = `race-${n}.pdf`;
        writeFileSync(join(rootPath, 'orders', name), content);
        return `orders/${name}`;
      };

      it('a file swapped for a symlink: the open handle still sends the checked file, a new open is refused', async () => {
        const path = fresh('the real form');
        const document = await open(path);
        unlinkSync(join(rootPath, path));
        symlinkSync(join(outside, 'secret.txt'), join(rootPath, path));

        expect((await drain(document.openStream())).bytes.toString()).toBe('the real form');
        expect((await invalid(documents.open(path))).message).toMatch(/resolves outside DOCUMENTS_ROOT/);
      });

      it('a folder swapped for a symlink to outside: refused on the open handle', async () => {
        mkdirSync(join(rootPath, 'batch'));
        writeFileSync(join(rootPath, 'batch', 'form.pdf'), 'inside');
        const document = await open('batch/form.pdf');
        renameSync(join(rootPath, 'batch'), join(rootPath, 'batch-old'));
        symlinkSync(outside, join(rootPath, 'batch'));

        // The last component is a regular file, so O_NOFOLLOW lets the open through: only the check of where the
        // open handle really is can refuse it.
        expect((await invalid(documents.open('batch/form.pdf'))).message).toBe(
          'batch/form.pdf: resolves outside DOCUMENTS_ROOT (symlink escape refused)',
        );
        expect((await drain(document.openStream())).bytes.toString()).toBe('inside');
      });

      it('a small file that grows after the check: nothing leaves and the stream fails (retryable)', async () => {
        const path = fresh('twelve bytes');
        const document = await open(path);
        appendFileSync(join(rootPath, path), 'and then much more');

        const { bytes, error } = await drain(document.openStream());
        expect(bytes.length).toBeLessThanOrEqual(document.sizeBytes);
        expect(error).toBeInstanceOf(DocumentUnavailableError);
        expect((error as Error).message).toBe(
          `${path}: the file grew while it was being read (checked size 12 bytes); will retry`,
        );
      });

      it('a large file that grows past the limit: fewer than the checked bytes leave', async () => {
        const path = fresh(randomBytes(200 * 1024));
        const document = await open(path);
        appendFileSync(join(rootPath, path), Buffer.alloc(MAX_BYTES, 2));

        const { bytes, error } = await drain(document.openStream());
        expect(bytes.length).toBeLessThan(document.sizeBytes);
        expect(error).toBeInstanceOf(DocumentUnavailableError);
        expect((error as Error).message).toMatch(/grew while it was being read/);
      });

      it('a file that shrinks after the check fails the stream with a clear error', async () => {
        const path = fresh(randomBytes(100 * 1024));
        const document = await open(path);
        truncateSync(join(rootPath, path), 10);

        const { bytes, error } = await drain(document.openStream());
        expect(bytes.length).toBe(10);
        expect(error).toBeInstanceOf(DocumentUnavailableError);
        expect((error as Error).message).toBe(
          `${path}: the file shrank while it was being read (checked size ${100 * 1024} bytes); will retry`,
        );
      });

      it('FIFOs are refused at once, and many of them leave the file-system threads free', async () => {
        const fifo = join(rootPath, 'orders', 'pipe.pdf');
        execFileSync('mkfifo', [fifo]);
        try {
          // More than libuv's four threads: a blocking open of each would hang every later file operation.
          const refusals = await Promise.all(
            Array.from({ length: 12 }, () => invalid(documents.open('orders/pipe.pdf'))),
          );
          for (const refusal of refusals) {
            expect(refusal.message).toBe('orders/pipe.pdf: is not a regular file (a FIFO)');
          }
          expect((await open('orders/form.pdf')).sizeBytes).toBe(13);
        } finally {
          unlinkSync(fifo);
        }
      });
    });

    describe('an unavailable root (retryable)', () => {
      it('a missing root fails documents as unavailable, not invalid, and names no host path', async () => {
        const gone = createDocumentsRoot({
          root: join(scratch, 'not-mounted'),
          maxBytes: MAX_BYTES,
          handleLocation,
        });
        const error = await unavailable(gone.open('orders/form.pdf'));
        expect(error.fsCode).toBe('ENOENT');
        expect(error.message).toBe('orders/form.pdf: DOCUMENTS_ROOT is not readable (ENOENT); will retry');
      });

      it('a root that is a file fails documents as unavailable', async () => {
        const notAFolder = createDocumentsRoot({
          root: join(outside, 'secret.txt'),
          maxBytes: MAX_BYTES,
          handleLocation,
        });
        expect((await unavailable(notAFolder.open('orders/form.pdf'))).fsCode).toBe('ENOTDIR');
        // Also when the document must be in a folder of its order: the folder is not missing, the root is.
        const inFolder = await unavailable(notAFolder.open('orders/form.pdf', { within: 'orders' }));
        expect(inFolder.fsCode).toBe('ENOTDIR');
        expect(inFolder.message).toBe(
          'orders/form.pdf: DOCUMENTS_ROOT is not readable (ENOTDIR); will retry',
        );
      });
    });
  },
);

describe('assertDocumentsRootReadable', () => {
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'documents-root-assert-'));
    mkdirSync(join(scratch, 'root'));
    writeFileSync(join(scratch, 'file'), 'x');
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('accepts a readable folder, empty or not', async () => {
    await expect(assertDocumentsRootReadable(join(scratch, 'root'))).resolves.toBeUndefined();
    writeFileSync(join(scratch, 'root', 'a.pdf'), 'a');
    await expect(assertDocumentsRootReadable(join(scratch, 'root'))).resolves.toBeUndefined();
  });

  it('refuses a missing root, naming it, with a stable code', async () => {
    const missing = join(scratch, 'missing');
    const error = await unavailable(assertDocumentsRootReadable(missing));
    expect(error.message).toBe(`DOCUMENTS_ROOT ${missing} does not exist (is the volume mounted?) (ENOENT)`);
  });

  it('refuses a file', async () => {
    const error = await unavailable(assertDocumentsRootReadable(join(scratch, 'file')));
    expect(error.message).toMatch(/is not a directory \(ENOTDIR\)$/);
  });
});

describe('configuration', () => {
  it('takes the limit and the root from the environment', () => {
    const config = loadWorkerConfig({
      PAYLOAD_ENCRYPTION: 'off',
      BADGE_USERNAME: 'user',
      BADGE_PASSWORD: 'password',
      DOCUMENTS_ROOT: '/srv/documents',
      MAX_DOCUMENT_BYTES: '100',
    });
    expect(config).toMatchObject({ documentsRoot: '/srv/documents', maxDocumentBytes: 100 });
    expect(() =>
      loadWorkerConfig({
        PAYLOAD_ENCRYPTION: 'off',
        BADGE_USERNAME: 'user',
        BADGE_PASSWORD: 'password',
        MAX_DOCUMENT_BYTES: '-1',
      }),
    ).toThrow(/MAX_DOCUMENT_BYTES/);
  });
});
