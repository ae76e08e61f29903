/**
 * A readable stream over an already opened and checked file handle: positional reads from byte 0 up to the size
 * that was checked, never by path. Several streams may come from one handle, one after another (a re-sent
 * upload), and each starts again at byte 0 without moving a shared file position.
 */
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { classifyDocumentError, DocumentUnavailableError } from './errors';

/** Bytes read per chunk; the size of `fs` read streams' default buffer. */
const CHUNK_BYTES = 64 * 1024;

/** What one stream needs from its opened document. */
interface HandleStreamOptions {
  readonly handle: FileHandle;
  /** Bytes checked at open; exactly this many leave, or the stream fails. */
  readonly sizeBytes: number;
  readonly relativePath: string;
  /** True once the document has been closed; a stream then fails instead of reading a reused descriptor. */
  readonly isClosed: () => boolean;
}

/**
 * Streams exactly `sizeBytes` bytes of the handle. A file that shrank fails the stream, and so does a file that
 * grew: the last read asks for one byte more than remains, and finding it fails the stream *before* the last
 * chunk is pushed, so a receiver never sees a complete body of a file that changed under us. Both failures are
 * {@link DocumentUnavailableError}s: the next attempt opens the file again and checks its new size.
 */
export function createHandleStream(options: HandleStreamOptions): Readable {
  const { handle, sizeBytes, relativePath, isClosed } = options;
  let position = 0;
  const changed = (how: string): DocumentUnavailableError =>
    new DocumentUnavailableError({
      relativePath,
      message: `${relativePath}: the file ${how} while it was being read (checked size ${sizeBytes} bytes); will retry`,
    });

  return new Readable({
    highWaterMark: CHUNK_BYTES,
    read() {
      const remaining = sizeBytes - position;
      if (remaining === 0) {
        this.push(null);
        return;
      }
      if (isClosed()) {
        this.destroy(
          new DocumentUnavailableError({ relativePath, message: `${relativePath}: the document was closed` }),
        );
        return;
      }
      const isLast = remaining <= CHUNK_BYTES;
      const wanted = isLast ? remaining : CHUNK_BYTES;
      // On the last read one extra byte tells whether the file grew past the checked size.
      const buffer = Buffer.allocUnsafe(isLast ? wanted + 1 : wanted);
      handle.read(buffer, 0, buffer.length, position).then(
        ({ bytesRead }) => {
          if (this.destroyed) return;
          if (bytesRead > wanted) {
            this.destroy(changed('grew'));
            return;
          }
          if (bytesRead === 0) {
            this.destroy(changed('shrank'));
            return;
          }
          position += bytesRead;
          this.push(buffer.subarray(0, bytesRead));
        },
        (error: unknown) => {
          if (!this.destroyed) this.destroy(classifyDocumentError(error, relativePath, 'read'));
        },
      );
    },
  });
}
