/**
 * A typed client of the HTTP API, for backends that reach the service over HTTP instead of Temporal: every path,
 * parameter, body and answer is typed from the API's OpenAPI document (`http-api-types.ts`, generated), and the
 * calls go through openapi-fetch. Answers are `{ data }` on success and `{ error }` (the problem detail) on a
 * refusal, with `response` for the status and headers.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './http-api-types';

export type { components as HttpApiComponents, paths as HttpApiPaths } from './http-api-types';

/** The typed client: `GET`, `PUT` and `POST` on the API's paths. */
export type BadgeOrdersHttpClient = Client<paths>;

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
  return createClient<paths>({
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
  readonly data?: components['schemas']['DocumentStored'];
  readonly error?: components['schemas']['Problem'];
  readonly response: Response;
}> {
  const { data, error, response } = await client.POST('/v1/documents', {
    // The OpenAPI document types the file part as a binary string; the body goes as multipart/form-data.
    body: { file: '' },
    bodySerializer: () => {
      const form = new FormData();
      form.append('file', document.file, document.filename ?? 'document');
      return form;
    },
  });
  return { data, error, response };
}
