/**
 * Best-effort extraction of what the client needs from a successful answer, whatever the platform named it.
 *
 * Success is decided by the status code, never by the body: a 2xx upload means the document is stored, so its
 * id and links are looked for anywhere in the body (any nesting, strings or `{ href }`, names that mean
 * original / thumbnail / signed or download; a link signed by its name or its query is only ever the download
 * link, which the activity drops) and are `null` when not found. An operator who knows the real
 * shapes pins them with a {@link ResponseMap} of RFC 6901 JSON pointers, which wins over the heuristics.
 *
 * Nothing here throws on a body, and nothing copies a value into a message: signed links are credentials.
 */
import { z } from 'zod';
import { ORDER_ID_PATTERN } from '../contract';

// ---------------------------------------------------------------------------------------------------------
// Response map

/** An RFC 6901 JSON pointer: empty (the whole body) or `/`-separated tokens with `~0` and `~1` escapes. */
const jsonPointerSchema = z
  .string()
  .regex(
    /^(\/([^~/]|~[01])*)*$/,
    'must be an RFC 6901 JSON pointer such as /data/id (with ~0 and ~1 escapes)',
  );

/**
 * Where the platform puts what the client needs, as JSON pointers into the response body; each one given wins
 * over the heuristics (which still apply to what it leaves out, or when it points at nothing usable).
 * Configured from `BADGE_RESPONSE_MAP` (JSON), e.g.
 * `{"orderId":"/data/order/id","documentId":"/document/id","links":{"download":"/urls/signed"}}`.
 */
