/**
 * The page token of `GET /v1/orders`: opaque to callers, it wraps Temporal's token together with the filter it
 * belongs to, so a token is refused (400) with another filter instead of being passed on to give odd pages.
 */
import { z } from 'zod';
import { BADGE_ORDER_STATUSES, type BadgeOrderStatusValue } from '../contract';

const tokenSchema = z.strictObject({
  v: z.literal(1),
  status: z.enum(BADGE_ORDER_STATUSES).nullable(),
  t: z.string().regex(/^[A-Za-z0-9_-]+$/),
});

/** Wraps Temporal's page token for the caller. */
export function encodePageToken(
  temporalToken: Uint8Array,
  status: BadgeOrderStatusValue | undefined,
): string {
  const json = JSON.stringify({
    v: 1,
    status: status ?? null,
    t: Buffer.from(temporalToken).toString('base64url'),
  });
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** Temporal's page token from a caller's token, or null when it is not one of ours for this filter. */
export function decodePageToken(token: string, status: BadgeOrderStatusValue | undefined): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = tokenSchema.safeParse(json);
  if (!parsed.success || parsed.data.status !== (status ?? null)) return null;
  return Uint8Array.from(Buffer.from(parsed.data.t, 'base64url'));
}
