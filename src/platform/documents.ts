/**
 * The document API's upload: `POST /document/api/v1/documents`, multipart/form-data streamed from disk.
 *
 * The file is never read into memory: form-data pipes an `fs` read stream into the request, with the file's
 * size as `knownLength` so the request carries a Content-Length, and the request is sent without axios'
 * redirect-following (which would buffer the body for replay): a 307/308 gets the file read and sent again.
 * Memory stays flat whatever the file size.
 */
import FormData from 'form-data';
import { lookup as lookupMimeType } from 'mime-types';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import type { ApiContext, Answered } from './auth';
import { PlatformError } from './errors';
import { extractDocument } from './extract';
import { IDEMPOTENCY_KEY_HEADER, sanitizeCause } from './http';
import { PLATFORM_PATHS } from './request-profile';
import type { BodyActivity, PlatformRequest, PlatformResponse } from './http';
import { requireIdempotencyKey } from './orders';
import type { UploadDocumentInput, UploadedDocument } from './types';

/** The `document_type` that links a document to a badge order (from the specification). */
export const DOCUMENT_TYPE_BADGE = 'badge';

/** The content type of the file part: the caller's, else derived from the file name. */
function resolveContentType(filename: string, contentType?: string): string {
  if (contentType !== undefined && contentType.trim() !== '') return contentType;
  return lookupMimeType(filename) || 'application/octet-stream';
}

const where = { method: 'POST', path: PLATFORM_PATHS.documents } as const;

/** File-system codes that say the file is not there (or not reachable by this path): trying again cannot help. */
const PERMANENT_FILE_CODES = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'EISDIR']);

/**
 * The error of a local file that cannot be read: `DOCUMENT_UNAVAILABLE` (retryable) for a file-system error that
 * may pass (`EIO`, `EMFILE`, `EACCES`, …), else `FILE_ERROR`. Nothing was sent either way.
 */
function fileError(filePath: string, error: unknown, fallback: string): PlatformError {
  const code = (error as { code?: unknown } | undefined)?.code;
  const problem = typeof code === 'string' ? code : fallback;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && !PERMANENT_FILE_CODES.has(code)) {
    return new PlatformError({
      code: 'DOCUMENT_UNAVAILABLE',
      ...where,
      message: `${where.method} ${where.path} not sent: cannot read local file ${filePath} now (${code})`,
    });
  }
  return new PlatformError({
    code: 'FILE_ERROR',
    ...where,
    filePath,
    message: `${where.method} ${where.path} not sent: cannot read local file ${filePath} (${problem})`,
    ...(error !== undefined && { cause: sanitizeCause(error, where, []) }),
  });
}

/** Open the file and check it is a regular file; everything that goes wrong is a {@link fileError}. */
async function openFile(filePath: string): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(filePath, 'r');
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      throw fileError(filePath, undefined, 'not a regular file');
    }
    return { handle, size: stats.size };
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    await handle?.close().catch(() => undefined);
    throw fileError(filePath, error, 'open failed');
  }
}

/** Where the bytes of one upload come from: a file path (opened per attempt) or the caller's source. */
interface OpenedBody {
  readonly stream: Readable;
  readonly size: number;
  /** A read error of this stream, as the caller should see it. */
  readonly readError: (error: unknown) => Error;
  readonly close: () => void;
}

async function openBody(input: UploadDocumentInput): Promise<OpenedBody> {
  if (input.source !== undefined) {
    const source = input.source;
    let stream: Readable;
    try {
      stream = source.openStream();
    } catch (error) {
      throw sourceError(error);
    }
    return {
      stream,
      size: source.sizeBytes,
      readError: sourceError,
      close: () => stream.destroy(),
    };
  }
  const filePath = input.filePath;
  if (filePath === undefined) throw new TypeError('uploadDocument requires filePath or source');
  const { handle, size } = await openFile(filePath);
  const stream = handle.createReadStream();
  return {
    stream,
    size,
    readError: (error) => fileError(filePath, error, 'read failed'),
    close: () => stream.destroy(),
  };
}

/**
 * A read error of a caller's {@link UploadSource}: the document side's own failures (`INVALID_DOCUMENT`,
 * `DOCUMENT_UNAVAILABLE`) pass through; anything else is a {@link fileError}.
 */
function sourceError(error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && (code === 'INVALID_DOCUMENT' || code === 'DOCUMENT_UNAVAILABLE'))
    return error;
  return fileError('(upload source)', error, 'read failed');
}

/**
 * Upload a document for an order, streaming it from disk (`filePath`) or from the caller's `source`. On a 401
 * the file is reopened (or `source.openStream()` called again) and sent again with a fresh token (a consumed
 * stream cannot be replayed), and so on a 307/308 to the address it names; `onProgress` then counts from zero
 * again.
 *
 * The call has a total deadline derived from the size (see `timeouts.uploadMinMs` and
 * `timeouts.minUploadBytesPerSecond`) and is aborted when no body byte moved for `timeouts.uploadStallMs`.
 * A 2xx means the platform stored the document: its id and links are extracted best-effort and never turn
 * the success into a failure.
 * @throws a `PlatformError`: `FILE_ERROR` or `DOCUMENT_UNAVAILABLE` when the file is missing or unreadable
 * (before or while sending), `FORBIDDEN` without the document scope, `VALIDATION` on 422 (e.g. the file is too
 * large or of a rejected type), `CONFLICT` while the same key is in flight, the transport errors of every call
 * (`TIMEOUT` on the deadline or a stall); or the reason of `signal` when it aborts
 */
