/**
 * Checks a stored document's bytes against its reference on their way to the platform. The check can only end
 * when the last byte has been hashed, and by then an upload that had been given every byte would have completed
 * its request. So the stream holds one chunk back: it passes each chunk on only when the next one arrives, and
 * the last one only after the size and the SHA-256 matched. A mismatch fails the stream with the last chunk
 * still held, and the request body (sent with its Content-Length) is never complete: the platform cannot store
 * bytes that are not the referenced document.
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { InvalidDocumentError } from './errors';
import { referenceHex, type DocumentReference } from './store';

/** The final error for bytes that are not the referenced document. */
export function mismatchError(ref: string, why: string): InvalidDocumentError {
  return new InvalidDocumentError({
    relativePath: ref,
    message: `${ref}: the stored document no longer matches its reference (${why}); it was not sent`,
  });
}

/**
 * A transform that passes the bytes of `source` on unchanged, and ends only when they are exactly the
 * referenced document, `sizeBytes` bytes with the SHA-256 of `ref` (see the module comment). Pipe the stored
 * object's stream into it.
 */
export function createVerifiedStream(options: Pick<DocumentReference, 'ref' | 'sizeBytes'>): Transform {
  const { ref, sizeBytes } = options;
  const expectedHex = referenceHex(ref);
  const hash = createHash('sha256');
  let received = 0;
  let held: Buffer | null = null;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      received += chunk.length;
      if (received > sizeBytes) {
        callback(mismatchError(ref, `more than ${sizeBytes} bytes`));
        return;
      }
      hash.update(chunk);
      const previous = held;
      held = chunk;
      callback(null, previous ?? undefined);
    },
    flush(callback: TransformCallback) {
      if (received !== sizeBytes) {
        callback(mismatchError(ref, `${received} bytes instead of ${sizeBytes}`));
        return;
      }
      const actual = hash.digest('hex');
      if (actual !== expectedHex) {
        callback(mismatchError(ref, `its SHA-256 is ${actual}`));
        return;
      }
      callback(null, held ?? undefined);
    },
  });
}
