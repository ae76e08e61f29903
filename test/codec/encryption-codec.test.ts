/** The AES-256-GCM payload codec and its key ring: rotation, wrong keys, pass-through, no key in messages. */
import { inspect } from 'node:util';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  EncryptionCodec,
  ENCRYPTED_ENCODING,
  PayloadDecryptionError,
  payloadKeyId,
} from '../../src/codec/encryption-codec';
import { generatePayloadKeyEntry, parsePayloadKeys, PayloadKeysError } from '../../src/codec/key-ring';
import { ConfigError, loadCodecServerConfig, loadTemporalConfig } from '../../src/config';

const order = { vehicle: { licensePlate: 'B-XY 1234' }, badge: { type: 'green' } };
const toPayload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const fromPayload = (payload: Payload | undefined): unknown =>
  payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
const text = (payload: Payload | undefined): string =>
  Buffer.concat([
    ...Object.values(payload?.metadata ?? {}).map((value) => Buffer.from(value ?? new Uint8Array())),
    Buffer.from(payload?.data ?? new Uint8Array()),
  ]).toString('utf8');

describe('EncryptionCodec', () => {
  const oldEntry = generatePayloadKeyEntry('2026-01');
  const newEntry = generatePayloadKeyEntry('2026-07');

  it('encrypts with the key id in the metadata and decrypts to the original payload', async () => {
    const codec = new EncryptionCodec(parsePayloadKeys(oldEntry));
    const [encrypted] = await codec.encode([toPayload(order)]);
    expect(text(encrypted)).not.toContain('B-XY 1234');
    expect(Buffer.from(encrypted?.metadata?.encoding ?? []).toString()).toBe(ENCRYPTED_ENCODING);
    expect(payloadKeyId(encrypted ?? {})).toBe('2026-01');
    const [decrypted] = await codec.decode(encrypted ? [encrypted] : []);
    expect(fromPayload(decrypted)).toEqual(order);
  });

  it('rotates: the newest key encrypts, payloads of the older key still decrypt', async () => {
    const [oldPayload] = await new EncryptionCodec(parsePayloadKeys(oldEntry)).encode([toPayload(order)]);
    const rotated = new EncryptionCodec(parsePayloadKeys(`${newEntry},${oldEntry}`));
    const [decryptedOld] = await rotated.decode(oldPayload ? [oldPayload] : []);
    expect(fromPayload(decryptedOld)).toEqual(order);
    const [newPayload] = await rotated.encode([toPayload(order)]);
    expect(payloadKeyId(newPayload ?? {})).toBe('2026-07');
    expect(fromPayload((await rotated.decode(newPayload ? [newPayload] : []))[0])).toEqual(order);
  });

  it('fails with an error naming the key id when the key is missing or wrong', async () => {
    const [encrypted] = await new EncryptionCodec(parsePayloadKeys(oldEntry)).encode([toPayload(order)]);
    const payloads = encrypted ? [encrypted] : [];

    const missing = await new EncryptionCodec(parsePayloadKeys(newEntry))
      .decode(payloads)
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PayloadDecryptionError);
    expect((missing as PayloadDecryptionError).keyId).toBe('2026-01');
    expect((missing as Error).message).toMatch(/key "2026-01".*not in PAYLOAD_KEYS \(known: 2026-07\)/);

    // Same id, other key material: GCM authentication fails.
    const wrong = new EncryptionCodec(parsePayloadKeys(generatePayloadKeyEntry('2026-01')));
    const failure = await wrong.decode(payloads).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PayloadDecryptionError);
    expect((failure as Error).message).toMatch(/key "2026-01" could not be decrypted/);
  });

  it('refuses a payload whose key id was altered (the key id is authenticated)', async () => {
    const keys = parsePayloadKeys(`${newEntry},${oldEntry}`);
    const [encrypted] = await new EncryptionCodec(parsePayloadKeys(oldEntry)).encode([toPayload(order)]);
    const altered = {
      ...encrypted,
      metadata: { ...encrypted?.metadata, 'encryption-key-id': Buffer.from('2026-07') },
    };
    await expect(new EncryptionCodec(keys).decode([altered])).rejects.toThrow(
      /key "2026-07" could not be decrypted/,
    );
  });

  it('passes unencrypted payloads through decode, so histories from before encryption still replay', async () => {
    const plain = toPayload(order);
    const [decoded] = await new EncryptionCodec(parsePayloadKeys(oldEntry)).decode([plain]);
    expect(decoded).toBe(plain);
  });

  it('does not encrypt without keys, and says so when it meets an encrypted payload', async () => {
    const empty = new EncryptionCodec(parsePayloadKeys(''));
    const plain = toPayload(order);
    expect(await empty.encode([plain])).toEqual([plain]);
    const [encrypted] = await new EncryptionCodec(parsePayloadKeys(oldEntry)).encode([plain]);
    await expect(empty.decode(encrypted ? [encrypted] : [])).rejects.toThrow(/"2026-01".*no keys configured/);
  });
});

