/**
 * The payload encryption keys: `keyId=base64(32 bytes)` entries, newest first. The newest key encrypts; every
 * key decrypts, so a key can be rotated by putting a new one in front and keeping the old ones until no
 * history within the retention period uses them. Key material never appears in messages, logs or JSON.
 */
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';

/** AES-256 keys are 32 bytes. */
const PAYLOAD_KEY_BYTES = 32;

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Thrown for a malformed key list; the message names the entry, never its key material. */
export class PayloadKeysError extends Error {
  override readonly name = 'PayloadKeysError';
}

interface PayloadKey {
  readonly id: string;
  readonly material: Buffer;
}

/** The keys known to a process; see the module comment. */
export class PayloadKeyRing {
  /** As key objects: a raw key given to a cipher is imported again on every call, a key object is not. */
  readonly #keys: ReadonlyMap<string, KeyObject>;
  /** Id of the key that encrypts new payloads; null when encryption is off (no keys). */
  readonly encryptKeyId: string | null;

  private constructor(keys: readonly PayloadKey[]) {
    this.#keys = new Map(keys.map((key) => [key.id, createSecretKey(key.material)]));
    this.encryptKeyId = keys[0]?.id ?? null;
  }

  /** A ring without keys: payloads are not encrypted, encrypted payloads cannot be read. */
  static empty(): PayloadKeyRing {
    return new PayloadKeyRing([]);
  }

  /**
   * A ring from keys, newest first; throws {@link PayloadKeysError} for a bad id, size or duplicate. The error
   * names a key by its position only (`name(1)` = "key 1"): a mistyped entry may hold key material where the
   * id belongs.
   */
  static of(
    keys: readonly PayloadKey[],
    name: (position: number) => string = (position) => `key ${position}`,
  ): PayloadKeyRing {
    const positions = new Map<string, number>();
    keys.forEach((key, index) => {
      const position = index + 1;
      if (!KEY_ID.test(key.id)) {
        throw new PayloadKeysError(
          `${name(position)}: the key id must be 1-64 characters of A-Z a-z 0-9 . _ -`,
        );
      }
      const earlier = positions.get(key.id);
      if (earlier !== undefined) {
        throw new PayloadKeysError(`${name(earlier)} and ${name(position)} have the same key id`);
      }
      positions.set(key.id, position);
      if (key.material.length !== PAYLOAD_KEY_BYTES) {
        throw new PayloadKeysError(
          `${name(position)}: the key must be ${PAYLOAD_KEY_BYTES} bytes, got ${key.material.length} bytes`,
        );
      }
    });
    return new PayloadKeyRing(keys);
  }

  get encrypts(): boolean {
    return this.encryptKeyId !== null;
  }

  /** Key ids, newest first. */
  get ids(): readonly string[] {
    return [...this.#keys.keys()];
  }

  /** The key for an id, or undefined when the ring does not hold it. */
  key(id: string): KeyObject | undefined {
    return this.#keys.get(id);
  }

  /** Only the ids: a ring that ends up in a log line or JSON does not carry its keys. */
  toJSON(): { keyIds: readonly string[]; encryptKeyId: string | null } {
    return { keyIds: this.ids, encryptKeyId: this.encryptKeyId };
  }

  [inspect.custom](): string {
    return `PayloadKeyRing(${JSON.stringify(this.toJSON())})`;
  }
}

/**
 * Parses `keyId=base64,keyId=base64` (newest first; whitespace and newlines around entries are ignored).
 * `source` names the variable in error messages ('' for none). An empty text gives an empty ring.
 *
 * Errors name an entry by its position, never by its text: an entry written without `id=` (or with its parts
 * swapped) holds key material where the id belongs, and the error goes to logs.
 */
export function parsePayloadKeys(text: string, source = 'PAYLOAD_KEYS'): PayloadKeyRing {
  const prefix = source ? `${source}: ` : '';
  const entries = text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const keys = entries.map((entry, index): PayloadKey => {
    const separator = entry.indexOf('=');
    const id = separator < 0 ? '' : entry.slice(0, separator).trim();
    const encoded = separator < 0 ? '' : entry.slice(separator + 1).trim();
    const where = `${prefix}entry ${index + 1}`;
    if (!id || !encoded) throw new PayloadKeysError(`${where}: expected keyId=base64(32 bytes)`);
    if (!BASE64.test(encoded)) throw new PayloadKeysError(`${where}: the key is not base64`);
    return { id, material: Buffer.from(encoded, 'base64') };
  });
  try {
    return PayloadKeyRing.of(keys, (position) => `entry ${position}`);
  } catch (error) {
    if (error instanceof PayloadKeysError) throw new PayloadKeysError(`${prefix}${error.message}`);
    throw error;
  }
}

/** A new random key entry, `keyId=base64(32 bytes)`, for the demo, tests and operators' key generation. */
export function generatePayloadKeyEntry(keyId: string): string {
  if (!KEY_ID.test(keyId)) {
    throw new PayloadKeysError('the key id must be 1-64 characters of A-Z a-z 0-9 . _ -');
  }
  return `${keyId}=${randomBytes(PAYLOAD_KEY_BYTES).toString('base64')}`;
}
