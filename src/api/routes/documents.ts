/**
 * `POST /v1/documents`: stores one file in the document store and answers its content-addressed reference.
 * The file part of a multipart/form-data body streams into the store (hashed on the way, never held whole);
 * errors are RFC 9457 problem details. The API app registers this plugin; authentication and rate limits are
 * the app's (this route does not know about keys or scopes).
 */
import multipart from '@fastify/multipart';
import type { FastifyContextConfig, FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import { DOCUMENT_REFERENCE_PATTERN } from '../../contract';
import { DocumentRefusedError, DocumentUnavailableError, type DocumentStore } from '../../documents';

/** Options of {@link documentsRoutes}. */
export interface DocumentsRoutesOptions {
  readonly store: DocumentStore;
  /** Largest file accepted, in bytes (413 above it). */
  readonly maxBytes: number;
  /** The route's `config` (the API app reads the scope a caller needs from it). */
  readonly routeConfig?: FastifyContextConfig;
}

/** The path of the upload route. */
export const DOCUMENTS_ROUTE = '/v1/documents';

/** Name of the multipart part that carries the file. */
export const DOCUMENT_FILE_FIELD = 'file';

/** Content type stored when the part names none (or an invalid one). */
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';
const MIME_TYPE = /^[\w.+-]+\/[\w.+-]+$/;

/** Request body of `POST /v1/documents`, for the OpenAPI document: multipart/form-data with one file part. */
export const documentUploadRequestSchema = z
  .object({
    file: z.string().meta({
      format: 'binary',
      description:
        'The document (one file part named "file"); its part Content-Type is stored as the content type.',
    }),
  })
  .meta({ description: 'multipart/form-data' });

/** Answer of `POST /v1/documents` (201): name the document in an order as `{ "ref": … }`. */
export const documentUploadResponseSchema = z.object({
  ref: z
    .string()
    .regex(DOCUMENT_REFERENCE_PATTERN)
    .meta({
      description:
        'Content-addressed reference: "sha256:" and the 64 hex digits of the SHA-256 of the bytes.',
      example: `sha256:${'0123456789abcdef'.repeat(4)}`,
    }),
  sizeBytes: z.number().int().positive(),
  contentType: z.string().meta({ description: 'As first stored: the same bytes uploaded again keep it.' }),
});
/** Answer of `POST /v1/documents`. */
export type DocumentUploadResponse = z.infer<typeof documentUploadResponseSchema>;

/** An RFC 9457 problem detail as this route answers it (`application/problem+json`). */
export const documentProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  /** Stable code of the problem (the end of `type`), as in every problem of the API. */
  code: z.string(),
  /** The field and what is wrong with it, in the API's form for invalid input. */
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
/** A problem detail of this route. */
export type DocumentProblem = z.infer<typeof documentProblemSchema>;

/** The statuses `POST /v1/documents` answers with a problem, for the OpenAPI document. */
export const DOCUMENT_UPLOAD_PROBLEM_STATUSES = [400, 413, 415, 500, 503] as const;

function sendProblem(reply: FastifyReply, problem: DocumentProblem, closeConnection = false): FastifyReply {
  // A refusal while the client may still be sending: close the connection rather than read the rest.
  if (closeConnection) reply.header('connection', 'close');
  return reply.code(problem.status).type('application/problem+json').send(problem);
}

const problems = {
  notMultipart: (): DocumentProblem => ({
    type: 'urn:badge-orders:problem:unsupported-media-type',
    code: 'unsupported-media-type',
    title: 'Unsupported Media Type',
    status: 415,
    detail: `send the document as multipart/form-data with a file part named "${DOCUMENT_FILE_FIELD}"`,
  }),
  noFile: (detail: string): DocumentProblem => ({
    type: 'urn:badge-orders:problem:invalid-document',
    code: 'invalid-document',
    title: 'Bad Request',
    status: 400,
    detail,
    errors: [{ field: DOCUMENT_FILE_FIELD, message: detail }],
  }),
  tooLarge: (maxBytes: number): DocumentProblem => ({
    type: 'urn:badge-orders:problem:document-too-large',
    code: 'document-too-large',
    title: 'Content Too Large',
    status: 413,
    detail: `the document is larger than the limit of ${maxBytes} bytes; nothing was stored`,
    errors: [{ field: DOCUMENT_FILE_FIELD, message: `is larger than the limit of ${maxBytes} bytes` }],
  }),
  unavailable: (): DocumentProblem => ({
    type: 'urn:badge-orders:problem:document-store-unavailable',
    code: 'document-store-unavailable',
    title: 'Service Unavailable',
    status: 503,
    detail: 'the document store cannot be written now; try again later',
  }),
  internal: (): DocumentProblem => ({
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
  const { store, maxBytes } = options;
  if (!app.hasRequestDecorator('isMultipart')) await app.register(multipart);
  // One byte over the limit gets through the parser, so the store itself sees the excess and refuses it.
  const limits = { files: 1, fileSize: maxBytes + 1, fields: 8, fieldSize: 1024, parts: 16 };

  app.post(DOCUMENTS_ROUTE, { config: options.routeConfig ?? {} }, async (request, reply) => {
    if (!request.isMultipart()) return sendProblem(reply, problems.notMultipart());
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
    try {
      const stored = await store.put({ body: part.file, contentType, maxBytes });
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
  });
};
