/**
 * Tolerant parsing of the platform's responses.
 *
 * The specification leaves most response shapes "not shown", so each parser accepts the documented variants
 * (envelopes, alternative field names, numbers as strings) and keeps the raw body beside the parsed fields.
 * What cannot be understood becomes a {@link ResponseShapeError} naming what was missing; the HTTP layer turns
 * it into an `UNEXPECTED_RESPONSE` `PlatformError` with method, path and status. Parsers never echo body values into
 * messages, so a token or a signed URL cannot leak through an error.
 */
import { z } from 'zod';
import { extractOrderId, extractToken, isObject } from './extract';
import type { ExtractedToken, ResponseMap } from './extract';
import type { Stock } from './types';

/**
 * Thrown by the parsers in this module when a body cannot be understood. Carries only a description of what
 * was expected and missing, never body values.
 */
export class ResponseShapeError extends Error {
  /** @param problem what was expected and missing, e.g. `no order id (id, order_id or orderId)` */
  constructor(readonly problem: string) {
    super(problem);
  }
}
Object.defineProperty(ResponseShapeError.prototype, 'name', { value: 'ResponseShapeError' });

const nonEmptyString = z.string().trim().min(1);

/** An identifier that may be a number or a string; normalised to a string. */
const anyIdSchema = z.union([
  z
    .number()
    .finite()
    .transform((value) => String(value)),
  nonEmptyString,
]);

/** Describe the JSON type of a field value for messages, without its content. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string' && value.trim() === '') return 'an empty string';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Describe a whole response body (a string body is text that did not parse as JSON). */
function describeBody(value: unknown): string {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return 'an empty body';
  if (typeof value === 'string') return 'a string (not JSON)';
  return describe(value);
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return isObject(value) ? value : undefined;
}

