/**
 * `POST /v1/documents`: stores one file in the document store and answers its content-addressed reference.
 * The file part of a multipart/form-data body streams into the store (hashed on the way, never held whole);
 * errors are RFC 9457 problem details. The API app registers this plugin; authentication and rate limits are
 * the app's (this route does not know about keys or scopes). Each upload belongs to a client (`ownerOf`): only
 * it may name the reference in an order, and its limits count per client: uploads at once, and bytes per window.
 */
import { pipeline, Transform } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyContextConfig, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { DOCUMENTS_ROUTE, type DocumentUploadResponse, type Problem } from '../../http-contract';
import { DocumentRefusedError, DocumentUnavailableError, type DocumentStore } from '../../documents';
import { WindowCounter } from '../window-counter';

/** What one client may upload (`API_UPLOAD_*`). */
export interface UploadLimits {
  /** Uploads of one client at the same time (`API_UPLOAD_MAX_CONCURRENT`). */
  readonly maxConcurrent: number;
  /** Bytes one client may send per window (`API_UPLOAD_QUOTA_BYTES`), stored or not. */
  readonly quotaBytes: number;
  /** The quota's window (`API_UPLOAD_QUOTA_WINDOW_MS`). */
  readonly quotaWindowMs: number;
}

/** Options of {@link documentsRoutes}. */
interface DocumentsRoutesOptions {
  readonly store: DocumentStore;
  /** Largest file accepted, in bytes (413 above it). */
  readonly maxBytes: number;
  /** The client an upload is stored for, and whose limits it counts against (the API: the caller's client id). */
  readonly ownerOf: (request: FastifyRequest) => string;
  readonly limits: UploadLimits;
  /** The route's `config` (the API app reads the scope a caller needs from it). */
  readonly routeConfig?: FastifyContextConfig;
}

/** Name of the multipart part that carries the file. */
export const DOCUMENT_FILE_FIELD = 'file';

/** Content type stored when the part names none (or an invalid one). */
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+$/;

/** The statuses `POST /v1/documents` answers with a problem, for the OpenAPI document. */
export const DOCUMENT_UPLOAD_PROBLEM_STATUSES = [400, 413, 415, 429, 500, 503] as const;

function sendProblem(
  reply: FastifyReply,
  problem: Problem,
  closeConnection = false,
  retryAfterMs?: number,
): FastifyReply {
  // A refusal while the client may still be sending: close the connection rather than read the rest.
  if (closeConnection) reply.header('connection', 'close');
  if (retryAfterMs !== undefined)
    reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return reply.code(problem.status).type('application/problem+json').send(problem);
}

/** Thrown into an upload's stream when it passes its client's byte quota. */
class QuotaExceededError extends Error {
  override readonly name = 'QuotaExceededError';
}

const problems = {
  notMultipart: (): Problem => ({
    type: 'urn:badge-orders:problem:unsupported-media-type',
    code: 'unsupported-media-type',
    title: 'Unsupported Media Type',
    status: 415,
    detail: `send the document as multipart/form-data with a file part named "${DOCUMENT_FILE_FIELD}"`,
  }),
  noFile: (detail: string): Problem => ({
    type: 'urn:badge-orders:problem:invalid-document',
    code: 'invalid-document',
    title: 'Bad Request',
    status: 400,
    detail,
    errors: [{ field: DOCUMENT_FILE_FIELD, message: detail }],
  }),
  tooLarge: (maxBytes: number): Problem => ({
    type: 'urn:badge-orders:problem:document-too-large',
    code: 'document-too-large',
    title: 'Content Too Large',
    status: 413,
    detail: `the document is larger than the limit of ${maxBytes} bytes; nothing was stored`,
    errors: [{ field: DOCUMENT_FILE_FIELD, message: `is larger than the limit of ${maxBytes} bytes` }],
  }),
  unavailable: (): Problem => ({
    type: 'urn:badge-orders:problem:document-store-unavailable',
    code: 'document-store-unavailable',
    title: 'Service Unavailable',
    status: 503,
    detail: 'the document store cannot be written now; try again later',
  }),
  tooManyUploads: (max: number): Problem => ({
    type: 'urn:badge-orders:problem:too-many-uploads',
    code: 'too-many-uploads',
    title: 'Too Many Requests',
    status: 429,
    detail: `at most ${max} uploads at once per client (API_UPLOAD_MAX_CONCURRENT); send this one when another has finished`,
  }),
  quotaExceeded: (limits: UploadLimits, retryAfterMs: number): Problem => ({
    type: 'urn:badge-orders:problem:upload-quota-exceeded',
    code: 'upload-quota-exceeded',
    title: 'Too Many Requests',
    status: 429,
    detail:
      `at most ${limits.quotaBytes} bytes per ${limits.quotaWindowMs / 1000} s per client ` +
      `(API_UPLOAD_QUOTA_BYTES per API_UPLOAD_QUOTA_WINDOW_MS); this window ends in ` +
      `${Math.ceil(retryAfterMs / 1000)} s; nothing was stored`,
  }),
  internal: (): Problem => ({
    type: 'urn:badge-orders:problem:internal-error',
    code: 'internal-error',
    title: 'Internal Server Error',
    status: 500,
    detail: 'the document could not be stored',
  }),
};

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/**
 * The upload route as a plugin: `app.register(documentsRoutes, { store, maxBytes })`. It registers
 * `@fastify/multipart` in its own scope unless the app has already.
 */
