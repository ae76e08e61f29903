/**
 * Paths, error codes, and the wire shapes of the `reference` profile — the sandbox's original answers where the
 * platform specification says "not shown".
 *
 * Other profiles (`profiles.ts`) answer differently; `wire.ts` renders those answers from the canonical records,
 * which keep these shapes (the control API shows them under every profile). Paths and the multipart part names
 * the specification does define are here as well so the routes have one source.
 */

/** Paths of the platform endpoints the sandbox serves, relative to the base URL. */
export const PLATFORM_PATHS = {
  token: '/iam/api/v1/auth/jwt',
  stocks: '/badge/v2/api/v1/stocks',
  orders: '/badge/v2/api/v1/orders',
  documents: '/document/api/v1/documents',
} as const;

/** The four platform routes, as used for fault scoping, statistics and idempotency scoping. */
export const SANDBOX_ROUTES = ['auth', 'stocks', 'orders', 'documents'] as const;

/** One platform route: `auth` (token call), `stocks`, `orders` (create) or `documents` (upload). */
export type SandboxRoute = (typeof SANDBOX_ROUTES)[number];

/** Scope names carried in the token's space-separated `scope` claim. */
export const SCOPES = ['badge', 'document'] as const;

/** A permission scope: `badge` for stocks and orders, `document` for document uploads. */
export type Scope = (typeof SCOPES)[number];

/** Issuer (`iss`) of every sandbox token. */
export const TOKEN_ISSUER = 'badge-sandbox';

/** Response body of a successful token call (200) under the `reference` profile. */
export interface TokenResponse {
  /** A HS256-signed JWT with `sub` (numeric user id as string), `scope`, `iat`, `exp` and `iss`. */
  access_token: string;
  token_type: 'Bearer';
  /** Lifetime in seconds; may be fractional when the sandbox is configured with a fractional lifetime. */
  expires_in: number;
}

/** One stock record as listed by `GET /badge/v2/api/v1/stocks`. */
export interface StockRecord {
  stock_id: number;
  name: string;
  /** Colour of the badges held in this stock, e.g. `green`. */
  badge_type: string;
  /** Number of badges left in the stock. */
  available: number;
}

/** Status of an order; the sandbox only ever reports `created` (the specification lists no states). */
export type OrderStatus = 'created';

/** Response body of `POST /badge/v2/api/v1/orders` (201) under the `reference` profile: the created order. */
export interface OrderResponse {
  /**
   * Numeric order id as its digits, increasing from the profile's first order id (5001); used as
   * `document_type_id` of its documents. The wire form is a JSON number or a string (the profile's `idType`).
   */
  id: string;
  stock_id: number | null;
  /** The vehicle object as sent by the client. */
  vehicle: Record<string, unknown>;
  /** The badge object as sent by the client. */
  badge: Record<string, unknown>;
  status: OrderStatus;
  /** ISO 8601 creation time. */
  created_at: string;
}

/** Names of the multipart text fields of a document upload. */
export const DOCUMENT_FIELDS = ['document_type', 'document_type_id', 'document_owner'] as const;

/** The only accepted `document_type` value (documents are linked to badge orders). */
export const DOCUMENT_TYPE_BADGE = 'badge';

/** Links returned for an uploaded document. */
export interface DocumentLinks {
  /** `<baseUrl>/document/api/v1/documents/<id>/original` */
  original: string;
  /** `<baseUrl>/document/api/v1/documents/<id>/thumbnail` */
  thumbnail: string;
  /** `<baseUrl>/document/api/v1/documents/<id>/download?signature=<hmac>&expires=<epoch seconds>` */
  download: string;
}

/**
 * Response body of `POST /document/api/v1/documents` (201) under the `reference` profile, and the canonical
 * document record of every profile.
 */
export interface DocumentResponse {
  /** `doc-<n>`, n increasing from 1. */
  id: string;
  document_type: 'badge';
  /** The order id the document is linked to, its digits as received. */
  document_type_id: string;
  /** The owner id as sent (e.g. `"4711"`). */
  document_owner: string;
  filename: string;
  content_type: string;
  /** Size of the received file in bytes. */
  size: number;
  /** Hex sha256 of the received file. */
  sha256: string;
  links: DocumentLinks;
}

/** One stable error code of the sandbox's error body. */
export type ErrorCode =
  | 'validation_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'stock_not_found'
  | 'not_found'
  | 'rate_limited'
  | 'server_error'
  | 'maintenance'
  | 'idempotency_conflict';

/** The body of every error answer under the `reference` profile (and of the control API), whatever the status. */
export interface ErrorBody {
  error: {
    status: number;
    code: ErrorCode;
    message: string;
    /** For `validation_failed`: the field or multipart part at fault (e.g. `document_type`, `file`). */
    field?: string;
    /** For `forbidden`: the scope the token lacks. */
    scope?: Scope;
  };
}

/** Request header carrying an idempotency key (order creation and document upload). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Response header set to `true` when the answer is a replay of a remembered idempotent response. */
export const IDEMPOTENT_REPLAY_HEADER = 'idempotent-replayed';

/** Builds the links of a document; `signature` and `expires` come from the download signer. */
export function documentLinks(
  baseUrl: string,
  id: string,
  signature: string,
  expires: number,
): DocumentLinks {
  const self = `${baseUrl}${PLATFORM_PATHS.documents}/${encodeURIComponent(id)}`;
  return {
    original: `${self}/original`,
    thumbnail: `${self}/thumbnail`,
    download: `${self}/download?signature=${signature}&expires=${expires}`,
  };
}
