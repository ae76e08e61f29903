/** Connection options for a secured cluster or Temporal Cloud: client certificates and API keys. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSConfig } from '@temporalio/client';
import { ConfigError, loadTemporalConfig } from '../../src/config';
import { connectionOptions } from '../../src/temporal/connection';

/** These tests are about the connection; payload encryption is switched off explicitly, as it must be. */
const UNENCRYPTED = { PAYLOAD_ENCRYPTION: 'off' } as const;

describe('Temporal connection options', () => {
  let scratch: string;
  let files: Record<'cert' | 'key' | 'ca' | 'apiKey' | 'toml' | 'noConfig', string>;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'temporal-tls-'));
    files = {
      cert: join(scratch, 'client.pem'),
      key: join(scratch, 'client.key'),
      ca: join(scratch, 'ca.pem'),
      apiKey: join(scratch, 'api-key'),
      toml: join(scratch, 'temporal.toml'),
      noConfig: join(scratch, 'absent.toml'),
    };
    writeFileSync(files.cert, 'CERTIFICATE');
    writeFileSync(files.key, 'PRIVATE KEY');
    writeFileSync(files.ca, 'ROOT CA');
    writeFileSync(files.apiKey, 'api-key-from-file\n');
    writeFileSync(
      files.toml,
      [
        '[profile.default]',
        'address = "default.example:7233"',
        '[profile.prod]',
        'address = "prod.example:7233"',
        'namespace = "badge-prod"',
        'api_key = "key-from-profile"',
        '[profile.prod.grpc_meta]',
        'team = "badges"',
      ].join('\n'),
    );
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('connects in plain text to a local dev server by default', () => {
    expect(
      connectionOptions(loadTemporalConfig({ ...UNENCRYPTED, TEMPORAL_CONFIG_FILE: files.noConfig })),
    ).toEqual({
      address: '127.0.0.1:7233',
      tls: undefined,
      apiKey: undefined,
      metadata: undefined,
    });
  });

  it('reads the client certificate, its key and the server CA for mutual TLS', () => {
    const config = loadTemporalConfig({
      ...UNENCRYPTED,
      TEMPORAL_ADDRESS: 'badge.a1b2c.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'badge.a1b2c',
      TEMPORAL_CONFIG_FILE: files.noConfig,
      TEMPORAL_TLS_CLIENT_CERT_PATH: files.cert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: files.key,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.ca,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    const options = connectionOptions(config);
    expect(options.address).toBe('badge.a1b2c.tmprl.cloud:7233');
    expect(options.apiKey).toBeUndefined();
    const text = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString();
    const tls = options.tls as TLSConfig;
    expect(tls.serverNameOverride).toBe('temporal.internal');
    expect(text(tls.serverRootCACertificate)).toBe('ROOT CA');
    expect(text(tls.clientCertPair?.crt)).toBe('CERTIFICATE');
    expect(text(tls.clientCertPair?.key)).toBe('PRIVATE KEY');
  });

  it('uses an API key (from TEMPORAL_API_KEY_FILE) over TLS', () => {
    const options = connectionOptions(
      loadTemporalConfig({
        ...UNENCRYPTED,
        TEMPORAL_CONFIG_FILE: files.noConfig,
        TEMPORAL_ADDRESS: 'eu-central-1.aws.api.temporal.io:7233',
        TEMPORAL_API_KEY_FILE: files.apiKey,
      }),
    );
    expect(options).toEqual({
      address: 'eu-central-1.aws.api.temporal.io:7233',
      tls: true,
      apiKey: 'api-key-from-file',
      metadata: undefined,
    });
  });

  it('reads a TOML profile as the Temporal CLI does, with the standard variables on top', () => {
    const prod = loadTemporalConfig({
      ...UNENCRYPTED,
      TEMPORAL_CONFIG_FILE: files.toml,
      TEMPORAL_PROFILE: 'prod',
    });
    expect(prod.namespace).toBe('badge-prod');
    expect(connectionOptions(prod)).toEqual({
      address: 'prod.example:7233',
      tls: true,
      apiKey: 'key-from-profile',
      metadata: { team: 'badges' },
    });
    const overridden = loadTemporalConfig({
      ...UNENCRYPTED,
      TEMPORAL_CONFIG_FILE: files.toml,
      TEMPORAL_ADDRESS: 'override.example:7233',
      TEMPORAL_NAMESPACE: '',
    });
    expect(overridden.address).toBe('override.example:7233');
    expect(overridden.namespace).toBe('default');
  });

  it('names the replacement of a variable this service used to read, and a file that is missing', () => {
    expect(() => loadTemporalConfig({ ...UNENCRYPTED, TEMPORAL_TLS_CERT_PATH: files.cert })).toThrow(
      new ConfigError(
        'Invalid configuration: TEMPORAL_TLS_CERT_PATH: is no longer read; use TEMPORAL_TLS_CLIENT_CERT_PATH',
      ),
    );
    const config = loadTemporalConfig({
      ...UNENCRYPTED,
      TEMPORAL_CONFIG_FILE: files.noConfig,
      TEMPORAL_TLS_CLIENT_CERT_PATH: join(scratch, 'missing.pem'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: files.key,
    });
    expect(() => connectionOptions(config)).toThrow(/ENOENT.*missing\.pem/);
    expect(() =>
      loadTemporalConfig({ ...UNENCRYPTED, TEMPORAL_API_KEY_FILE: join(scratch, 'nope') }),
    ).toThrow(/TEMPORAL_API_KEY_FILE: cannot read/);
    expect(() =>
      loadTemporalConfig({ ...UNENCRYPTED, TEMPORAL_CONFIG_FILE: files.toml, TEMPORAL_PROFILE: 'absent' }),
    ).toThrow(/TEMPORAL_PROFILE/);
  });

  it('says where a profile is not valid TOML, without quoting it (the lines may hold a key)', () => {
    const broken = join(scratch, 'broken.toml');
    writeFileSync(
      broken,
      ['[profile.default]', 'address = "a.example:7233"', 'api_key = "tcld-SECRET-1'].join('\n'),
    );
    let message = '';
    try {
      loadTemporalConfig({ ...UNENCRYPTED, TEMPORAL_CONFIG_FILE: broken });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /^Invalid configuration: TEMPORAL_CONFIG_FILE \/ TEMPORAL_PROFILE: not valid TOML \(line 3, column \d+\)$/,
    );
    expect(message).not.toContain('SECRET');
  });
});
