/** The document store's settings, as the worker and the API read them from the environment. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadWorkerConfig } from '../../src/config';

/** The document store's settings as the worker reads them, beside the least else it needs. */
const loadDocumentStoreConfig = (env: Record<string, string>): unknown =>
  loadWorkerConfig({ BADGE_USERNAME: 'u', BADGE_PASSWORD: 'p', PAYLOAD_ENCRYPTION: 'off', ...env })
    .documentStore;

describe('document store settings', () => {
  it('defaults to the local store', () => {
    expect(loadDocumentStoreConfig({})).toEqual({ kind: 'local' });
    expect(
      loadDocumentStoreConfig({ DOCUMENT_STORE: 'local', DOCUMENT_STORE_LOCAL_ROOT: '/srv/store' }),
    ).toEqual({
      kind: 'local',
      root: '/srv/store',
    });
  });

  it('reads the S3 settings, with the secret from a file', () => {
    const folder = mkdtempSync(join(tmpdir(), 'badge-store-config-'));
    try {
      writeFileSync(join(folder, 'secret'), 'from-file\n');
      expect(
        loadDocumentStoreConfig({
          DOCUMENT_STORE: 's3',
          DOCUMENT_STORE_S3_BUCKET: 'documents',
          DOCUMENT_STORE_S3_PREFIX: 'badge/',
          DOCUMENT_STORE_S3_ENDPOINT: 'http://127.0.0.1:7070',
          DOCUMENT_STORE_S3_FORCE_PATH_STYLE: 'true',
          DOCUMENT_STORE_S3_ACCESS_KEY_ID: 'key',
          DOCUMENT_STORE_S3_SECRET_ACCESS_KEY_FILE: join(folder, 'secret'),
        }),
      ).toEqual({
        kind: 's3',
        bucket: 'documents',
        prefix: 'badge/',
        endpoint: 'http://127.0.0.1:7070',
        forcePathStyle: true,
        allowInsecureHttp: false,
        timeoutMs: 30_000,
        credentials: { accessKeyId: 'key', secretAccessKey: 'from-file' },
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('names the variable of each invalid setting, never a secret', () => {
    const refused = (env: Record<string, string>): string => {
      try {
        loadDocumentStoreConfig(env);
        return '';
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
    };
    expect(refused({ DOCUMENT_STORE: 'ftp' })).toContain('DOCUMENT_STORE: must be local or s3');
    expect(refused({ DOCUMENT_STORE: 's3' })).toContain(
      'DOCUMENT_STORE_S3_BUCKET: is required with DOCUMENT_STORE=s3',
    );
    expect(
      refused({
        DOCUMENT_STORE: 's3',
        DOCUMENT_STORE_S3_BUCKET: 'b-1',
        DOCUMENT_STORE_S3_ENDPOINT: 'http://s3.example',
      }),
    ).toContain('DOCUMENT_STORE_S3_ENDPOINT: sends documents in clear over http://');
    const halfKey = refused({
      DOCUMENT_STORE: 's3',
      DOCUMENT_STORE_S3_BUCKET: 'b-1',
      DOCUMENT_STORE_S3_SECRET_ACCESS_KEY: 'very-secret',
    });
    expect(halfKey).toContain('DOCUMENT_STORE_S3_ACCESS_KEY_ID: is required');
    expect(halfKey).not.toContain('very-secret');
  });
});
