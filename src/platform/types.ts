/**
 * Public types of the platform client: its options, the client interface and the results of each call.
 * Kept apart from the implementation so that the API modules and the client can share them without cycles.
 */
import type { RequestProfileSettings } from './request-profile';
import type { AxiosInstance } from 'axios';
import type { Readable } from 'node:stream';
import type { DocumentLinks, StockAdvice } from '../contract';
import type { ResponseMap } from './extract';
import type { ClaimsReport, DocumentOwner, DocumentOwnerSetting } from './owner';
import type { TokenCache } from './token-cache';

/** The four platform APIs as seen by metrics and logs: the token call, stocks, order creation, uploads. */
export type PlatformRoute = 'auth' | 'stocks' | 'orders' | 'documents';

/**
 * The logging the client needs: a pino-compatible subset (`logger.info({ ...fields }, 'message')`). Pass a
 * pino logger or child logger as is. The client never logs credentials, tokens or request headers.
 */
export interface PlatformLogger {
  /** Per-request details (route, method, path, status, duration). */
  debug(fields: Record<string, unknown>, message?: string): void;
  /** Authentications (user id and expiry, never the token). */
  info(fields: Record<string, unknown>, message?: string): void;
  /** Re-authentication after a 401, unusual tokens. */
  warn(fields: Record<string, unknown>, message?: string): void;
}

/** One completed HTTP attempt, reported to {@link PlatformClientOptions.onRequest} for metrics. */
export interface PlatformRequestEvent {
  /** Which API was called. */
  readonly route: PlatformRoute;
  /** HTTP method, upper case. */
  readonly method: string;
  /** The API path as a route template: no host, no query string, no ids (e.g. `/badge/v2/api/v1/orders`). */
  readonly path: string;
  /** The HTTP status, or what happened instead of an answer. */
  readonly status: number | 'network-error' | 'timeout';
  /** Wall-clock duration of the attempt in milliseconds. */
  readonly durationMs: number;
}

/**
 * What the token request sends (spec: "either a client id and secret or user credentials"): user credentials as
 * the spec's JSON body, or a client id and secret in the OAuth 2.0 client credentials grant (RFC 6749 §4.4),
 * the client authenticated with HTTP Basic (`basic`, the default, §2.3.1) or in the form body (`body`).
 */
export type PlatformCredentials =
  | { readonly username: string; readonly password: string }
  | { readonly clientId: string; readonly clientSecret: string; readonly clientAuth?: 'basic' | 'body' };

