/**
 * `POST /v1/documents` in the API app: stores one file in the document store and answers its
 * content-addressed reference. The file part of a multipart/form-data body streams into the store (hashed on
 * the way, never held whole); errors are RFC 9457 problem details. The route itself ({@link documentsRoutes})
 * knows nothing of keys: the app puts it behind its authentication (the route names its scope,
 * `orders:write`, as placing the order that names the document), rate limits and OpenAPI document. Each
 * upload belongs to a client (`ownerOf`): only it may name the reference in an order (the same store answers
 * the orders routes whether a reference is the caller's), the answer's content type is the one it uploaded
 * with (so an upload never tells whether another client stored the same bytes), and its limits count per
 * client: uploads at once, and bytes per window.
 */
import { pipeline, Transform } from 'node:stream';
import multipart from '@fastify/multipart';
import type { z } from 'zod';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { UPLOAD_DOCUMENT, type DocumentUploadResponse, type Operation } from '../http-contract';
import {
  DocumentRefusedError,
  DocumentUnavailableError,
  documentStoreFromConfig,
  type DocumentStore,
} from '../documents';
import { errnoCode } from '../documents/errors';
import { uploadLimitsSchema, type ApiConfig } from './config';
import { ApiProblem, PROBLEM_CONTENT_TYPE, problemBody } from './problem';
import { WindowCounter } from './window-counter';

/** What one client may upload (`API_UPLOAD_*`, see `uploadLimitsSchema`). */
export type UploadLimits = Readonly<z.infer<typeof uploadLimitsSchema>>;

/** The API's documents: where uploads are stored, and what one client may upload. */
export interface ApiDocuments {
  readonly store: DocumentStore;
  /** Largest document stored, in bytes (`MAX_DOCUMENT_BYTES`); 413 above it. */
  readonly maxBytes: number;
  readonly uploads: UploadLimits;
}

interface DocumentsRoutesOptions extends ApiDocuments {
  /** The client an upload is stored for, and whose limits it counts against (the API: the caller's client id). */
  readonly ownerOf: (request: FastifyRequest) => string;
}

/** Name of the multipart part that carries the file. */
const DOCUMENT_FILE_FIELD = 'file';

/** Content type stored when the part names none (or an invalid one). */
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+$/;

/** Sends a problem; `closeConnection` for a refusal while the client may still be sending (the rest is not read). */
function refuse(reply: FastifyReply, problem: ApiProblem, closeConnection = false): FastifyReply {
  if (closeConnection) reply.header('connection', 'close');
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(problemBody(problem));
}

/** Thrown into an upload's stream when it passes its client's byte quota. */
class QuotaExceededError extends Error {
  override readonly name = 'QuotaExceededError';
}

/** The document store cannot answer now (a {@link DocumentUnavailableError}): storing, or checking a reference. */
export const documentStoreUnavailable = (): ApiProblem =>
  new ApiProblem({
    status: 503,
    code: 'document-store-unavailable',
    detail: 'the document store cannot be reached now; try again shortly',
    headers: { 'retry-after': '5' },
  });

