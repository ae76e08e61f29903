/** Connection options for a secured cluster or Temporal Cloud: client certificates and API keys. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadTemporalConfig } from '../../src/config';
import { connectionOptions } from '../../src/temporal/connection';

describe('Temporal connection options', () => {
  let scratch: string;
  let files: { cert: string; key: string; ca: string; apiKey: string };

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'temporal-tls-'));
    files = {
      cert: join(scratch, 'client.pem'),
      key: join(scratch, 'client.key'),
      ca: join(scratch, 'ca.pem'),
      apiKey: join(scratch, 'api-key'),
    };
    writeFileSync(files.cert, 'CERTIFICATE');
    writeFileSync(files.key, 'PRIVATE KEY');
    writeFileSync(files.ca, 'ROOT CA');
    writeFileSync(files.apiKey, 'api-key-from-file\n');
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('connects in plain text to a local dev server by default', () => {
    expect(connectionOptions(loadTemporalConfig({}))).toEqual({
      address: '127.0.0.1:7233',
      tls: undefined,
      apiKey: undefined,
    });
  });

  it('reads the client certificate, its key and the server CA for mutual TLS', () => {
    const config = loadTemporalConfig({
      TEMPORAL_ADDRESS: 'badge.a1b2c.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'badge.a1b2c',
      TEMPORAL_TLS_CERT_PATH: files.cert,
      TEMPORAL_TLS_KEY_PATH: files.key,
      TEMPORAL_TLS_CA_PATH: files.ca,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    const options = connectionOptions(config);
    expect(options.address).toBe('badge.a1b2c.tmprl.cloud:7233');
    expect(options.apiKey).toBeUndefined();
    expect(options.tls).toEqual({
      serverNameOverride: 'temporal.internal',
      serverRootCACertificate: Buffer.from('ROOT CA'),
      clientCertPair: { crt: Buffer.from('CERTIFICATE'), key: Buffer.from('PRIVATE KEY') },
    });
  });

  it('uses an API key (from TEMPORAL_API_KEY_FILE) over TLS', () => {
    const options = connectionOptions(
      loadTemporalConfig({
        TEMPORAL_ADDRESS: 'eu-central-1.aws.api.temporal.io:7233',
        TEMPORAL_API_KEY_FILE: files.apiKey,
      }),
    );
    expect(options).toEqual({
      address: 'eu-central-1.aws.api.temporal.io:7233',
      tls: true,
      apiKey: 'api-key-from-file',
    });
  });

  it('names the variable when the TLS settings are incomplete or a file is missing', () => {
    expect(() => loadTemporalConfig({ TEMPORAL_TLS_CERT_PATH: files.cert })).toThrow(
      new ConfigError(
        'Invalid configuration: TEMPORAL_TLS_KEY_PATH: Invalid input: expected string, received undefined',
      ),
    );
    const config = loadTemporalConfig({
      TEMPORAL_TLS_CERT_PATH: join(scratch, 'missing.pem'),
      TEMPORAL_TLS_KEY_PATH: files.key,
    });
    expect(() => connectionOptions(config)).toThrow(/ENOENT.*missing\.pem/);
    expect(() => loadTemporalConfig({ TEMPORAL_API_KEY_FILE: join(scratch, 'nope') })).toThrow(
      /TEMPORAL_API_KEY_FILE: cannot read/,
    );
  });
});
