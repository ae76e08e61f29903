/**
 * The payload codec against its published test vectors (test/codec/vectors.json, docs/payload-codec.md):
 * our codec encrypts each plaintext to the vector's payload with the vector's nonce and decrypts it back, and
 * node's AES-GCM alone — following the written format, not our code — decrypts it too.
 */
import { createDecipheriv } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { PayloadKeyRing } from '../../src/codec/key-ring';

const vectorsSchema = z.object({
  vectors: z
    .array(
      z.object({
        name: z.string(),
        keyId: z.string(),
        keyBase64: z.string(),
        nonceHex: z.string().regex(/^[0-9a-f]{24}$/),
        plaintext: z.object({ metadata: z.record(z.string(), z.string()), dataUtf8: z.string() }),
        plaintextProtobufHex: z.string(),
        encrypted: z.object({ metadata: z.record(z.string(), z.string()), dataBase64: z.string() }),
      }),
    )
    .min(3),
});

const { vectors } = vectorsSchema.parse(JSON.parse(readFileSync(join(__dirname, 'vectors.json'), 'utf8')));

const bytesOf = (record: Record<string, string>): Record<string, Uint8Array> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, Buffer.from(value, 'utf8')]));
const textOf = (
  record: Record<string, Uint8Array | null | undefined> | null | undefined,
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(record ?? {}).map(([key, value]) => [key, Buffer.from(value ?? []).toString('utf8')]),
  );

describe.each(vectors)('payload codec vector: $name', (vector) => {
  const key = Buffer.from(vector.keyBase64, 'base64');
  const nonce = Buffer.from(vector.nonceHex, 'hex');
  const ring = PayloadKeyRing.of([{ id: vector.keyId, material: key }]);
  const plaintext = {
    metadata: bytesOf(vector.plaintext.metadata),
    data: Buffer.from(vector.plaintext.dataUtf8, 'utf8'),
  };

  it('encrypts the plaintext to the vector’s payload with the vector’s nonce', async () => {
    const codec = new EncryptionCodec(ring, { nonce: () => Buffer.from(nonce) });
    const [encrypted] = await codec.encode([plaintext]);
    expect(textOf(encrypted?.metadata)).toEqual(vector.encrypted.metadata);
    expect(Buffer.from(encrypted?.data ?? []).toString('base64')).toBe(vector.encrypted.dataBase64);
  });

  it('decrypts the vector’s payload with the codec (random nonces in production)', async () => {
    const [decoded] = await new EncryptionCodec(ring).decode([
      {
        metadata: bytesOf(vector.encrypted.metadata),
        data: Buffer.from(vector.encrypted.dataBase64, 'base64'),
      },
    ]);
    expect(textOf(decoded?.metadata)).toEqual(vector.plaintext.metadata);
    expect(Buffer.from(decoded?.data ?? []).toString('utf8')).toBe(vector.plaintext.dataUtf8);
  });

  it('decrypts as docs/payload-codec.md describes, with AES-256-GCM alone', () => {
    const data = Buffer.from(vector.encrypted.dataBase64, 'base64');
    expect(data.subarray(0, 12).toString('hex')).toBe(vector.nonceHex);
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
    decipher.setAAD(Buffer.from(vector.keyId, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - 16));
    const plain = Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
    expect(plain.toString('hex')).toBe(vector.plaintextProtobufHex);
    const inner = temporal.api.common.v1.Payload.decode(plain);
    expect(textOf(inner.metadata)).toEqual(vector.plaintext.metadata);
    expect(Buffer.from(inner.data ?? []).toString('utf8')).toBe(vector.plaintext.dataUtf8);
  });

  it('refuses the payload under another key id (the key id is authenticated)', async () => {
    const other = PayloadKeyRing.of([{ id: `${vector.keyId}-x`, material: key }]);
    const codec = new EncryptionCodec(other);
    await expect(
      codec.decode([
        {
          metadata: bytesOf({ ...vector.encrypted.metadata, 'encryption-key-id': `${vector.keyId}-x` }),
          data: Buffer.from(vector.encrypted.dataBase64, 'base64'),
        },
      ]),
    ).rejects.toThrow(/could not be decrypted/);
  });
});
