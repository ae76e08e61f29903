/**
 * The Badge Ordering Platform client: typed, streaming and self-healing (token caching, one re-authentication
 * on 401, tolerant response parsing, one error type). See `docs/platform-client.md`.
 */
export { createPlatformClient, DEFAULT_TOKEN_REFRESH_MARGIN_MS } from './client';
export type {
  AuthSession,
  CallOptions,
  CreatedOrder,
  CreateOrderInput,
  PlatformClient,
  PlatformClientOptions,
  PlatformLogger,
  PlatformRequestEvent,
  PlatformRoute,
  Stock,
  StockList,
  UploadDocumentInput,
  UploadedDocument,
  UploadSource,
} from './types';
export { PlatformError } from './errors';
export { AccessToken, decodeTokenClaims, defaultTokenCache, TokenCache } from './token-cache';
export type { CachedTokenResult, IssuedToken, TokenCacheOptions, TokenClaims } from './token-cache';
export { checkStock, MAX_STOCK_PAGES } from './stocks';
export { DEFAULT_USER_ID_CLAIMS, decodeTokenPayload, describeClaims, documentOwnerFrom } from './owner';
export type { ClaimsReport, DocumentOwner, DocumentOwnerSetting } from './owner';
export {
  normaliseStockId,
  parseDocumentResponse,
  parseErrorBody,
  parseOrderResponse,
  parseStocksResponse,
  parseTokenResponse,
  ResponseShapeError,
} from './schemas';
export { DEFAULT_TIMEOUTS, IDEMPOTENCY_KEY_HEADER, parseRetryAfter, PLATFORM_PATHS } from './http';
export { DOCUMENT_FILE_PART, DOCUMENT_TYPE_BADGE, resolveContentType } from './documents';
export {
  describeShape,
  extractDocument,
  extractOrderId,
  extractToken,
  jsonPointerSchema,
  resolvePointer,
  responseMapSchema,
} from './extract';
export type { ExtractedDocument, ExtractedToken, LinkRole, ResponseMap } from './extract';
export { pointerTo, probePlatform } from './probe';
export type { ProbeCall, ProbeFailure, ProbeInput, ProbeReport } from './probe';