const problems = {
  notMultipart: (): ApiProblem =>
    new ApiProblem({
      status: 415,
      code: 'unsupported-media-type',
      detail: `send the document as multipart/form-data with a file part named "${DOCUMENT_FILE_FIELD}"`,
    }),
  noFile: (detail: string): ApiProblem =>
    new ApiProblem({
      status: 400,
      code: 'invalid-document',
      detail,
      errors: [{ field: DOCUMENT_FILE_FIELD, message: detail }],
    }),
  tooLarge: (maxBytes: number): ApiProblem =>
    new ApiProblem({
      status: 413,
      code: 'document-too-large',
      title: 'Content Too Large',
      detail: `the document is larger than the limit of ${maxBytes} bytes; nothing was stored`,
      errors: [{ field: DOCUMENT_FILE_FIELD, message: `is larger than the limit of ${maxBytes} bytes` }],
    }),
  tooManyUploads: (max: number): ApiProblem =>
    new ApiProblem({
      status: 429,
      code: 'too-many-uploads',
      detail: `at most ${max} uploads at once per client (API_UPLOAD_MAX_CONCURRENT); send this one when another has finished`,
    }),
  quotaExceeded: (limits: UploadLimits, retryAfterMs: number): ApiProblem =>
    new ApiProblem({
      status: 429,
      code: 'upload-quota-exceeded',
      detail:
        `at most ${limits.quotaBytes} bytes per ${limits.quotaWindowMs / 1000} s per client ` +
        `(API_UPLOAD_QUOTA_BYTES per API_UPLOAD_QUOTA_WINDOW_MS); this window ends in ` +
        `${Math.ceil(retryAfterMs / 1000)} s; nothing was stored`,
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
    }),
  internal: (): ApiProblem =>
    new ApiProblem({ status: 500, code: 'internal-error', detail: 'the document could not be stored' }),
};

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
  const sent = new WindowCounter(options.uploads.quotaWindowMs);

  app.post(UPLOAD_DOCUMENT.path, { config: { scope: UPLOAD_DOCUMENT.scope } }, async (request, reply) => {
    if (!request.isMultipart()) return refuse(reply, problems.notMultipart());
    const owner = ownerOf(request);
    if (sent.used(owner) >= options.uploads.quotaBytes) {
      return refuse(reply, problems.quotaExceeded(options.uploads, sent.remainingMs(owner)), true);
    }
    const running = uploading.get(owner) ?? 0;
    if (running >= options.uploads.maxConcurrent) {
      return refuse(reply, problems.tooManyUploads(options.uploads.maxConcurrent), true);
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
      return refuse(reply, problems.noFile('the multipart body cannot be read'), true);
    }
    if (part === undefined) {
      return refuse(reply, problems.noFile(`no file part named "${DOCUMENT_FILE_FIELD}"`));
    }
    if (part.fieldname !== DOCUMENT_FILE_FIELD) {
      part.file.resume();
      return refuse(reply, problems.noFile(`the file part must be named "${DOCUMENT_FILE_FIELD}"`), true);
    }
    const contentType = MIME_TYPE.test(part.mimetype) ? part.mimetype.toLowerCase() : FALLBACK_CONTENT_TYPE;
    // Every byte received counts against the client's quota, whether it ends up stored or not.
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        if (sent.add(owner, chunk.length) > options.uploads.quotaBytes) callback(new QuotaExceededError());
        else callback(null, chunk);
      },
    });
    pipeline(part.file, counted, () => undefined);
    try {
      const stored = await store.put({ body: counted, contentType, maxBytes, owner });
      if (part.file.truncated) return refuse(reply, problems.tooLarge(maxBytes), true);
      const answer: DocumentUploadResponse = stored;
      return reply.code(201).send(answer);
    } catch (error) {
      if (
        (error instanceof DocumentRefusedError && error.reason === 'too-large') ||
        errnoCode(error) === 'FST_REQ_FILE_TOO_LARGE'
      ) {
        return refuse(reply, problems.tooLarge(maxBytes), true);
      }
      if (error instanceof QuotaExceededError) {
        return refuse(reply, problems.quotaExceeded(options.uploads, sent.remainingMs(owner)), true);
      }
      if (error instanceof DocumentRefusedError) {
        return refuse(reply, problems.noFile('the document is empty'));
      }
      if (error instanceof DocumentUnavailableError) {
        request.log.warn({ err: error }, 'document store unavailable');
        return refuse(reply, documentStoreUnavailable(), true);
      }
      request.log.error({ err: error }, 'document upload failed');
      return refuse(reply, problems.internal(), true);
    }
  }
};

/**
 * The documents of the API's configuration. The store is checked first: one that cannot be written is found at
 * start, not at the first upload.
 */
export async function apiDocumentsFromConfig(
  documents: Pick<ApiConfig['documents'], 'documentsRoot' | 'maxDocumentBytes' | 'store'> & {
    /** @default see `uploadLimitsSchema` */
    readonly uploads?: UploadLimits;
  },
): Promise<ApiDocuments> {
  const maxBytes = documents.maxDocumentBytes;
  const store = documentStoreFromConfig(documents.store, {
    documentsRoot: documents.documentsRoot,
    maxBytes,
  });
  await store.check();
  return { store, maxBytes, uploads: documents.uploads ?? uploadLimitsSchema.parse({}) };
}

/** The upload's operation, for the OpenAPI document: its description ends with these limits. */
export function uploadDocumentOperation(documents: Pick<ApiDocuments, 'maxBytes' | 'uploads'>): Operation {
  const { maxConcurrent, quotaBytes, quotaWindowMs } = documents.uploads;
  return {
    ...UPLOAD_DOCUMENT,
    description:
      `${UPLOAD_DOCUMENT.description} At most ${documents.maxBytes} bytes; at most ${maxConcurrent} uploads ` +
      `at once and ${quotaBytes} bytes per ${quotaWindowMs / 1000} s per client.`,
  };
}
