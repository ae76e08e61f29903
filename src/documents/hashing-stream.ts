/** Hashing and counting a document's bytes while they stream into a store, refusing them past a limit. */
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { DocumentRefusedError } from './errors';

/**
 * A pass-through that hashes and counts the bytes, and fails with {@link DocumentRefusedError} (`too-large`) as
 * soon as they pass `maxBytes`, before passing on the chunk that crossed it.
 */
export class HashingStream extends Transform {
  private readonly hash: Hash = createHash('sha256');
  private counted = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  /** Bytes passed on so far. */
  get bytes(): number {
    return this.counted;
  }

  /** `sha256:<hex>` of every byte passed on; call once, after the stream ended. */
  reference(): string {
    return `sha256:${this.hash.digest('hex')}`;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.counted + chunk.length > this.maxBytes) {
      callback(new DocumentRefusedError({ reason: 'too-large', maxBytes: this.maxBytes }));
      return;
    }
    this.counted += chunk.length;
    this.hash.update(chunk);
    callback(null, chunk);
  }
}
