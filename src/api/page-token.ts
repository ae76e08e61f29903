/**
 * The page token of `GET /v1/orders`: opaque to callers, it wraps Temporal's token together with the filter it
 * belongs to (status and client), so a token is refused (400) with another filter, or by another client, instead
 * of being passed on to give odd pages.
 */
import { z } from 'zod';
import { BADGE_ORDER_STATUSES, type BadgeOrderStatusValue } from '../workflow-contract';

const tokenSchema = z.strictObject({
  v: z.literal(1),
  status: z.enum(BADGE_ORDER_STATUSES).nullable(),
  /** The client filter (every listing of a client has one); absent: an operator's listing of every order. */
  client: z.string().optional(),
  t: z.string().regex(/^[A-Za-z0-9_-]+$/),
});

/** What a listing is filtered by: a token belongs to exactly one filter. */
interface ListingFilter {
  readonly status: BadgeOrderStatusValue | undefined;
  readonly clientId: string | undefined;
}

/** Wraps Temporal's page token for the caller. */
export function encodePageToken(temporalToken: Uint8Array, filter: ListingFilter): string {
  const json = JSON.stringify({
    v: 1,
    status: filter.status ?? null,
    ...(filter.clientId === undefined ? {} : { client: filter.clientId }),
    t: Buffer.from(temporalToken).toString('base64url'),
  });
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** Temporal's page token from a caller's token, or null when it is not one of ours for this filter. */
export function decodePageToken(token: string, filter: ListingFilter): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = tokenSchema.safeParse(json);
  if (
    !parsed.success ||
    parsed.data.status !== (filter.status ?? null) ||
    parsed.data.client !== filter.clientId
  ) {
    return null;
  }
  return Uint8Array.from(Buffer.from(parsed.data.t, 'base64url'));
}