describe('payload keys', () => {
  const entry = generatePayloadKeyEntry('k1');
  const material = entry.slice('k1='.length);

  it('refuses malformed entries with messages that name the entry, never the key', () => {
    const short = Buffer.alloc(16, 9).toString('base64');
    expect(() => parsePayloadKeys(`k1=${short}`)).toThrow(
      new PayloadKeysError('PAYLOAD_KEYS: key "k1" must be 32 bytes, got 16 bytes'),
    );
    expect(() => parsePayloadKeys(`${entry},${entry}`)).toThrow(/key id "k1" appears twice/);
    expect(() => parsePayloadKeys('k1')).toThrow(/entry 1: expected keyId=base64/);
    expect(() => parsePayloadKeys('k1=not base64!')).toThrow(/entry 1 \("k1"\): the key is not base64/);
    const error = (() => {
      try {
        parsePayloadKeys(`${entry},bad id=${material}`);
      } catch (caught) {
        return caught as Error;
      }
      return new Error('no error');
    })();
    expect(error.message).toMatch(/key id "bad id"/);
    expect(error.message).not.toContain(material);
  });

  it('reads PAYLOAD_KEYS or PAYLOAD_KEYS_FILE into the configuration without exposing the keys', () => {
    const config = loadTemporalConfig({ PAYLOAD_KEYS: `${generatePayloadKeyEntry('k2')},${entry}` });
    expect(config.codec.payloadKeys.encryptKeyId).toBe('k2');
    expect(config.codec.payloadKeys.ids).toEqual(['k2', 'k1']);
    expect(JSON.stringify(config)).not.toContain(material);
    expect(inspect(config, { depth: 10 })).not.toContain(material);
    expect(loadTemporalConfig({}).codec.payloadKeys.encrypts).toBe(false);
    expect(() => loadTemporalConfig({ PAYLOAD_KEYS_FILE: '/nonexistent/keys' })).toThrow(
      /PAYLOAD_KEYS_FILE: cannot read/,
    );
    expect(() => loadTemporalConfig({ PAYLOAD_KEYS: 'k1=AAAA' })).toThrow(ConfigError);
  });

  it('requires keys and a credential for the codec server', () => {
    expect(() => loadCodecServerConfig({ CODEC_SERVER_TOKEN: 'a-long-enough-token' })).toThrow(
      /PAYLOAD_KEYS: is required/,
    );
    expect(() => loadCodecServerConfig({ PAYLOAD_KEYS: entry })).toThrow(/CODEC_SERVER_TOKEN: is required/);
    expect(() => loadCodecServerConfig({ PAYLOAD_KEYS: entry, CODEC_ALLOW_UI_ACCESS_TOKEN: 'true' })).toThrow(
      /CODEC_UI_JWKS_URL: is required/,
    );
    const config = loadCodecServerConfig({ PAYLOAD_KEYS: entry, CODEC_SERVER_TOKEN: 'a-long-enough-token' });
    expect(config).toMatchObject({ port: 8888, host: '127.0.0.1', corsOrigin: 'http://127.0.0.1:8233' });
  });
});
