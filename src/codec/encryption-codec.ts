/**
 * AES-256-GCM payload codec. An encrypted payload carries `encoding: binary/encrypted` and the id of its key in
 * its metadata; its data is `iv (12 bytes) | ciphertext | tag (16 bytes)` of the whole original payload
 * (metadata and data), with the key id as additional authenticated data. Payloads without that encoding are
 * passed through by `decode`, so histories written before encryption was switched on still replay.
 */
import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { PayloadKeyRing } from './key-ring';

/** `metadata.encoding` of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata entry holding the id of the key a payload was encrypted with. */
const KEY_ID_METADATA = 'encryption-key-id';
/** Metadata entry naming the cipher, for people reading raw histories. */
const CIPHER_METADATA = 'encryption-cipher';

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Why a payload could not be decrypted: it names no key, it names a key this process does not have, or the
 * key it names did not decrypt it (another key under the same id, or an altered payload).
 */
type PayloadDecryptionFailure = 'no-key-id' | 'unknown-key' | 'wrong-key';

/**
 * Thrown when an encrypted payload cannot be decrypted; the message names the key id (never the key) and, for
 * a key this process lacks, the ids it has (for its own logs; the codec server does not send those out).
 */
export class PayloadDecryptionError extends Error {
  override readonly name = 'PayloadDecryptionError';
  /** Stable code for callers and HTTP answers. */
  readonly code = 'PAYLOAD_DECRYPTION_FAILED';

  constructor(
    message: string,
    /** Id of the key the payload names, or null when it names none. */
    readonly keyId: string | null,
    readonly failure: PayloadDecryptionFailure,
  ) {
    super(message);
  }
}

const text = (value: Uint8Array | null | undefined): string | undefined =>
  value ? Buffer.from(value).toString('utf8') : undefined;

function isEncryptedPayload(payload: Payload): boolean {
  return text(payload.metadata?.encoding) === ENCRYPTED_ENCODING;
}

/** The key id an encrypted payload names, or undefined. */
export function payloadKeyId(payload: Payload): string | undefined {
  return text(payload.metadata?.[KEY_ID_METADATA]);
}

/** Runs synchronous work behind the codec's promise interface (a throw becomes a rejection). */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

interface EncryptionCodecOptions {
  /**
   * Gives the 12-byte nonce of each encryption. Only for test vectors (docs/payload-codec.md), which need a
   * known nonce: a nonce used twice with one key gives away the plaintexts. @default 12 random bytes
   */
  readonly nonce?: () => Buffer;
}

/** The codec; see the module comment. Encodes nothing when the ring has no keys. */
export class EncryptionCodec implements PayloadCodec {
  private readonly nonce: () => Buffer;
  /** What every payload encrypted with the ring's encryption key shares; made on the first encode. */
  private sealing: Sealing | undefined;

  constructor(
    private readonly keys: PayloadKeyRing,
    options: EncryptionCodecOptions = {},
  ) {
    this.nonce = options.nonce ?? randomNonces();
  }

  encode(payloads: Payload[]): Promise<Payload[]> {
    return settle(() => {
      const keyId = this.keys.encryptKeyId;
      if (keyId === null) return payloads;
      this.sealing ??= sealingFor(keyId, this.keys.key(keyId));
      const sealing = this.sealing;
      return payloads.map((payload) => encrypt(payload, sealing, this.nonce()));
    });
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    return settle(() =>
      payloads.map((payload) => (isEncryptedPayload(payload) ? this.decrypt(payload) : payload)),
    );
  }

  private decrypt(payload: Payload): Payload {
    const keyId = payloadKeyId(payload);
    if (keyId === undefined) {
      throw new PayloadDecryptionError(
        `Encrypted payload names no key (${KEY_ID_METADATA} is missing)`,
        null,
        'no-key-id',
      );
    }
    const key = this.keys.key(keyId);
    if (!key) {
      const known = this.keys.ids.length > 0 ? `known: ${this.keys.ids.join(', ')}` : 'no keys configured';
      throw new PayloadDecryptionError(
        `Payload encrypted with key "${keyId}" cannot be decrypted: that key is not in PAYLOAD_KEYS (${known})`,
        keyId,
        'unknown-key',
      );
    }
    const bytes = payload.data ?? new Uint8Array();
    // A view, not a copy: the ciphertext is only read.
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    try {
      if (data.length < IV_BYTES + TAG_BYTES) throw new Error('too short');
      const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(keyId, 'utf8'));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      const inner = temporal.api.common.v1.Payload.decode(plain);
      return { metadata: inner.metadata, data: inner.data };
    } catch {
      throw new PayloadDecryptionError(
        `Payload encrypted with key "${keyId}" could not be decrypted: the configured key "${keyId}" is not the ` +
          'one it was encrypted with, or the payload was altered',
        keyId,
        'wrong-key',
      );
    }
  }
}

/** The key and the bytes every payload encrypted with it carries: its metadata and its additional data. */
interface Sealing {
  readonly key: KeyObject;
  readonly aad: Buffer;
  readonly encoding: Buffer;
  readonly keyId: Buffer;
  readonly cipher: Buffer;
}

function sealingFor(keyId: string, key: KeyObject | undefined): Sealing {
  if (!key) throw new Error(`encryption key "${keyId}" missing from its own ring`);
  const id = Buffer.from(keyId, 'utf8');
  return {
    key,
    aad: id,
    encoding: Buffer.from(ENCRYPTED_ENCODING, 'utf8'),
    keyId: id,
    cipher: Buffer.from('AES-256-GCM', 'utf8'),
  };
}

/** Nonces needed at a time from the random source (one call to `randomBytes` for this many payloads). */
const NONCES_PER_DRAW = 256;

/** Fresh random nonces: 12 bytes each, cut from larger draws of `randomBytes`, each handed out once. */
function randomNonces(): () => Buffer {
  let pool = Buffer.alloc(0);
  let next = 0;
  return () => {
    if (next + IV_BYTES > pool.length) {
      pool = randomBytes(IV_BYTES * NONCES_PER_DRAW);
      next = 0;
    }
    const nonce = pool.subarray(next, next + IV_BYTES);
    next += IV_BYTES;
    return nonce;
  };
}

function encrypt(payload: Payload, sealing: Sealing, iv: Buffer): Payload {
  if (iv.length !== IV_BYTES) throw new Error(`the nonce must be ${IV_BYTES} bytes`);
  const cipher = createCipheriv(CIPHER, sealing.key, iv);
  cipher.setAAD(sealing.aad);
  const plain = temporal.api.common.v1.Payload.encode(payload).finish();
  return {
    metadata: {
      encoding: sealing.encoding,
      [KEY_ID_METADATA]: sealing.keyId,
      [CIPHER_METADATA]: sealing.cipher,
    },
    data: Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]),
  };
}
