/**
 * `POST /document/api/v1/documents`: receives a multipart upload as a stream, hashing and counting the bytes
 * on the way to nowhere (or to the storage directory), enforces the rules, and stores the document's record.
 * Memory use does not grow with the file size.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { lookup } from 'mime-types';
import type { SandboxRules } from '../config';
import { claimsOf } from '../context';
import type { SandboxContext } from '../context';
import { validationError } from '../http-error';
import { runIdempotent, sentIdempotencyKey } from '../idempotency';
import type { RouteResult } from '../idempotency';
import { DOCUMENT_FIELDS, DOCUMENT_TYPE_BADGE, PLATFORM_PATHS, documentLinks } from '../shapes';
import type { DocumentResponse } from '../shapes';
import type { NewDocument } from '../store';
import { documentBody, documentIdOf } from '../wire';
import { sendEffectResult } from './respond';

/** Lifetime of a signed download link. */
const DOWNLOAD_LINK_TTL_SECONDS = 3600;

type DocumentField = (typeof DOCUMENT_FIELDS)[number];

/** The fields and the file of an upload, as received. */
interface Upload {
  fields: Partial<Record<DocumentField, string>>;
  file: ReceivedFile | undefined;
}

/** A file received in full. */
interface ReceivedFile {
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  /** Name of the multipart part it came in. */
  part: string;
  /** Temporary path of the bytes when a storage directory is configured. */
  tempPath: string | undefined;
}

/** The part's content type without parameters; derived from the filename when the part says octet-stream. */
function contentTypeOf(part: MultipartFile): string {
  const declared = (part.mimetype.split(';')[0] ?? '').trim().toLowerCase();
  if (declared && declared !== 'application/octet-stream') return declared;
  const guessed = lookup(part.filename);
  return guessed === false ? declared || 'application/octet-stream' : guessed;
}

/**
 * Streams one file part through a hashing and counting meter into `sink`, rejecting it with 422 as soon as it
 * exceeds `maxBytes`.
 */
async function receiveFile(
  part: MultipartFile,
  contentType: string,
  maxBytes: number,
  storageDir: string | undefined,
): Promise<ReceivedFile> {
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) {
        callback(validationError('file', `the file exceeds the limit of ${maxBytes} bytes`, true));
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  const tempPath = storageDir === undefined ? undefined : join(storageDir, `.upload-${randomUUID()}`);
  const sink =
    tempPath === undefined
      ? new Writable({
          write(_chunk, _encoding, callback) {
            callback();
          },
        })
      : createWriteStream(tempPath);
  try {
    await pipeline(part.file, meter, sink);
  } catch (error) {
    if (tempPath !== undefined) await rm(tempPath, { force: true });
    throw error;
  }
  if (part.file.truncated) {
    if (tempPath !== undefined) await rm(tempPath, { force: true });
    throw validationError('file', `the file exceeds the limit of ${maxBytes} bytes`, true);
  }
  return {
    filename: part.filename,
    contentType,
    size,
    sha256: hash.digest('hex'),
    part: part.fieldname,
    tempPath,
  };
}

/** Thrown when the client went away before its upload arrived whole; nothing is stored. */
class ClientAbortedError extends Error {
  override readonly name = 'ClientAbortedError';
}

/**
 * Rejects when the request stream closes before the parser has read it to the end (the client went away, even
 * after sending everything: a destroyed stream drops what was not yet read). The multipart parser would
 * otherwise wait forever, and the upload's Idempotency-Key would stay "in flight" (409) for good.
 */
function whenClientAborts(request: FastifyRequest): Promise<never> {
  const aborted = new Promise<never>((_resolve, reject) => {
    const check = (): void => {
      if (!request.raw.readableEnded)
        reject(new ClientAbortedError('the client closed the connection mid-upload'));
    };
    if (request.raw.destroyed) check();
    else request.raw.once('close', check);
  });
  // The race below observes the rejection; this keeps an unobserved one from being reported.
  aborted.catch(() => undefined);
  return aborted;
}

/**
 * Reads every part, in whatever order the client sent fields and file; with `filePart` `any` the one file part
 * may have any name, otherwise it must be `filePart`.
 */
async function readParts(
  request: FastifyRequest,
  rules: SandboxRules,
  storageDir: string | undefined,
  filePart: string,
): Promise<Upload> {
  const anyFilePart = filePart === 'any';
  const fileField = fileFieldOf(filePart);
  if (!request.isMultipart()) {
    throw validationError('body', 'the body must be multipart/form-data');
  }
  const fields: Partial<Record<DocumentField, string>> = {};
  let file: ReceivedFile | undefined;
  const parts = request.parts({
    // One byte over the limit lets the meter see the excess and answer with our own message.
    limits: { fileSize: rules.maxUploadBytes + 1, files: 4, fields: 32, parts: 40, fieldSize: 64 * 1024 },
  });
  try {
    for await (const part of parts) {
      if (part.type === 'file') {
        if (!anyFilePart && part.fieldname !== fileField) {
          // Named by the part it wants, as a validation answer names what is missing.
          throw validationError(
            fileField,
            `unexpected file part "${part.fieldname}"; the file part must be named "${fileField}"`,
            true,
          );
        }
        if (file) throw validationError(fileField, 'only one file part is accepted', true);
        const contentType = contentTypeOf(part);
        if (!rules.acceptedContentTypes.includes(contentType)) {
          throw validationError(
            fileField,
            `the file's content type "${contentType}" is not accepted (accepted: ${rules.acceptedContentTypes.join(', ')})`,
            true,
          );
        }
        file = await receiveFile(part, contentType, rules.maxUploadBytes, storageDir);
      } else if (part.fieldname === fileField) {
        throw validationError(fileField, 'the file part must be a file (with a filename)', true);
      } else if ((DOCUMENT_FIELDS as readonly string[]).includes(part.fieldname)) {
        fields[part.fieldname as DocumentField] =
          typeof part.value === 'string' ? part.value : String(part.value);
      }
    }
  } catch (error) {
    if (file?.tempPath !== undefined) await rm(file.tempPath, { force: true });
    throw error;
  }
  return { fields, file };
}

