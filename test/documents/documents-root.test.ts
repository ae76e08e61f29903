/** DOCUMENTS_ROOT confinement and the size limit, on a real folder with real files and symlinks. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDocumentsRoot,
  InvalidDocumentError,
  type DocumentsRoot,
} from '../../src/documents/documents-root';
import { loadWorkerConfig } from '../../src/config';

describe('DOCUMENTS_ROOT', () => {
  let scratch: string;
  let rootPath: string;
  let root: DocumentsRoot;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'documents-root-'));
    rootPath = join(scratch, 'root');
    mkdirSync(join(rootPath, 'orders'), { recursive: true });
    writeFileSync(join(rootPath, 'orders', 'form.pdf'), '%PDF-1.4 form');
    writeFileSync(join(rootPath, 'orders', 'empty.pdf'), '');
    writeFileSync(join(rootPath, 'orders', 'large.pdf'), Buffer.alloc(101, 1));
    writeFileSync(join(scratch, 'secret.txt'), 'outside the root');
    mkdirSync(join(scratch, 'elsewhere'));
    writeFileSync(join(scratch, 'elsewhere', 'inside.pdf'), '%PDF outside');
    symlinkSync(join(scratch, 'secret.txt'), join(rootPath, 'escape.txt'));
    symlinkSync(join(scratch, 'elsewhere'), join(rootPath, 'linked-folder'));
    symlinkSync(join(rootPath, 'orders', 'form.pdf'), join(rootPath, 'alias.pdf'));
    root = createDocumentsRoot({ root: rootPath, maxBytes: 100 });
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const refusal = async (path: string): Promise<InvalidDocumentError> => {
    const error = await root.resolve(path).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidDocumentError);
    expect((error as InvalidDocumentError).code).toBe('INVALID_DOCUMENT');
    return error as InvalidDocumentError;
  };

  it('resolves a file inside the root with its size', async () => {
    const resolved = await root.resolve('orders/form.pdf');
    expect(resolved.absolutePath).toMatch(/root\/orders\/form\.pdf$/);
    expect(resolved.sizeBytes).toBe('%PDF-1.4 form'.length);
  });

  it('refuses traversal with ..', async () => {
    expect((await refusal('../secret.txt')).message).toBe(
      '../secret.txt: must be a relative path inside DOCUMENTS_ROOT',
    );
    expect((await refusal('orders/../../secret.txt')).message).toMatch(/must be a relative path inside/);
  });

  it('refuses an absolute path', async () => {
    const absolute = join(scratch, 'secret.txt');
    expect((await refusal(absolute)).message).toBe(
      `${absolute}: must be a relative path inside DOCUMENTS_ROOT`,
    );
  });

  it('refuses a symlink that leads outside the root, to a file or through a folder', async () => {
    expect((await refusal('escape.txt')).message).toBe(
      'escape.txt: resolves outside DOCUMENTS_ROOT (symlink escape refused)',
    );
    expect((await refusal('linked-folder/inside.pdf')).message).toMatch(/resolves outside DOCUMENTS_ROOT/);
  });

  it('allows a symlink that stays inside the root', async () => {
    const resolved = await root.resolve('alias.pdf');
    expect(resolved.absolutePath).toMatch(/root\/orders\/form\.pdf$/);
  });

  it('refuses a missing file, a folder and an empty file', async () => {
    expect((await refusal('orders/missing.pdf')).message).toBe(
      'orders/missing.pdf: no such file under DOCUMENTS_ROOT',
    );
    expect((await refusal('orders')).message).toBe('orders: is not a regular file');
    expect((await refusal('orders/empty.pdf')).message).toBe('orders/empty.pdf: is empty');
  });

  it('refuses a file above MAX_DOCUMENT_BYTES, naming both sizes', async () => {
    expect((await refusal('orders/large.pdf')).message).toBe(
      'orders/large.pdf: is 101 bytes, above the limit of 100 bytes',
    );
  });

  it('takes the limit and the root from the environment', () => {
    const config = loadWorkerConfig({
      BADGE_USERNAME: 'user',
      BADGE_PASSWORD: 'password',
      DOCUMENTS_ROOT: rootPath,
      MAX_DOCUMENT_BYTES: '100',
    });
    expect(config).toMatchObject({ documentsRoot: rootPath, maxDocumentBytes: 100 });
    expect(() =>
      loadWorkerConfig({ BADGE_USERNAME: 'user', BADGE_PASSWORD: 'password', MAX_DOCUMENT_BYTES: '-1' }),
    ).toThrow(/MAX_DOCUMENT_BYTES/);
  });
});