export const documentsRoutes: FastifyPluginAsync<DocumentsRoutesOptions> = async (app, options) => {
  const { store, maxBytes, ownerOf } = options;
  if (!app.hasRequestDecorator('isMultipart')) await app.register(multipart);
  // One byte over the limit gets through the parser, so the store itself sees the excess and refuses it.
  const limits = { files: 1, fileSize: maxBytes + 1, fields: 8, fieldSize: 1024, parts: 16 };
  const uploading = new Map<string, number>();
  const sent = new WindowCounter(options.limits.quotaWindowMs);

  app.post(DOCUMENTS_ROUTE, { config: options.routeConfig ?? {} }, async (request, reply) => {
    if (!request.isMultipart()) return sendProblem(reply, problems.notMultipart());
    const owner = ownerOf(request);
    if (sent.used(owner) >= options.limits.quotaBytes) {
      const retryAfterMs = sent.remainingMs(owner);
      return sendProblem(reply, problems.quotaExceeded(options.limits, retryAfterMs), true, retryAfterMs);
    }
    const running = uploading.get(owner) ?? 0;
    if (running >= options.limits.maxConcurrent) {
      return sendProblem(reply, problems.tooManyUploads(options.limits.maxConcurrent), true);
    }
    uploading.set(owner, running + 1);
    try {
      return await storeUpload(request, reply, owner);
    } finally {
      const left = (uploading.get(owner) ?? 1) - 1;
      if (left > 0) uploading.set(owner, left);
      else uploading.delete(owner);
    }
  });

  async function storeUpload(
    request: FastifyRequest,
    reply: FastifyReply,
    owner: string,
  ): Promise<FastifyReply> {
    let part;
    try {
      part = await request.file({ limits, throwFileSizeLimit: true });
    } catch (error) {
      request.log.info({ err: error }, 'multipart body refused');
      return sendProblem(reply, problems.noFile('the multipart body cannot be read'), true);
    }
    if (part === undefined) {
      return sendProblem(reply, problems.noFile(`no file part named "${DOCUMENT_FILE_FIELD}"`));
    }
    if (part.fieldname !== DOCUMENT_FILE_FIELD) {
      part.file.resume();
      return sendProblem(
        reply,
        problems.noFile(`the file part must be named "${DOCUMENT_FILE_FIELD}"`),
        true,
      );
    }
    const contentType = MIME_TYPE.test(part.mimetype) ? part.mimetype.toLowerCase() : FALLBACK_CONTENT_TYPE;
    // Every byte received counts against the client's quota, whether it ends up stored or not.
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        if (sent.add(owner, chunk.length) > options.limits.quotaBytes) callback(new QuotaExceededError());
        else callback(null, chunk);
      },
    });
    pipeline(part.file, counted, () => undefined);
    try {
      const stored = await store.put({ body: counted, contentType, maxBytes, owner });
      if (part.file.truncated) return sendProblem(reply, problems.tooLarge(maxBytes), true);
      const answer: DocumentUploadResponse = stored;
      return reply.code(201).send(answer);
    } catch (error) {
      if (
        (error instanceof DocumentRefusedError && error.reason === 'too-large') ||
        codeOf(error) === 'FST_REQ_FILE_TOO_LARGE'
      ) {
        return sendProblem(reply, problems.tooLarge(maxBytes), true);
      }
      if (error instanceof QuotaExceededError) {
        const retryAfterMs = sent.remainingMs(owner);
        return sendProblem(reply, problems.quotaExceeded(options.limits, retryAfterMs), true, retryAfterMs);
      }
      if (error instanceof DocumentRefusedError) {
        return sendProblem(reply, problems.noFile('the document is empty'));
      }
      if (error instanceof DocumentUnavailableError) {
        request.log.warn({ err: error }, 'document store unavailable');
        return sendProblem(reply, problems.unavailable(), true);
      }
      request.log.error({ err: error }, 'document upload failed');
      return sendProblem(reply, problems.internal(), true);
    }
  }
};
