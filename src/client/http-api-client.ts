/**
 * A typed client of the HTTP API, for backends that reach the service over HTTP instead of Temporal: every path,
 * parameter, body and answer is typed from the zod schemas the API validates with and documents (the operations
 * of src/http-contract.ts), and the calls go through openapi-fetch. Answers are `{ data }` on success and
 * `{ error }` (the problem detail) on a refusal, with `response` for the status and headers.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { z } from 'zod';
import type { DocumentUploadResponse, ORDER_OPERATIONS, Problem, UPLOAD_DOCUMENT } from '../http-contract';

type ApiOperation = (typeof ORDER_OPERATIONS)[keyof typeof ORDER_OPERATIONS] | typeof UPLOAD_DOCUMENT;
/** An OpenAPI media type object, as openapi-fetch reads it. */
type Content<T, Media extends string = 'application/json'> = { content: { [M in Media]: T } };
/** The schema of a `[name, schema]` pair. */
type SchemaOf<Named> = Named extends readonly [string, infer Schema extends z.ZodType] ? Schema : never;
/** Refusals: a problem detail, whatever the status. */
type ProblemResponses = { default: Content<Problem, 'application/problem+json'> };

/** One operation in openapi-fetch's form: what a caller sends (zod's input) and what it gets (zod's output). */
type OperationTypes<Operation extends ApiOperation> = {
  parameters: (Operation extends { params: z.ZodType } ? { path: z.input<Operation['params']> } : unknown) &
    (Operation extends { query: z.ZodType } ? { query?: z.input<Operation['query']> } : unknown);
  responses: {
    [Status in keyof Operation['responses']]: Content<
      z.output<SchemaOf<Operation['responses'][Status] extends { schema: infer Named } ? Named : never>>
    >;
  } & ProblemResponses;
} & (Operation extends { body: infer Named }
  ? {
      requestBody: Content<
        z.input<SchemaOf<Named>>,
        Operation extends { bodyType: infer Media extends string } ? Media : 'application/json'
      >;
    }
  : unknown);

/** The API's paths and operations, as openapi-fetch types them. */
export type HttpApiPaths = {
  [Path in ApiOperation['path']]: {
    [
      Operation in Extract<ApiOperation, { path: Path }> as Lowercase<Operation['method']>
    ]: OperationTypes<Operation>;
  };
};

/** The typed client: `GET`, `PUT` and `POST` on the API's paths. */
export type BadgeOrdersHttpClient = Client<HttpApiPaths>;

/** Options of {@link createBadgeOrdersHttpClient}: where the API is, and one way to authenticate. */
export interface BadgeOrdersHttpClientOptions {
  /** The API's base URL, e.g. `https://badge-orders.example.com`. */
  readonly baseUrl: string;
  /** An API key, sent as `X-API-Key`. */
  readonly apiKey?: string;
  /** An OIDC access token, sent as `Authorization: Bearer`. */
  readonly accessToken?: string;
  /** @default the global `fetch` */
  readonly fetch?: typeof fetch;
}

/** A client of the API at `baseUrl`. */
export function createBadgeOrdersHttpClient(options: BadgeOrdersHttpClientOptions): BadgeOrdersHttpClient {
  const headers: Record<string, string> = {};
  if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey;
  if (options.accessToken !== undefined) headers.authorization = `Bearer ${options.accessToken}`;
  return createClient<HttpApiPaths>({
    baseUrl: options.baseUrl,
    headers,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
}

/**
 * Stores a document with `POST /v1/documents` and answers its reference (`{ ref, sizeBytes, contentType }`), to
 * name it in an order as `{ "ref": … }`. The blob's `type` is stored as the content type.
 */
export async function uploadDocument(
  client: BadgeOrdersHttpClient,
  document: { readonly file: Blob; readonly filename?: string },
): Promise<{
  readonly data?: DocumentUploadResponse;
  readonly error?: Problem;
  readonly response: Response;
}> {
  return client.POST('/v1/documents', {
    // The OpenAPI document types the file part as a binary string; the body goes as multipart/form-data.
    body: { file: '' },
    bodySerializer: () => {
      const form = new FormData();
      form.append('file', document.file, document.filename ?? 'document');
      return form;
    },
  });
}
