/**
 * Test-side readers of the answers of each profile, written from the profile's declared choices (docs/sandbox.md)
 * rather than from the sandbox's renderers, so a renderer that does not do what its profile declares fails.
 * Each reader asserts the declared shape strictly and returns what a client would need.
 */
import axios from 'axios';
import type { AxiosResponse } from 'axios';
import { PLATFORM_PATHS } from '../../src/sandbox';
import type { SandboxProfile } from '../../src/sandbox';

/** An axios instance that hands back the raw body text, so error bodies can be checked byte for byte. */
export const rawHttp = axios.create({
  validateStatus: () => true,
  responseType: 'text',
  transformResponse: [(data: unknown) => data],
});

/** `value` as a plain object; fails the test otherwise. */
export function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${what} is not an object: ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

function list(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${what} is not an array: ${JSON.stringify(value)}`);
  return value;
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} is not a string: ${JSON.stringify(value)}`);
  return value;
}

/** One page of the stock list: its records and the absolute URL of the next page, or null. */
export interface StockPage {
  records: Record<string, unknown>[];
  next: string | null;
}

/** Reads one page of the stock list as the profile declares it. */
export function readStockPage(
  profile: SandboxProfile,
  response: AxiosResponse,
  baseUrl: string,
  page: number,
): StockPage {
  const body: unknown = response.data;
  const paged = profile.stocks.pageSize !== null;
  const toRecords = (value: unknown): Record<string, unknown>[] =>
    list(value, 'stock list').map((item) => record(item, 'stock'));
  switch (profile.stocks.envelope) {
    case 'bare': {
      const link = response.headers.link as string | undefined;
      if (!paged) expect(link).toBeUndefined();
      const href = link === undefined ? null : (/<([^>]+)>;\s*rel="next"/.exec(link)?.[1] ?? null);
      if (link !== undefined && profile.stocks.link === 'rels') {
        // Relative first, (prev,) (next,) last links in one header.
        expect(link).toMatch(
          /^<\/[^>]+>; rel="first"(, <\/[^>]+>; rel="(prev|next)")*, <\/[^>]+>; rel="last"$/,
        );
      }
      if (href !== null && profile.stocks.link === 'next') expect(href.startsWith(baseUrl)).toBe(true);
      const next = href === null ? null : new URL(href, `${baseUrl}${PLATFORM_PATHS.stocks}`).href;
      return { records: toRecords(body), next };
    }
    case 'data': {
      const envelope = record(body, 'stocks body');
      expect(Object.keys(envelope).sort()).toEqual(paged ? ['data', 'links'] : ['data']);
      const next = paged ? record(envelope.links, 'links').next : null;
      return { records: toRecords(envelope.data), next: next === null ? null : text(next, 'links.next') };
    }
    case 'items-page': {
      const envelope = record(body, 'stocks body');
      expect(Object.keys(envelope).sort()).toEqual(['items', 'page', 'totalPages']);
      expect(envelope.page).toBe(page);
      const totalPages = envelope.totalPages as number;
      return {
        records: toRecords(envelope.items),
        next: page < totalPages ? `${baseUrl}${PLATFORM_PATHS.stocks}?page=${page + 1}` : null,
      };
    }
    case 'content-links': {
      const envelope = record(body, 'stocks body');
      expect(Object.keys(envelope).sort()).toEqual(['_links', 'content']);
      const links = record(envelope._links, '_links');
      const href = links.next === undefined ? null : text(record(links.next, '_links.next').href, 'href');
      // HAL hrefs here are relative to the base URL.
      if (href !== null) expect(href.startsWith('/')).toBe(true);
      return { records: toRecords(envelope.content), next: href === null ? null : `${baseUrl}${href}` };
    }
    case 'results-next': {
      const envelope = record(body, 'stocks body');
      expect(Object.keys(envelope).sort()).toEqual(['count', 'next', 'results']);
      return {
        records: toRecords(envelope.results),
        next: envelope.next === null ? null : text(envelope.next, 'next'),
      };
    }
  }
}

/** A bare JSON number as `parseWireJson` reads it: a number, or a bigint beyond 2^53. */
function isJsonInteger(value: unknown): value is number | bigint {
  return typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value));
}

/**
 * The order record inside the profile's envelope, checked against the declared field set and id type; its id as
 * the digits sent.
 */
export function readOrder(
  profile: SandboxProfile,
  body: unknown,
): { id: string; order: Record<string, unknown> } {
  const outer = record(body, 'order body');
  const { envelope, fields, idType } = profile.orders;
  if (envelope !== 'bare') expect(Object.keys(outer)).toEqual([envelope]);
  const order = envelope === 'bare' ? outer : record(outer[envelope], envelope);
  const keys = Object.keys(order).sort();
  const full = ['badge', 'created_at', 'id', 'status', 'stock_id', 'vehicle'];
  if (fields === 'id-only') expect(keys).toEqual(['id']);
  if (fields === 'full') expect(keys).toEqual(full);
  if (fields === 'extra')
    expect(keys).toEqual([...full, 'reference', 'tenant_id', 'updated_at', 'user_id'].sort());
  if (idType === 'number') expect(isJsonInteger(order.id)).toBe(true);
  else expect(order.id).toEqual(expect.stringMatching(/^\d+$/));
  return { id: String(order.id), order };
}

