/**
 * The Badge Ordering Platform client: typed, streaming and self-healing (token caching, one re-authentication
 * on 401, tolerant response parsing, one error type). See `docs/platform-client.md`.
 */
export { createPlatformClient } from './client';
export type {
  AuthSession,
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
export type { CachedTokenResult, IssuedToken, TokenClaims } from './token-cache';
export { checkStock, MAX_STOCK_PAGES } from './stocks';
export { decodeTokenPayload, describeClaims, documentOwnerFrom } from './owner';
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
export { probePlatform } from './probe';
export type { ProbeReport } from './probe';