/** Look up the first key of `keys` that is present (not undefined/null) on `object`. */
function firstPresent(
  object: Record<string, unknown>,
  keys: readonly string[],
): { key: string; value: unknown } | undefined {
  for (const key of keys) {
    const value = object[key];
    if (value !== undefined && value !== null) return { key, value };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Token

/**
 * Parse the token response: `access_token` at the top or inside a `data` envelope; every other field is
 * optional. Throws {@link ResponseShapeError} when there is no token string.
 */
export function parseTokenResponse(body: unknown): ExtractedToken {
  const token = extractToken(body);
  if (token === null) {
    throw new ResponseShapeError(
      asObject(body)
        ? 'no access_token string in the token response (at the top or under data)'
        : `token response is ${describeBody(body)}, expected an object with access_token`,
    );
  }
  return token;
}

// ---------------------------------------------------------------------------------------------------------
// Stocks

/** Envelope keys under which a list may be found. */
const LIST_ENVELOPE_KEYS = ['data', 'items', 'stocks', 'results', 'content'] as const;
/** Field names a stock's id may have, in order of preference. */
const STOCK_ID_KEYS = ['stock_id', 'stockId', 'id'] as const;

/**
 * Normalise a stock id (number or string) to the string form used for comparisons. Returns `undefined` for
 * values that are not an id (empty strings, non-finite numbers, objects).
 */
export function normaliseStockId(value: unknown): string | undefined {
  const parsed = anyIdSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** Find the list of stocks: a bare array, or in an envelope key, possibly nested one level. */
function findList(body: unknown): { list: unknown[]; where: string } | undefined {
  if (Array.isArray(body)) return { list: body, where: '' };
  const top = asObject(body);
  if (!top) return undefined;
  for (const key of LIST_ENVELOPE_KEYS) {
    const value = top[key];
    if (Array.isArray(value)) return { list: value, where: key };
  }
  for (const key of LIST_ENVELOPE_KEYS) {
    const inner = asObject(top[key]);
    if (!inner) continue;
    for (const innerKey of LIST_ENVELOPE_KEYS) {
      const value = inner[innerKey];
      if (Array.isArray(value)) return { list: value, where: `${key}.${innerKey}` };
    }
  }
  return undefined;
}

/**
 * Parse the stocks response: a bare array or an envelope (`data`, `items`, `stocks`, `results`, `content`,
 * possibly nested one level such as `{ data: { items: [...] } }`); each stock's id under `stock_id`, `stockId`
 * or `id`, number or string. Throws {@link ResponseShapeError} when no list is found or a stock has no id.
 */
export function parseStocksResponse(body: unknown): Stock[] {
  const found = findList(body);
  if (!found) {
    throw new ResponseShapeError(
      `no stock list in the response (got ${describeBody(body)}; expected an array or an object with ${LIST_ENVELOPE_KEYS.join(', ')})`,
    );
  }
  return found.list.map((record, index) => {
    const at = `${found.where}[${index}]`;
    const object = asObject(record);
    if (!object) throw new ResponseShapeError(`stock at ${at} is ${describe(record)}, expected an object`);
    const candidate = firstPresent(object, STOCK_ID_KEYS);
    const stockId = candidate === undefined ? undefined : normaliseStockId(candidate.value);
    if (stockId === undefined) {
      throw new ResponseShapeError(
        candidate === undefined
          ? `stock at ${at} has no id (${STOCK_ID_KEYS.join(', ')})`
          : `stock at ${at} has an invalid ${candidate.key} (${describe(candidate.value)})`,
      );
    }
    return { stockId, raw: record };
  });
}

/**
 * Tolerant reading of a stocks page for advice: the ids that can be read, and whether some records could not.
 * `undefined` when no list is found at all. Never throws.
 */
export function readStockIds(body: unknown): { ids: string[]; partial: boolean } | undefined {
  const found = findList(body);
  if (!found) return undefined;
  const ids: string[] = [];
  let partial = false;
  for (const record of found.list) {
    const object = asObject(record);
    const candidate = object ? firstPresent(object, STOCK_ID_KEYS) : { key: '', value: record };
    const id = candidate === undefined ? undefined : normaliseStockId(candidate.value);
    if (id === undefined) partial = true;
    else ids.push(id);
  }
  return { ids, partial };
}

// ---------------------------------------------------------------------------------------------------------
// Orders

/**
 * Parse the order-creation response and return the order id as its digits: `order_id`, `orderId` or `id` at the
 * top or inside envelopes (`data`, `order`, `result`, …), a number or a digit string; a pinned pointer of
 * `map` wins. Throws {@link ResponseShapeError} when none is found (the caller must treat the order as
 * possibly created: the status said success).
 */
export function parseOrderResponse(body: unknown, map?: ResponseMap): { orderId: string } {
  const orderId = extractOrderId(body, map);
  if (orderId === null) {
    throw new ResponseShapeError(
      asObject(body)
        ? 'no order id (id, order_id, orderId, at the top or inside envelopes such as data, order, result)'
        : `order response is ${describeBody(body)}, expected an object with an id`,
    );
  }
  return { orderId };
}

// ---------------------------------------------------------------------------------------------------------
// Error bodies

/** What the client takes from an error body, whatever its shape. */
interface ParsedErrorBody {
  /** The platform's message (`error.message`, `message`, `detail`, `title`, `error_description`, …). */
  readonly message?: string;
  /** The platform's code (`error.code`, `code`, or `error` when it is a string). */
  readonly code?: string;
  /** The scope named in a 403 (`error.scope`, `scope`, `required_scope`). */
  readonly scope?: string;
  /** The field or part at fault (`error.field`, `field`). */
  readonly field?: string;
  /** `details` (or `errors`) of the error object, else the error object itself, else the whole body. */
  readonly details?: unknown;
}

const textField = z.union([nonEmptyString, z.number().transform(String)]);

function pickText(objects: readonly Record<string, unknown>[], keys: readonly string[]): string | undefined {
  for (const object of objects) {
    for (const key of keys) {
      const parsed = textField.safeParse(object[key]);
      if (parsed.success) return parsed.data;
    }
  }
  return undefined;
}

/**
 * Extract message, code, scope, field and details from an error body of any shape: the sandbox's
 * `{ error: { status, code, message, field?, scope? } }`, flat `{ message, code }`, RFC 7807 problem details
 * (`title`, `detail`, `invalid_params[0].name`), OAuth style `{ error, error_description }`, or plain text.
 * Never throws.
 */
export function parseErrorBody(body: unknown): ParsedErrorBody {
  if (typeof body === 'string') {
    const text = body.trim();
    return text === '' ? {} : { message: text.length > 200 ? `${text.slice(0, 200)}…` : text };
  }
  const top = asObject(body);
  if (!top) return {};
  const inner = asObject(top.error);
  const objects = inner ? [inner, top] : [top];
  const message = pickText(objects, ['message', 'detail', 'error_description', 'title', 'description']);
  const code = pickText(objects, ['code', 'error_code']) ?? pickText([top], ['error']);
  const scope = pickText(objects, ['scope', 'required_scope', 'requiredScope', 'missing_scope']);
  // RFC 9457's example extension names the fields at fault in `invalid_params: [{ name, reason }]`.
  const invalid = Array.isArray(top.invalid_params) ? asObject(top.invalid_params[0]) : undefined;
  const field =
    pickText(objects, ['field', 'part', 'parameter']) ??
    (invalid ? pickText([invalid], ['name']) : undefined);
  const details = inner?.details ?? top.details ?? inner?.errors ?? top.errors ?? inner ?? top;
  return {
    ...(message !== undefined && { message }),
    ...(code !== undefined && { code }),
    ...(scope !== undefined && { scope }),
    ...(field !== undefined && { field }),
    details,
  };
}