/** Options of {@link createPlatformClient}. Only `baseUrl` and `credentials` are required. */
export interface PlatformClientOptions {
  /** Base address of the platform, e.g. `https://sandbox.example.com` (a path prefix is kept). */
  readonly baseUrl: string;
  /** Credentials of the token request. Never logged, never put into an error. */
  readonly credentials: PlatformCredentials;
  /** Path of the token request, relative to `baseUrl`. @default `/iam/api/v1/auth/jwt` (the spec's) */
  readonly tokenPath?: string;
  /** Timeouts in milliseconds. */
  readonly timeouts?: {
    /**
     * TOTAL deadline of a non-upload call, from sending until the whole response has arrived (a server that
     * drips bytes cannot keep a call open past it). Keep it below the calling activity's start-to-close timeout.
     * @default 30_000
     */
    readonly requestMs?: number;
    /**
     * Upper bound of an upload's total deadline, whatever the file size.
     * @default 1_800_000 (30 minutes)
     */
    readonly uploadMs?: number;
    /**
     * Least total deadline of an upload; small files get this much time.
     * @default 60_000
     */
    readonly uploadMinMs?: number;
    /**
     * The slowest upload rate allowed for: an upload's total deadline is
     * `max(uploadMinMs, sizeBytes / minUploadBytesPerSecond)` (capped at `uploadMs`).
     * @default 65_536 (64 KiB/s)
     */
    readonly minUploadBytesPerSecond?: number;
    /**
     * An upload is aborted (as `TIMEOUT`) when no body byte moved for this long while its body is sent;
     * after the last byte only the total deadline applies (the platform may take its time to store the file).
     * @default 30_000
     */
    readonly uploadStallMs?: number;
    /**
     * Deadline for establishing the TCP connection. When set, the client uses its own keep-alive agents.
     * @default undefined (only the request deadline applies)
     */
    readonly connectMs?: number;
  };
  /**
   * How long before the token's expiry the client stops reusing it and authenticates again. Capped at half the
   * token's lifetime so that short-lived tokens are still reused.
   * @default 60_000
   */
  readonly tokenRefreshMarginMs?: number;
  /** The axios instance to send requests with (tests inject one with a fake adapter). @default axios.create() */
  readonly http?: AxiosInstance;
  /** Where tokens are cached. @default the process-wide {@link defaultTokenCache} */
  readonly tokenCache?: TokenCache;
  /** Where the client logs. @default silent */
  readonly logger?: PlatformLogger;
  /** Called after every HTTP attempt (including the token call and the repeat after a 401), e.g. for metrics. */
  readonly onRequest?: (event: PlatformRequestEvent) => void;
  /**
   * JSON pointers (RFC 6901) to the order id, the document id and the links in the platform's answers; each
   * one given wins over the built-in heuristics. Validated with `responseMapSchema`.
   * @default none (heuristics only)
   */
  readonly responseMap?: ResponseMap;
  /**
   * Where the `document_owner` comes from: a fixed id, or the token claim that holds it (from
   * `BADGE_DOCUMENT_OWNER` / `BADGE_USER_ID_CLAIM`). See `owner.ts`.
   * @default the default chain of claims (`user_id`, `userId`, `uid`, `sub`, `preferred_username`; numeric first)
   */
  readonly documentOwner?: DocumentOwnerSetting;
  /**
   * The names, headers, query and path prefix requests are sent with (`request-profile.ts`); validated with
   * `requestProfileSchema`.
   * @default the names of the specification, a file part `file`, no extra header
   */
  readonly requestProfile?: RequestProfileSettings;
  /** The tenant id, sent where `requestProfile` writes `{tenant}`. @default none */
  readonly tenantId?: string;
}

/** Non-secret facts about the token in use; returned by {@link PlatformClient.authenticate}. */
export interface AuthSession {
  /** The token's `sub` claim, or `null` when the token carries none or is not a JWT. */
  readonly userId: string | null;
  /**
   * The `document_owner` for uploads as the configuration and the token's claims decide it, with where it came
   * from; `null` when nothing names the user.
   */
  readonly documentOwner: DocumentOwner | null;
  /** The kind of credentials the token was issued for: a client's token names no user. */
  readonly credentials: 'user' | 'client';
  /** The token's claim names and which one looks like the user id (names only, never values). */
  readonly claims: ClaimsReport;
  /** When the client stops reusing the token, or `null` when it is reused until the platform answers 401. */
  readonly expiresAt: Date | null;
  /** Whether the token came from the cache rather than from an authentication made for this call. */
  readonly fromCache: boolean;
}

/** One stock available to the user. */
export interface Stock {
  /** The stock id normalised to a string, so `"1001"` and `1001` compare equal. */
  readonly stockId: string;
  /** The stock record as the platform sent it. */
  readonly raw: unknown;
  /** The path a followed redirect (a 307/308 or 303 on the platform's origin) took the call to, when there was one. */
  readonly redirectedTo?: string;
}

/** What every successful call's result carries besides what was read from the answer. */
interface Answer {
  /** The HTTP status of the answer (200 or 201, …). */
  readonly status: number;
  /** The response body as sent (may hold signed links: do not log or keep it). */
  readonly raw: unknown;
}

/** One page of the stocks available to the user (`listStocks`); `checkStock` reads every page. */
export interface StockList extends Answer {
  /** Every stock, in the platform's order. */
  readonly stocks: readonly Stock[];
}

/** Options of every call. */
interface CallOptions {
  /** Aborts the call (e.g. the activity's cancellation signal); the promise then rejects with its reason. */
  readonly signal?: AbortSignal;
}