export const responseMapSchema = z
  .object({
    /** Pointer to the numeric order id (a number or a digit string) in the order-creation answer. */
    orderId: jsonPointerSchema.optional(),
    /** Pointer to the document id in the upload answer. */
    documentId: jsonPointerSchema.optional(),
    /** Pointers to the links in the upload answer (a string or an object with `href`). */
    links: z
      .object({
        original: jsonPointerSchema.optional(),
        thumbnail: jsonPointerSchema.optional(),
        download: jsonPointerSchema.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** A validated response map; see {@link responseMapSchema}. */
export type ResponseMap = z.infer<typeof responseMapSchema>;

/**
 * The value a JSON pointer designates, or `undefined` when it designates nothing.
 * @param body the parsed JSON body
 * @param pointer an RFC 6901 pointer (`''` is the whole body)
 */
export function resolvePointer(body: unknown, pointer: string): unknown {
  if (pointer === '') return body;
  if (!pointer.startsWith('/')) return undefined;
  let current: unknown = body;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return current;
}

// ---------------------------------------------------------------------------------------------------------
// Walking a body

/** One value found in a body, with the keys that lead to it (array indices as `[]`). */
interface Entry {
  readonly path: readonly string[];
  readonly value: unknown;
  /** The object or array holding the value. */
  readonly parent: unknown;
}

const MAX_DEPTH = 12;
const MAX_ENTRIES = 5_000;

/** Whether a value is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every value in the body, parents before children, depth- and size-limited against hostile bodies. */
function walk(body: unknown, arrays: boolean): Entry[] {
  const out: Entry[] = [];
  const visit = (value: unknown, path: readonly string[], parent: unknown): void => {
    if (out.length >= MAX_ENTRIES || path.length > MAX_DEPTH) return;
    out.push({ path, value, parent });
    if (Array.isArray(value)) {
      if (arrays) for (const item of value.slice(0, 50)) visit(item, [...path, '[]'], value);
    } else if (isObject(value)) {
      for (const [key, item] of Object.entries(value)) visit(item, [...path, key], value);
    }
  };
  visit(body, [], undefined);
  return out;
}

/** A key reduced to lower-case letters and digits: `signed_download_url`, `signedDownloadUrl` → same. */
function norm(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** A value found in a body, ranked by how sure the match is (0: surest) and how deep it was found. */
interface Candidate<T> {
  readonly rank: number;
  readonly depth: number;
  readonly value: T;
}

/** The lowest-ranked candidate; ties go to the shallowest, then the first found (the sort is stable). */
function best<T>(candidates: readonly Candidate<T>[]): T | null {
  const [winner] = [...candidates].sort((a, b) => a.rank - b.rank || a.depth - b.depth);
  return winner === undefined ? null : winner.value;
}

// ---------------------------------------------------------------------------------------------------------
// Document links and id

/** The three links of an uploaded document. */
type LinkRole = 'original' | 'thumbnail' | 'download';

/** Keys that say "a link" without saying which. */
const GENERIC_LINK_KEYS = new Set(['url', 'uri', 'href', 'link', 'links', 'urls', 'location', 'value', '[]']);
/** Envelopes an answer's object may be wrapped in. */
const ENVELOPES = ['data', 'attributes', 'result', 'payload', 'item', 'response', 'body'];
/** Keys under which a bare `url` still means the document itself. */
const DOCUMENT_ENVELOPES = new Set([...ENVELOPES, 'document', 'file', 'links', 'urls']);

/** A signed or download link is a credential: a name saying so wins over one that also says thumbnail. */
function roleOf(key: string): LinkRole | undefined {
  const k = norm(key);
  if (k.includes('signed') || k.includes('download')) return 'download';
  if (k.includes('thumb') || k.includes('preview')) return 'thumbnail';
  if (k.includes('original')) return 'original';
  return undefined;
}

/**
 * Query parameters that make a link a credential, whatever the key it came under: signatures and tokens of
 * pre-signed links (S3 `X-Amz-Signature`, GCS `X-Goog-Signature`, CloudFront `Signature`, Azure `sig`, any
 * `token` or `access_token`).
 */
const CREDENTIAL_PARAMETER = /signature|credential|token|^sig$/;

/** Whether `link` carries a credential in its query: such a link is only ever the signed download. */
function isSignedLink(link: string): boolean {
  const query = link.indexOf('?');
  if (query < 0) return false;
  const parameters = new URLSearchParams(link.slice(query + 1).split('#')[0]);
  return [...parameters.keys()].some((name) => CREDENTIAL_PARAMETER.test(name.toLowerCase()));
}

/** A value that can be a link: an absolute URL (any scheme) or an absolute path, without spaces. */
function linkText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text.length === 0 || text.length > 16_384 || /\s/.test(text)) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || text.startsWith('/') ? text : undefined;
}

/** A link given as a string or as `{ href }` (HAL), else `undefined`. */
function linkValue(value: unknown): string | undefined {
  return linkText(value) ?? (isObject(value) ? linkText(value.href) : undefined);
}

/** Which link a string at `path` is, and how sure: 0 when the nearest meaningful key names it. */
function classifyLink(
  path: readonly string[],
  holder: unknown,
): { role: LinkRole; rank: number } | undefined {
  // HAL-style arrays: `links: [{ rel: "thumbnail", href }]`.
  if (isObject(holder)) {
    for (const key of ['rel', 'name', 'type', 'kind']) {
      const named = holder[key];
      const role = typeof named === 'string' ? roleOf(named) : undefined;
      if (role) return { role, rank: 0 };
    }
  }
  // Anything under a key that says signed (`signed: { original }`) is signed.
  if (path.some((key) => norm(key).includes('signed'))) return { role: 'download', rank: 0 };
  let distance = 0;
  for (let index = path.length - 1; index >= 0; index -= 1) {
    const key = path[index] ?? '';
    const role = roleOf(key);
    if (role) return { role, rank: distance };
    if (!GENERIC_LINK_KEYS.has(norm(key)) && key !== '[]') distance += 1;
  }
  // A bare `url` on the document (or its envelopes) is the document itself.
  const leaf = norm(path[path.length - 1] ?? '');
  const parents = path.slice(0, -1);
  if (
    ['url', 'uri', 'href', 'link', 'fileurl'].includes(leaf) &&
    parents.every((k) => DOCUMENT_ENVELOPES.has(norm(k)))
  ) {
    return { role: 'original', rank: 50 };
  }
  return undefined;
}

/** Document id keys that name the document. */
const DOCUMENT_ID_KEYS = new Set(['documentid', 'docid']);
const ID_ENVELOPES = new Set(ENVELOPES);

function idText(value: unknown): string | undefined {
  // Safe integers only: the lossless parse hands any other number over as the string that was sent.
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return text.length > 0 && text.length <= 256 && !/\s/.test(text) ? text : undefined;
}

/** What {@link extractDocument} found; `null` where nothing usable was found. */
interface ExtractedDocument {
  /** The platform's document id as a string. */
  readonly documentId: string | null;
  /** Links to the original, a thumbnail and a signed download. */
  readonly links: Readonly<Record<LinkRole, string | null>>;
}

/**
 * Find the document id and links in an upload answer. Never throws.
 * @param body the parsed body (anything)
 * @param map pointers that win over the heuristics
 */
export function extractDocument(body: unknown, map?: ResponseMap): ExtractedDocument {
  const entries = walk(body, true);
  const found: Record<LinkRole, Candidate<string>[]> = {
    original: [],
    thumbnail: [],
    download: [],
  };
  const ids: Candidate<string>[] = [];
  for (const { path, value, parent } of entries) {
    const leaf = path[path.length - 1];
    if (leaf === undefined) continue;
    const link = linkText(value);
    if (link !== undefined) {
      const holder = norm(leaf) === 'href' ? parent : undefined;
      const kind = classifyLink(norm(leaf) === 'href' ? path.slice(0, -1) : path, holder);
      if (kind) {
        const role = isSignedLink(link) ? 'download' : kind.role;
        found[role].push({ rank: kind.rank, depth: path.length, value: link });
      }
      continue;
    }
    const id = idText(value);
    if (id === undefined || path.includes('[]')) continue;
    const key = norm(leaf);
    const parents = path.slice(0, -1).map(norm);
    const parentKey = parents[parents.length - 1];
    const isId = key === 'id' || key === 'uuid';
    const rank =
      DOCUMENT_ID_KEYS.has(key) || (isId && (parentKey === 'document' || parentKey === 'doc'))
        ? 0
        : isId && parents.every((k) => ID_ENVELOPES.has(k))
          ? 1
          : undefined;
    if (rank !== undefined) ids.push({ rank, depth: path.length, value: id });
  }
  const pinnedLink = (role: LinkRole): string | undefined => {
    const pointer = map?.links?.[role];
    const link = pointer === undefined ? undefined : linkValue(resolvePointer(body, pointer));
    // A pinned original or thumbnail that turns out signed is a credential all the same: it is not kept.
    return link !== undefined && role !== 'download' && isSignedLink(link) ? undefined : link;
  };
  const pinnedId = map?.documentId === undefined ? undefined : idText(resolvePointer(body, map.documentId));
  return {
    documentId: pinnedId ?? best(ids),
    links: {
      original: pinnedLink('original') ?? best(found.original),
      thumbnail: pinnedLink('thumbnail') ?? best(found.thumbnail),
      download: pinnedLink('download') ?? best(found.download),
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Order id

/**
 * A numeric id as the digits that were sent: a non-negative safe integer, or a string of digits (trimmed). A
 * number beyond 2^53 arrives as its digit string from the lossless parse (`http.ts`), never as a rounded number.
 */
export function numericId(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const digits = value.trim();
  return ORDER_ID_PATTERN.test(digits) ? digits : undefined;
}

/** Envelopes an order (or its id) may be wrapped in. */
const ORDER_ENVELOPES = new Set([...ENVELOPES, 'order']);

/**
 * Find the numeric order id in an order-creation answer: `order_id` / `orderId` / `id` at the top or inside
 * envelopes (`data`, `order`, `result`, …), a number or a digit string, returned as its digits. Never looks
 * into arrays or other objects (a `vehicle.id` is not the order's), and reads nothing when the candidates name
 * different ids. Never throws.
 * @param body the parsed body (anything)
 * @param map a pinned `orderId` pointer wins
 * @returns the id's digits, or `null` when none is recognisable
 */
export function extractOrderId(body: unknown, map?: ResponseMap): string | null {
  if (map?.orderId !== undefined) {
    const pinned = numericId(resolvePointer(body, map.orderId));
    if (pinned !== undefined) return pinned;
  }
  const ids: Candidate<string>[] = [];
  for (const { path, value } of walk(body, false)) {
    const leaf = path[path.length - 1];
    if (leaf === undefined) continue;
    const parents = path.slice(0, -1).map(norm);
    if (!parents.every((key) => ORDER_ENVELOPES.has(key))) continue;
    const key = norm(leaf);
    if (key !== 'orderid' && key !== 'id') continue;
    const id = numericId(value);
    if (id !== undefined) ids.push({ rank: key === 'orderid' ? 0 : 1, depth: path.length, value: id });
  }
  // Two different ids in the answer: which is the order's would be a guess, and documents linked to the wrong
  // id land on another order. None is read, so the order waits for an operator (maybe-applied); a response
  // map pins the right one.
  return new Set(ids.map((candidate) => candidate.value)).size > 1 ? null : best(ids);
}

// ---------------------------------------------------------------------------------------------------------
// Token

/** What {@link extractToken} found. */
export interface ExtractedToken {
  /** The bearer token. */
  readonly accessToken: string;
  /** `token_type`, when sent. */
  readonly tokenType?: string;
  /** `expires_in` in seconds, when sent and positive. */
  readonly expiresInSeconds?: number;
}

/**
 * The token of a token answer: `access_token` (the specification's name; `accessToken` tolerated) at the top
 * or inside a `data` envelope. Other fields are optional.
 * @returns the token, or `null` when none is found
 */
export function extractToken(body: unknown): ExtractedToken | null {
  const candidates = isObject(body) ? [body, body.data] : [];
  for (const candidate of candidates) {
    if (!isObject(candidate)) continue;
    const token = candidate.access_token ?? candidate.accessToken;
    if (typeof token !== 'string' || token.trim() === '') continue;
    const type = candidate.token_type ?? candidate.tokenType;
    const expires = Number(candidate.expires_in ?? candidate.expiresIn);
    return {
      accessToken: token,
      ...(typeof type === 'string' && { tokenType: type }),
      ...(Number.isFinite(expires) && expires > 0 && { expiresInSeconds: expires }),
    };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Shape for logs

/**
 * The key structure of a body with the JSON type of each leaf and never a value, e.g.
 * `['data.urls.original:string', 'data.id:number']`: safe to log even when the values are signed links.
 * @param body the parsed body
 * @param limit most entries listed
 */
export function describeShape(body: unknown, limit = 40): string[] {
  const out: string[] = [];
  const visit = (value: unknown, path: string, depth: number): void => {
    if (out.length >= limit) return;
    if (depth > 8) {
      out.push(`${path || '(body)'}:…`);
    } else if (Array.isArray(value)) {
      if (value.length === 0) out.push(`${path}[]:empty`);
      else visit(value[0], `${path}[]`, depth + 1);
    } else if (isObject(value)) {
      const keys = Object.keys(value);
      if (keys.length === 0) out.push(`${path || '(body)'}:{}`);
      // Key names are shown, not values; a key that looks like a secret value is cut short.
      for (const key of keys)
        visit(value[key], path === '' ? safeKey(key) : `${path}.${safeKey(key)}`, depth + 1);
    } else {
      const type = value === null ? 'null' : value === undefined ? 'empty' : typeof value;
      out.push(`${path || '(body)'}:${type}`);
    }
  };
  visit(body, '', 0);
  return out;
}

function safeKey(key: string): string {
  return key.length > 40 ? `${key.slice(0, 12)}…` : key;
}
