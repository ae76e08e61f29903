/**
 * Renders the sandbox's canonical records as the answers of one profile. The store keeps one canonical form
 * (what `GET /_sandbox/state` shows); only what goes over the wire to a platform client changes with the profile.
 */
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { jsonNumber } from '../json-numbers';
import type { SandboxHttpError } from './http-error';
import type { DocumentIdStyle, ErrorStyle, SandboxProfile } from './profiles';
import { PLATFORM_PATHS } from './shapes';
import type { DocumentResponse, StockRecord } from './shapes';
import type { StoredOrder } from './store';

/** A rendered answer body with the headers it needs. */
export interface WireAnswer {
  /** The payload: an object (sent as JSON), a string, or undefined for an empty body. */
  body: unknown;
  /** Extra response headers (content type, `Link`). */
  headers: Readonly<Record<string, string>>;
}

/** The token answer of `profile`; `expiresAtMs` is when the JWT expires. */
export function tokenBody(
  profile: SandboxProfile,
  accessToken: string,
  ttlSeconds: number,
  expiresAtMs: number,
): Record<string, unknown> {
  const { tokenType, expiresIn, expiresAt, refreshToken } = profile.token;
  return {
    access_token: accessToken,
    ...(tokenType !== null ? { token_type: tokenType } : {}),
    ...(expiresIn ? { expires_in: ttlSeconds } : {}),
    // Rounded down: a client trusting expires_at must never believe the token lives longer than it does.
    ...(expiresAt === 'epoch-seconds' ? { expires_at: Math.floor(expiresAtMs / 1000) } : {}),
    ...(expiresAt === 'iso-8601' ? { expires_at: new Date(expiresAtMs).toISOString() } : {}),
    // The specification shows no refresh operation, so the sandbox serves none: the token is never redeemable.
    ...(refreshToken ? { refresh_token: randomBytes(24).toString('base64url') } : {}),
  };
}

/** Number of pages of `total` records; an empty list still has one (empty) page. */
function pageCount(total: number, pageSize: number | null): number {
  return pageSize === null ? 1 : Math.max(1, Math.ceil(total / pageSize));
}

/** One page of the stock list as `profile` answers it; `page` is 1-based. */
export function stocksAnswer(
  profile: SandboxProfile,
  stocks: readonly StockRecord[],
  page: number,
  baseUrl: string,
): WireAnswer {
  const { envelope, pageSize, stockIdType, link, totalHeader } = profile.stocks;
  const records = stocks.map((stock) => ({
    ...stock,
    stock_id: stockIdType === 'string' ? String(stock.stock_id) : stock.stock_id,
  }));
  const slice = pageSize === null ? records : records.slice((page - 1) * pageSize, page * pageSize);
  const totalPages = pageCount(records.length, pageSize);
  const hasNext = pageSize !== null && page < totalPages;
  const relativeNext = `${PLATFORM_PATHS.stocks}?page=${page + 1}`;
  const absoluteNext = `${baseUrl}${relativeNext}`;
  const totals: Record<string, string> =
    totalHeader === 'x-total-count'
      ? { 'x-total-count': String(records.length) }
      : totalHeader === 'x-total'
        ? { 'x-total': String(records.length), 'x-total-pages': String(totalPages) }
        : {};
  switch (envelope) {
    case 'bare':
      return { body: slice, headers: { ...totals, ...bareLinkHeader(link, page, totalPages, absoluteNext) } };
    case 'data':
      return {
        body:
          pageSize === null
            ? { data: slice }
            : { data: slice, links: { next: hasNext ? absoluteNext : null } },
        headers: totals,
      };
    case 'items-page':
      return { body: { items: slice, page, totalPages }, headers: totals };
    case 'content-links':
      return {
        body: {
          content: slice,
          _links: {
            self: {
              href: pageSize === null ? PLATFORM_PATHS.stocks : `${PLATFORM_PATHS.stocks}?page=${page}`,
            },
            ...(hasNext ? { next: { href: relativeNext } } : {}),
          },
        },
        headers: totals,
      };
    case 'results-next':
      return {
        body: { count: records.length, next: hasNext ? absoluteNext : null, results: slice },
        headers: totals,
      };
  }
}

/**
 * The `Link` header of a bare page: an absolute `rel="next"` link (`next`), or relative `first`, `prev`,
 * `next` and `last` links in one header (`rels`). None when there is one page only.
 */
function bareLinkHeader(
  style: SandboxProfile['stocks']['link'],
  page: number,
  totalPages: number,
  absoluteNext: string,
): Record<string, string> {
  if (style === 'next') return page < totalPages ? { link: `<${absoluteNext}>; rel="next"` } : {};
  if (totalPages <= 1) return {};
  const to = (n: number): string => `${PLATFORM_PATHS.stocks}?page=${n}`;
  const rels = [
    `<${to(1)}>; rel="first"`,
    ...(page > 1 ? [`<${to(page - 1)}>; rel="prev"`] : []),
    ...(page < totalPages ? [`<${to(page + 1)}>; rel="next"`] : []),
    `<${to(totalPages)}>; rel="last"`,
  ];
  return { link: rels.join(', ') };
}

