/**
 * The hash that tells a repeated `PUT /v1/orders/{orderRef}` (same input: attach, 200) from a different order
 * under a used reference (409). It is taken over the validated input (defaults and trimming applied) in a
 * canonical JSON form (object keys sorted), and kept in the run's memo, which the payload codec encrypts; never
 * in a search attribute, which Temporal stores and indexes in clear.
 */
import { createHash } from 'node:crypto';
import type { ValidBadgeOrderInput } from '../contract';

/** Memo entry holding the input hash of an order started through the API. */
export const INPUT_HASH_MEMO_KEY = 'apiInputHash';

/** JSON with object keys sorted at every level, so equal inputs give equal text whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** `sha256:<hex>` of the canonical JSON of a validated order input. */
export function orderInputHash(input: ValidBadgeOrderInput): string {
  return `sha256:${createHash('sha256').update(canonicalJson(input), 'utf8').digest('hex')}`;
}

/**
 * The hash release 0.3.0 kept for the same request: it had no `documentsFolder` (the API sets it since 0.4.0),
 * and took a numeric `stockId` or `documentOwner` as the number sent, where ids are strings now. A repeated PUT
 * of an order placed through 0.3.0 is compared with both hashes, so it still attaches.
 * @param body the request body as sent
 */
export function orderInputHashBefore040(
  input: ValidBadgeOrderInput,
  body: Readonly<Record<string, unknown>>,
): string {
  const numeric = (['stockId', 'documentOwner'] as const).filter((field) => typeof body[field] === 'number');
  const before = { ...input, documentsFolder: undefined };
  return orderInputHash({ ...before, ...Object.fromEntries(numeric.map((field) => [field, body[field]])) });
}
