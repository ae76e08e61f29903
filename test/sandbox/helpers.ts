/**
 * Raw HTTP helpers for the sandbox tests: axios and form-data only, deliberately independent of
 * src/platform, so the sandbox is tested against the wire format itself.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import axios from 'axios';
import type { AxiosResponse } from 'axios';
import FormData from 'form-data';
import { PLATFORM_PATHS } from '../../src/sandbox';
import type { ErrorBody, OrderResponse, SandboxUser, TokenResponse } from '../../src/sandbox';

type ReviverWithSource = (key: string, value: unknown, context?: { readonly source?: string }) => unknown;

/**
 * JSON as the wire has it: an integer beyond 2^53 is a `bigint` (still a JSON number, every digit kept), so a
 * test tells a bare number from a string whatever its size.
 */
export function parseWireJson(text: string): unknown {
  const parse = JSON.parse as (text: string, reviver: ReviverWithSource) => unknown;
  return parse(text, (_key, value, context) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? '')
      ? BigInt(context?.source ?? '')
      : value,
  );
}

/** An axios instance that never throws on a status, so tests assert on statuses. JSON is read with {@link parseWireJson}. */
export const http = axios.create({
  validateStatus: () => true,
  maxBodyLength: Infinity,
  maxContentLength: Infinity,
  responseType: 'text',
  transformResponse: [
    (data: unknown) => {
      if (typeof data !== 'string') return data;
      try {
        return parseWireJson(data);
      } catch {
        return data;
      }
    },
  ],
});

/** The body of an error answer, typed. */
export function errorOf(response: AxiosResponse): ErrorBody['error'] {
  return (response.data as ErrorBody).error;
}

/** Calls the token endpoint. */
export function requestToken(baseUrl: string, body: unknown): Promise<AxiosResponse<TokenResponse>> {
  return http.post<TokenResponse>(`${baseUrl}${PLATFORM_PATHS.token}`, body);
}

/** A fresh access token for `user`; fails the test if the call is not 200. */
export async function tokenFor(
  baseUrl: string,
  user: Pick<SandboxUser, 'username' | 'password'>,
): Promise<string> {
  const response = await requestToken(baseUrl, { username: user.username, password: user.password });
  if (response.status !== 200) throw new Error(`token call answered ${response.status}`);
  return response.data.access_token;
}

/** Bearer headers, plus an idempotency key when given. */
export function authHeaders(token: string, idempotencyKey?: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
  };
}

/** A valid order payload. */
export function orderPayload(stockId?: number | null): Record<string, unknown> {
  return {
    vehicle: { licence_plate: 'B-SB 4711', vin: 'WVWZZZ1JZXW000001' },
    badge: { colour: 'green', emission_class: 4 },
    ...(stockId !== undefined ? { stock_id: stockId } : {}),
  };
}

/** POST /badge/v2/api/v1/orders. */
export function createOrder(
  baseUrl: string,
  token: string,
  body: unknown,
  idempotencyKey?: string,
): Promise<AxiosResponse<OrderResponse>> {
  return http.post<OrderResponse>(`${baseUrl}${PLATFORM_PATHS.orders}`, body, {
    headers: authHeaders(token, idempotencyKey),
  });
}

/** Creates an order and returns its id's digits; fails the test unless 201. */
export async function createOrderId(baseUrl: string, token: string): Promise<string> {
  const response = await createOrder(baseUrl, token, orderPayload());
  if (response.status !== 201) throw new Error(`order create answered ${response.status}`);
  return String(response.data.id);
}

/** The file of an upload: bytes, or a stream of known length. */
export interface UploadFile {
  content: Buffer | Readable;
  filename?: string;
  contentType?: string;
  knownLength?: number;
}

/** Parts of a document upload; `undefined` fields are left out. */
export interface UploadParts {
  document_type?: string;
  document_type_id?: string | number;
  document_owner?: string;
  file?: UploadFile;
  /** Send the file part before the fields (the client sends fields first). */
  fileFirst?: boolean;
  /** Name of the file part. @default 'file' */
  filePartName?: string;
}

/** Builds the multipart body of a document upload. */
export function uploadForm(parts: UploadParts): FormData {
  const form = new FormData();
  const appendFile = (): void => {
    if (!parts.file) return;
    form.append(parts.filePartName ?? 'file', parts.file.content, {
      filename: parts.file.filename ?? 'photo.jpg',
      contentType: parts.file.contentType ?? 'image/jpeg',
      ...(parts.file.knownLength !== undefined ? { knownLength: parts.file.knownLength } : {}),
    });
  };
  if (parts.fileFirst === true) appendFile();
  for (const name of ['document_type', 'document_type_id', 'document_owner'] as const) {
    const value = parts[name];
    if (value !== undefined) form.append(name, String(value));
  }
  if (parts.fileFirst !== true) appendFile();
  return form;
}

/** POST /document/api/v1/documents. */
export function uploadDocument(
  baseUrl: string,
  token: string,
  parts: UploadParts,
  idempotencyKey?: string,
): Promise<AxiosResponse> {
  const form = uploadForm(parts);
  return http.post(`${baseUrl}${PLATFORM_PATHS.documents}`, form, {
    headers: { ...form.getHeaders(), ...authHeaders(token, idempotencyKey) },
  });
}

/** A small JPEG-ish file. */
export function smallFile(bytes = 2048): UploadFile {
  return { content: Buffer.alloc(bytes, 0xab), filename: 'photo.jpg', contentType: 'image/jpeg' };
}

/** Hex sha256 of a buffer. */
export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * A generated stream of `size` bytes that never holds more than one 64 KiB chunk, with its sha256 computed
 * up front from the same chunks.
 */
export function generatedFile(size: number): { stream: () => Readable; sha256: string } {
  const chunk = Buffer.alloc(64 * 1024);
  for (let index = 0; index < chunk.length; index++) chunk[index] = (index * 31 + 7) % 251;
  function* chunks(): Generator<Buffer> {
    let left = size;
    while (left > 0) {
      const length = Math.min(left, chunk.length);
      left -= length;
      yield chunk.subarray(0, length);
    }
  }
  const hash = createHash('sha256');
  for (const part of chunks()) hash.update(part);
  return { stream: () => Readable.from(chunks(), { objectMode: false }), sha256: hash.digest('hex') };
}
