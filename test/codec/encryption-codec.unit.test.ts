/** The AES-256-GCM payload codec and its key ring: rotation, wrong keys, pass-through, no key in messages. */
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  EncryptionCodec,
  ENCRYPTED_ENCODING,
  PayloadDecryptionError,
  payloadKeyId,
} from '../../src/codec/encryption-codec';
import {
  generatePayloadKeyEntry,
  parsePayloadKeys,
  PayloadKeyRing,
  PayloadKeysError,
} from '../../src/codec/key-ring';
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

  it('gives every payload its own nonce, across many encodes, and each still decrypts', async () => {
    const codec = new EncryptionCodec(parsePayloadKeys(oldEntry));
    // More payloads than one draw of random bytes serves, one and several per call.
    const batches = await Promise.all(
      Array.from({ length: 400 }, (_, index) =>
        codec.encode(index % 2 === 0 ? [toPayload(index)] : [toPayload(index), toPayload(-index)]),
      ),
    );
    const encrypted = batches.flat();
    const nonces = encrypted.map((payload) =>
      Buffer.from(payload.data ?? [])
        .subarray(0, 12)
        .toString('hex'),
    );
    expect(new Set(nonces).size).toBe(encrypted.length);
    const decrypted = await codec.decode(encrypted);
    expect(decrypted.map(fromPayload)).toEqual(
      batches.flatMap((_, index) => (index % 2 === 0 ? [index] : [index, -index])),
    );
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

  it('refuses malformed entries with messages that name the entry by position, never its text', () => {
    const short = Buffer.alloc(16, 9).toString('base64');
    expect(() => parsePayloadKeys(`k1=${short}`)).toThrow(
      new PayloadKeysError('PAYLOAD_KEYS: entry 1: the key must be 32 bytes, got 16 bytes'),
    );
    expect(() => parsePayloadKeys(`${entry},${generatePayloadKeyEntry('k2')},${entry}`)).toThrow(
      new PayloadKeysError('PAYLOAD_KEYS: entry 1 and entry 3 have the same key id'),
    );
    expect(() => parsePayloadKeys('k1')).toThrow(/entry 1: expected keyId=base64/);
    expect(() => parsePayloadKeys('k1=not base64!')).toThrow(
      new PayloadKeysError('PAYLOAD_KEYS: entry 1: the key is not base64'),
    );
    expect(() => parsePayloadKeys(`${entry},bad id=${material}`)).toThrow(
      new PayloadKeysError('PAYLOAD_KEYS: entry 2: the key id must be 1-64 characters of A-Z a-z 0-9 . _ -'),
    );
    expect(() => PayloadKeyRing.of([{ id: 'bad id', material: Buffer.alloc(32) }])).toThrow(
      /^key 1: the key id must be/,
    );
  });

  /** Every message the parser, the configuration and the key ring give for `text`, or [] when it parses. */
  const errorsFor = (text: string): string[] => {
    const messages: string[] = [];
    for (const load of [
      () => parsePayloadKeys(text),
      () => loadTemporalConfig({ PAYLOAD_KEYS: text }),
      () => loadCodecServerConfig({ PAYLOAD_KEYS: text, CODEC_SERVER_TOKEN: 'a-long-enough-token' }),
    ]) {
      try {
        load();
      } catch (error) {
        messages.push(String(error), (error as Error).stack ?? '');
      }
    }
    return messages;
  };
  /** The substrings of `secret` that are 8 characters long (shorter ones occur in any text by chance). */
  const pieces = (secret: string): string[] =>
    Array.from({ length: secret.length - 7 }, (_, start) => secret.slice(start, start + 8));

  it.each([
    ['a key without "id="', (key: string) => key],
    ['a key without "id=", after a good entry', (key: string) => `${entry},${key}`],
    ['a key written where the id belongs', (key: string) => `${key}=${material}`],
    ['a key used as id and as key', (key: string) => `${key}=${key}`],
    ['a key with a trailing "="', (key: string) => `${key}=`],
    [
      'a key twice, as ids',
      (key: string) => `${key.replace(/[+/=]/g, 'x')}=${material},${key.replace(/[+/=]/g, 'x')}=${material}`,
    ],
    ['a truncated key', (key: string) => `k9=${key.slice(0, 40)}`],
    ['a key with a space in it', (key: string) => `k9=${key.slice(0, 20)} ${key.slice(20)}`],
  ])('never echoes any part of the key material for %s', (_, entryFor) => {
    // Several random keys: a key with or without "+", "/" and "=" takes other paths through the parser.
    for (let round = 0; round < 20; round += 1) {
      const key = randomBytes(32).toString('base64');
      const messages = errorsFor(entryFor(key));
      expect(messages.length).toBeGreaterThan(0);
      for (const message of messages) {
        for (const piece of pieces(key)) expect(message).not.toContain(piece);
      }
    }
  });

  it('reads PAYLOAD_KEYS or PAYLOAD_KEYS_FILE into the configuration without exposing the keys', () => {
    const config = loadTemporalConfig({ PAYLOAD_KEYS: `${generatePayloadKeyEntry('k2')},${entry}` });
    expect(config.codec.payloadKeys.encryptKeyId).toBe('k2');
    expect(config.codec.payloadKeys.ids).toEqual(['k2', 'k1']);
    expect(JSON.stringify(config)).not.toContain(material);
    expect(inspect(config, { depth: 10 })).not.toContain(material);
    expect(loadTemporalConfig({ PAYLOAD_ENCRYPTION: 'off' }).codec.payloadKeys.encrypts).toBe(false);
    expect(() => loadTemporalConfig({})).toThrow(/PAYLOAD_KEYS: is required.*PAYLOAD_ENCRYPTION=off/);
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