/** The name an error gives the file part: the one the profile wants, `file` when any name is accepted. */
const fileFieldOf = (filePart: string): string => (filePart === 'any' ? 'file' : filePart);

/** Checks the fields and the file in the documented order; answers 422 naming the first field at fault. */
function validateUpload(
  ctx: SandboxContext,
  userId: string,
  { fields, file }: Upload,
): { orderId: string; owner: string; file: ReceivedFile } {
  const fileField = fileFieldOf(ctx.profile.documents.filePart);
  const documentType = fields.document_type?.trim();
  if (!documentType) throw validationError('document_type', 'document_type is required');
  if (documentType !== DOCUMENT_TYPE_BADGE) {
    throw validationError('document_type', `document_type must be "${DOCUMENT_TYPE_BADGE}"`);
  }
  const orderId = fields.document_type_id?.trim();
  if (!orderId) throw validationError('document_type_id', 'document_type_id is required');
  // The order is found by exactly these digits: a rounded id names another order (or none).
  if (!ctx.store.findOrder(userId, orderId)) {
    throw validationError('document_type_id', `document_type_id ${orderId} is not an order of this user`);
  }
  const owner = fields.document_owner?.trim();
  if (!owner) throw validationError('document_owner', 'document_owner is required');
  if (ctx.profile.documents.ownerChecked && owner !== userId) {
    throw validationError('document_owner', `document_owner ${owner} is not the authenticated user`);
  }
  if (!file) throw validationError(fileField, `the "${fileField}" part is missing`);
  if (file.size === 0) throw validationError(fileField, 'the file is empty');
  return { orderId, owner, file };
}

/** Signs a download link: hex HMAC-SHA256 of `<id>:<expires>`. */
function signDownload(secret: Buffer, id: string, expires: number): string {
  return createHmac('sha256', secret).update(`${id}:${expires}`).digest('hex');
}

async function storeDocument(
  ctx: SandboxContext,
  request: FastifyRequest,
  userId: string,
): Promise<RouteResult> {
  // Rules are read once, so a change while the upload streams does not affect it.
  const rules = structuredClone(ctx.rules);
  const upload = await Promise.race([
    readParts(request, rules, ctx.storageDir, ctx.profile.documents.filePart),
    whenClientAborts(request),
  ]);
  let valid: ReturnType<typeof validateUpload>;
  try {
    valid = validateUpload(ctx, userId, upload);
  } catch (error) {
    if (upload.file?.tempPath !== undefined) await rm(upload.file.tempPath, { force: true });
    throw error;
  }
  const { orderId, owner, file } = valid;
  const id = documentIdOf(ctx.profile.documents.idStyle, ctx.store.nextDocumentNumber());
  let storedPath: string | undefined;
  if (file.tempPath !== undefined && ctx.storageDir !== undefined) {
    storedPath = join(ctx.storageDir, id);
    await rename(file.tempPath, storedPath);
  }
  const expires = Math.floor(ctx.now() / 1000) + DOWNLOAD_LINK_TTL_SECONDS;
  const canonical: DocumentResponse = {
    id,
    document_type: DOCUMENT_TYPE_BADGE,
    document_type_id: orderId,
    document_owner: owner,
    filename: file.filename,
    content_type: file.contentType,
    size: file.size,
    sha256: file.sha256,
    links: documentLinks(ctx.baseUrl(), id, signDownload(ctx.linkSecret, id, expires), expires),
  };
  const stored: NewDocument = {
    ...canonical,
    user_id: userId,
    created_at: new Date(ctx.now()).toISOString(),
    ...(storedPath !== undefined ? { stored_path: storedPath } : {}),
    idempotency_key: sentIdempotencyKey(request),
    file_part: file.part,
  };
  ctx.store.addDocument(stored);
  return { status: ctx.profile.documents.status, body: documentBody(ctx.profile, canonical) };
}

/** Registers the document upload route. */
export function registerDocumentRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.post(PLATFORM_PATHS.documents, async (request, reply) => {
    const { userId } = claimsOf(request);
    const result = await runIdempotent(ctx, request, { userId, route: 'documents' }, () =>
      storeDocument(ctx, request, userId),
    );
    return sendEffectResult(ctx, request, reply, result);
  });
}