/** Input of {@link PlatformClient.createOrder}. */
export interface CreateOrderInput extends CallOptions {
  /** The order payload: vehicle and badge data, optionally the stock to take the badge from. */
  readonly payload: {
    readonly vehicle: Record<string, unknown>;
    readonly badge: Record<string, unknown>;
    /** Sent as a bare JSON number when it is an integer's digits, else as a string (see docs/platform-client.md). */
    readonly stock_id?: string;
  };
  /** Sent as `Idempotency-Key`: the same key must yield the same order, however often it is sent. */
  readonly idempotencyKey: string;
}

/** The order the platform created. */
export interface CreatedOrder extends Answer {
  /** The platform's numeric order id as the digits it sent, the `document_type_id` of its documents. */
  readonly orderId: string;
}

/**
 * An already-open document to upload (e.g. a file handle checked once by the document side, so the bytes sent
 * are the bytes checked). `openStream()` may be called more than once: once per attempt, e.g. again after a
 * 401; each call must yield the whole content from the start, `sizeBytes` long.
 */
export interface UploadSource {
  /** Exact number of bytes every stream yields (sent as the part's length). */
  readonly sizeBytes: number;
  /** A fresh stream of the whole content. An error it emits with a failure-type `code` is passed through. */
  openStream(): Readable;
}

/** Input of {@link PlatformClient.uploadDocument}: exactly one of `filePath`, `source` and `withoutFile`. */
export interface UploadDocumentInput extends CallOptions {
  /** Local path of the file; it is streamed, never read into memory. */
  readonly filePath?: string;
  /** An already-open document to stream instead of a path. */
  readonly source?: UploadSource;
  /**
   * Send the fields without any file part: an upload every platform must refuse, whose validation answer may
   * name the file part it expects (`ops probe` asks so).
   */
  readonly withoutFile?: true;
  /** The order the document belongs to (`document_type_id`): its id as {@link CreatedOrder.orderId} gave it. */
  readonly orderId: string;
  /** The user who owns the document (`document_owner`), normally {@link AuthSession.documentOwner}. */
  readonly documentOwner: string;
  /** Sent as `Idempotency-Key`: the same key must yield the same document. */
  readonly idempotencyKey: string;
  /** Content type of the file part. @default derived from the file name, else `application/octet-stream` */
  readonly contentType?: string;
  /** File name of the file part. @default the base name of `filePath`, else `document` */
  readonly filename?: string;
  /** Called with the number of file bytes read into the request so far; use it to heartbeat. */
  readonly onProgress?: (bytesSent: number) => void;
}

/** The document the platform stored. */
export interface UploadedDocument extends Answer {
  /**
   * Links to the original and a thumbnail, as the contract keeps them, and the signed download link (a
   * credential: the order never keeps it); `null` where the platform sent none.
   */
  readonly links: DocumentLinks & { readonly download: string | null };
  /** The platform's document id, when it sent one. */
  readonly documentId: string | null;
}

/**
 * The platform client: one method per platform operation. Every method authenticates as needed (sharing a
 * cached token), repeats a call once after a 401 with a fresh token, and throws only `PlatformError`s (or the
 * abort reason of a caller's signal).
 */
export interface PlatformClient {
  /** Returns the cached token's non-secret facts, authenticating if needed. */
  authenticate(options?: CallOptions): Promise<AuthSession>;
  /** `GET /badge/v2/api/v1/stocks`: the stocks available to the user (first page; throws on odd shapes). */
  listStocks(options?: CallOptions): Promise<StockList>;
  /**
   * Advise whether the user's stocks list `stockId` (reading a few pages at most): advice only, never a reason to
   * fail an order. `listed` when a page lists the stock; `unlisted` only when the complete list was read without
   * it; `unknown` on any error, odd shape or paging the client could not finish (the stock count from the complete
   * list or the paging metadata). Never throws except the caller's abort reason.
   */
  checkStock(stockId: string | number, options?: CallOptions): Promise<StockAdvice>;
  /** `POST /badge/v2/api/v1/orders`: creates an order (idempotent by `idempotencyKey`). */
  createOrder(input: CreateOrderInput): Promise<CreatedOrder>;
  /** `POST /document/api/v1/documents`: streams a file up and links it to an order. */
  uploadDocument(input: UploadDocumentInput): Promise<UploadedDocument>;
}