/** The id and links of an uploaded document, read from where the profile declares them. */
export interface ReadDocument {
  /** The id as sent on the wire. */
  wireId: unknown;
  original: string;
  thumbnail: string;
  download: string;
}

/** Reads a document answer as the profile declares it. */
export function readDocument(profile: SandboxProfile, body: unknown): ReadDocument {
  const outer = record(body, 'document body');
  const links = (source: Record<string, unknown>, original: string, thumbnail: string, download: string) => ({
    original: text(source[original], original),
    thumbnail: text(source[thumbnail], thumbnail),
    download: text(source[download], download),
  });
  switch (profile.documents.links) {
    case 'links':
      return {
        wireId: outer.id,
        ...links(record(outer.links, 'links'), 'original', 'thumbnail', 'download'),
      };
    case 'urls':
      expect(Object.keys(outer).sort()).toEqual(['document', 'urls']);
      return {
        wireId: record(outer.document, 'document').id,
        ...links(record(outer.urls, 'urls'), 'original', 'thumbnail', 'signed'),
      };
    case 'hal': {
      const hal = record(outer._links, '_links');
      const href = (name: string): string => text(record(hal[name], name).href, `${name}.href`);
      return {
        wireId: outer.id,
        original: href('original'),
        thumbnail: href('thumbnail'),
        download: href('download'),
      };
    }
    case 'flat':
      return { wireId: outer.id, ...links(outer, 'original_url', 'thumbnail_url', 'signed_download_url') };
    case 'json-api': {
      expect(Object.keys(outer)).toEqual(['data']);
      const data = record(outer.data, 'data');
      expect(data.type).toBe('document');
      const attributes = record(data.attributes, 'attributes');
      return {
        wireId: data.id,
        ...links(record(attributes.links, 'attributes.links'), 'original', 'thumbnail', 'signed_download'),
      };
    }
  }
}

/** The document id as the control API shows it (a string), checked against the profile's id style. */
export function documentIdOf(profile: SandboxProfile, wireId: unknown): string {
  // JSON:API ids are strings whatever the style.
  const jsonApi = profile.documents.links === 'json-api';
  switch (profile.documents.idStyle) {
    case 'doc-prefixed':
      expect(wireId).toEqual(expect.stringMatching(/^doc-\d+$/));
      break;
    case 'number':
    case 'int64':
      if (jsonApi) expect(wireId).toEqual(expect.stringMatching(/^\d+$/));
      else expect(isJsonInteger(wireId)).toBe(true);
      if (profile.documents.idStyle === 'int64') expect(BigInt(String(wireId))).toBeGreaterThan(2n ** 53n);
      break;
    case 'uuid':
      expect(wireId).toEqual(
        expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      );
      break;
  }
  return String(wireId);
}

/**
 * Checks a raw error answer (from {@link rawHttp}) against the profile's error style and returns the message it
 * carries ('' for empty bodies).
 */
export function expectErrorShape(
  profile: SandboxProfile,
  response: AxiosResponse<string>,
  status: number,
  field?: string,
): string {
  expect(response.status).toBe(status);
  const contentType = String(response.headers['content-type'] ?? '');
  const parse = (): Record<string, unknown> => record(JSON.parse(response.data) as unknown, 'error body');
  switch (profile.errors) {
    case 'reference': {
      expect(contentType).toMatch(/^application\/json/);
      const error = record(parse().error, 'error');
      expect(error.status).toBe(status);
      if (field !== undefined) expect(error.field).toBe(field);
      return text(error.message, 'error.message');
    }
    case 'message': {
      expect(contentType).toMatch(/^application\/json/);
      const body = parse();
      expect(Object.keys(body)).toEqual(['message']);
      return text(body.message, 'message');
    }
    case 'problem': {
      expect(contentType).toMatch(/^application\/problem\+json/);
      const body = parse();
      expect(body).toMatchObject({ status, type: expect.stringMatching(/^https:\/\//) as string });
      expect(typeof body.title).toBe('string');
      if (field !== undefined)
        expect(body.invalid_params).toEqual([expect.objectContaining({ name: field })]);
      return text(body.detail, 'detail');
    }
    case 'text':
      expect(contentType).toMatch(/^text\/plain/);
      expect(response.data).toMatch(new RegExp(`^${status} `));
      return response.data;
    case 'empty':
      expect(response.data).toBe('');
      expect(response.headers['content-length']).toBe('0');
      return '';
  }
}