export async function uploadDocument(
  context: ApiContext,
  input: UploadDocumentInput,
): Promise<UploadedDocument> {
  const idempotencyKey = requireIdempotencyKey(input.idempotencyKey, 'uploadDocument');
  // Ids are sent as the text they are, digit for digit: multipart parts are text.
  const { orderId, documentOwner: owner } = input;
  for (const [name, id] of [
    ['an orderId', orderId],
    ['a documentOwner', owner],
  ] as const) {
    if (typeof id !== 'string' || id.trim() === '') throw new TypeError(`uploadDocument requires ${name}`);
  }
  if ([input.filePath, input.source, input.withoutFile].filter((given) => given !== undefined).length !== 1) {
    throw new TypeError('uploadDocument requires exactly one of filePath, source and withoutFile');
  }
  if (
    input.source !== undefined &&
    (!Number.isSafeInteger(input.source.sizeBytes) || input.source.sizeBytes < 0)
  ) {
    throw new TypeError('uploadDocument requires a non-negative integer source.sizeBytes');
  }
  const filename = input.filename ?? (input.filePath === undefined ? 'document' : basename(input.filePath));
  const contentType = resolveContentType(filename, input.contentType);
  if (input.filePath !== undefined) {
    // Fail before authenticating when the file is not there: the caller's problem, not the platform's.
    const probe = await openFile(input.filePath);
    await probe.handle.close();
  }

  const parts = context.http.settings.requestProfile.documentParts;
  const attempt = async (bearer: string): Promise<Answered> => {
    input.signal?.throwIfAborted();
    const request: PlatformRequest = {
      route: 'documents',
      ...where,
      headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey },
      // Without a file too: only another name the platform asks for is one the profile does not know.
      sentNames: Object.values(parts),
      ...(input.signal && { signal: input.signal }),
      bearer,
    };
    return {
      request,
      response: await context.http.send(request, input.withoutFile === true ? sendFields : sendFile),
    };
  };

  // The fields alone, no file part.
  const sendFields = (hop: PlatformRequest): Promise<PlatformResponse> => {
    const form = new FormData();
    form.append(parts.type, DOCUMENT_TYPE_BADGE);
    form.append(parts.typeId, orderId);
    form.append(parts.owner, owner);
    return context.http.exchange({
      ...hop,
      headers: { ...form.getHeaders(), ...hop.headers },
      data: form.getBuffer(),
    });
  };

  // Called for each address a redirect (307/308) names: the file is read again, as a consumed stream cannot be
  // sent twice.
  const sendFile = async (hop: PlatformRequest): Promise<PlatformResponse> => {
    const body = await openBody(input);
    const source = body.stream;
    const size = body.size;
    let readError: unknown;
    source.once('error', (error) => {
      readError = error;
    });

    const form = new FormData();
    form.append(parts.type, DOCUMENT_TYPE_BADGE);
    form.append(parts.typeId, orderId);
    form.append(parts.owner, owner);
    form.append(parts.file, source, { filename, contentType, knownLength: size });
    let formEnded = false;
    form.once('end', () => {
      formEnded = true;
    });

    // Counted on the file stream itself. form-data has paused the stream by now, so this listener observes
    // the flow without starting it.
    let bytesSent = 0;
    const onProgress = input.onProgress;
    if (onProgress) {
      source.on('data', (chunk: Buffer | string) => {
        bytesSent += chunk.length;
        try {
          onProgress(bytesSent);
        } catch (error) {
          context.http.settings.logger.warn(
            { route: 'documents', err: sanitizeCause(error, where, []) },
            'upload onProgress callback threw',
          );
        }
      });
    }
    const stall: BodyActivity = {
      stallMs: context.http.settings.uploadStallMs,
      subscribe: (onBytes, onEnd) => {
        source.on('data', onBytes);
        form.once('end', onEnd);
        return () => {
          source.removeListener('data', onBytes);
          form.removeListener('end', onEnd);
        };
      },
    };

    const request: PlatformRequest = {
      ...hop,
      headers: {
        ...form.getHeaders(),
        'Content-Length': String(form.getLengthSync()),
        ...hop.headers,
      },
      data: form,
      deadlineMs: context.http.uploadDeadlineMs(size),
      stall,
    };
    try {
      return await context.http.exchange(request);
    } catch (error) {
      form.destroy();
      body.close();
      if (readError !== undefined && !input.signal?.aborted) throw body.readError(readError);
      throw error;
    } finally {
      if (!formEnded && !source.destroyed) {
        // The platform answered before taking the whole body (e.g. an early 401 or 413). Let the rest drain
        // so the connection stays usable, but never hold the file open longer than a request may take.
        const timer = setTimeout(() => {
          form.destroy();
          body.close();
        }, context.http.settings.requestMs);
        timer.unref();
        source.once('close', () => clearTimeout(timer));
      }
    }
  };

  const { request, response } = await context.auth.withToken(attempt, input.signal);
  if (response.status < 200 || response.status >= 300) throw context.http.errorFor(request, response);
  // A 2xx means stored: whatever the body names, this never fails.
  const parsed = extractDocument(response.body, context.http.settings.responseMap);
  const missing = [
    ...(parsed.documentId === null ? ['documentId'] : []),
    ...Object.entries(parsed.links)
      .filter(([, link]) => link === null)
      .map(([name]) => `links.${name}`),
  ];
  if (missing.length > 0) context.http.warnUnreadable('documents', response.status, response.body, missing);
  return {
    links: parsed.links,
    documentId: parsed.documentId,
    status: response.status,
    raw: response.body,
    ...(response.redirectedTo !== undefined && { redirectedTo: response.redirectedTo }),
  };
}