/**
 * The created order as `profile` answers it, as JSON text: an id sent as a JSON number is written digit for digit,
 * however large (so the body is text, not an object that `JSON.stringify` would round).
 */
export function orderBody(profile: SandboxProfile, order: StoredOrder): string {
  const { idType, envelope, fields } = profile.orders;
  const id = idType === 'string' ? order.id : jsonNumber(order.id);
  const stockId =
    order.stock_id === null || profile.stocks.stockIdType === 'number'
      ? order.stock_id
      : String(order.stock_id);
  const full = {
    id,
    stock_id: stockId,
    vehicle: order.vehicle,
    badge: order.badge,
    status: order.status,
    created_at: order.created_at,
  };
  const extra = {
    ...full,
    reference: `BO-${order.id.padStart(8, '0')}`,
    user_id: Number(order.user_id),
    tenant_id: 42,
    updated_at: order.created_at,
  };
  const record = fields === 'id-only' ? { id } : fields === 'full' ? full : extra;
  return JSON.stringify(
    envelope === 'data' ? { data: record } : envelope === 'order' ? { order: record } : record,
  );
}

/** First `int64` document id less one: beyond 2^53, below 2^64. */
const INT64_DOCUMENT_BASE = 18_000_000_000_000_000_000n;

/** The id of document number `n` in `style`, as the control API shows it (a string). */
export function documentIdOf(style: DocumentIdStyle, n: number): string {
  switch (style) {
    case 'doc-prefixed':
      return `doc-${n}`;
    case 'number':
      return String(n);
    case 'uuid':
      return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    case 'int64':
      return String(INT64_DOCUMENT_BASE + BigInt(n));
  }
}

/**
 * The stored document as `profile` answers it, as JSON text (see {@link orderBody}). `document` is the canonical
 * (reference) body; its id goes out in the profile's form.
 */
export function documentBody(profile: SandboxProfile, document: DocumentResponse): string {
  return JSON.stringify(documentRecord(profile, document));
}

function documentRecord(profile: SandboxProfile, document: DocumentResponse): Record<string, unknown> {
  const { links, ...rest } = document;
  const numericId = profile.documents.idStyle === 'number' || profile.documents.idStyle === 'int64';
  const wireId = numericId ? jsonNumber(rest.id) : rest.id;
  const orderId =
    profile.orders.idType === 'string' ? rest.document_type_id : jsonNumber(rest.document_type_id);
  const described = {
    document_type: rest.document_type,
    document_type_id: orderId,
    document_owner: rest.document_owner,
    filename: rest.filename,
    content_type: rest.content_type,
    size: rest.size,
    sha256: rest.sha256,
  };
  switch (profile.documents.links) {
    case 'links':
      return { id: wireId, ...described, links };
    case 'urls':
      return {
        document: { id: wireId, ...described },
        urls: { original: links.original, thumbnail: links.thumbnail, signed: links.download },
      };
    case 'hal':
      return {
        id: wireId,
        ...described,
        _links: {
          self: { href: links.original.replace(/\/original$/, '') },
          original: { href: links.original },
          thumbnail: { href: links.thumbnail },
          download: { href: links.download },
        },
      };
    case 'flat':
      return {
        id: wireId,
        ...described,
        original_url: links.original,
        thumbnail_url: links.thumbnail,
        signed_download_url: links.download,
      };
    case 'json-api':
      return {
        data: {
          type: 'document',
          // JSON:API ids are always strings.
          id: rest.id,
          attributes: {
            ...described,
            links: { original: links.original, thumbnail: links.thumbnail, signed_download: links.download },
          },
        },
      };
  }
}

/** The error answer of `error` in `style`. */
export function errorAnswer(style: ErrorStyle, error: SandboxHttpError): WireAnswer {
  const reason = STATUS_CODES[error.status] ?? 'Error';
  const { field } = error.details;
  switch (style) {
    case 'reference':
      return { body: error.toBody(), headers: {} };
    case 'message':
      return { body: { message: error.message }, headers: {} };
    case 'problem':
      return {
        body: JSON.stringify({
          type: `https://badge-sandbox.invalid/problems/${error.code.replaceAll('_', '-')}`,
          title: reason,
          status: error.status,
          detail: error.message,
          ...(field !== undefined ? { invalid_params: [{ name: field, reason: error.message }] } : {}),
        }),
        headers: { 'content-type': 'application/problem+json' },
      };
    case 'text':
      return {
        body: `${error.status} ${reason}: ${error.message}`,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      };
    case 'empty':
      return { body: undefined, headers: {} };
  }
}
