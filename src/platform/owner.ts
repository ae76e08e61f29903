/**
 * Whose documents they are: the `document_owner` of every upload, decided from the token, the only place the
 * platform tells who the user is (which claim holds the id is not shown: identity servers such as Keycloak put
 * a UUID in `sub` and the numeric user id in another claim). The rules and their order: docs/platform-client.md,
 * "Document owner". Ids are opaque strings: a numeric claim keeps every digit.
 */

/** A configured source of the owner: a fixed id, or the claim that holds it. */
export type DocumentOwnerSetting =
  { readonly kind: 'fixed'; readonly id: string } | { readonly kind: 'claim'; readonly claim: string };

/** Claims the default chain looks at, in order: named user ids first, then `sub`, then a numeric user name. */
const DEFAULT_USER_ID_CLAIMS = ['user_id', 'userId', 'uid', 'sub', 'preferred_username'] as const;

/** Claims about the token itself, never a user id even when numeric. */
const TOKEN_CLAIMS = new Set(['exp', 'iat', 'nbf', 'auth_time', 'updated_at', 'iss', 'aud', 'jti']);

/** The owner the client decided on, and where it came from (safe to show: names, not secrets). */
export interface DocumentOwner {
  /** The id, as the platform wrote it. */
  readonly id: string;
  /** `BADGE_DOCUMENT_OWNER`, `claim user_id (BADGE_USER_ID_CLAIM)`, `claim uid (default chain)`, … */
  readonly source: string;
}

/** A claim value as an id: a non-empty string, or an integer as written (never through a float). */
function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' || value.length > 256 ? undefined : value.trim();
  return undefined;
}

function isNumericId(id: string | undefined): id is string {
  return id !== undefined && /^\d{1,64}$/.test(id);
}

/**
 * The JWT's payload, decoded without verifying it (the platform verifies), integers kept as their digit
 * strings so no digit of an id is lost; other numbers stay numbers. `null` when it is not a decodable JWT.
 */
export function decodeTokenPayload(token: string): Readonly<Record<string, unknown>> | null {
  const part = token.split('.')[1];
  if (part === undefined || !/^[A-Za-z0-9_-]+$/.test(part)) return null;
  try {
    // The reviver's third argument (JSON.parse source text access) holds the number as written.
    const keepIntegers = (_key: string, value: unknown, context?: { source?: string }): unknown =>
      typeof value === 'number' && context?.source !== undefined && /^-?\d+$/.test(context.source)
        ? context.source
        : value;
    const payload: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'), keepIntegers);
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * The document owner for a token's claims; `null` when the setting's claim is absent, or no claim of the
 * default chain holds an id, or two of them hold different numeric ids, or, with client credentials, nothing is
 * configured: such a token names the client (RFC 9068 §2.2 puts the client id in `sub`), not a user.
 * @param claims from {@link decodeTokenPayload}
 * @param setting the configured source, if any
 * @param credentials the kind the token was issued for
 */
export function documentOwnerFrom(
  claims: Readonly<Record<string, unknown>> | null,
  setting?: DocumentOwnerSetting,
  credentials: 'user' | 'client' = 'user',
): DocumentOwner | null {
  if (setting?.kind === 'fixed') return { id: setting.id, source: 'BADGE_DOCUMENT_OWNER' };
  if (setting?.kind === 'claim') {
    const id = idOf(claims?.[setting.claim]);
    return id === undefined ? null : { id, source: `claim ${setting.claim} (BADGE_USER_ID_CLAIM)` };
  }
  if (credentials === 'client') return null;
  const chain = DEFAULT_USER_ID_CLAIMS.map((claim) => ({ claim, id: idOf(claims?.[claim]) }));
  const numeric = chain.filter((candidate) => isNumericId(candidate.id));
  // Two claims naming different numeric ids (an LDAP uid beside the platform's user id): picking one would
  // be a guess about whose documents these are. The operator names the claim instead.
  if (new Set(numeric.map((candidate) => candidate.id)).size > 1) return null;
  const found =
    numeric[0] ??
    chain.find((candidate) => candidate.id !== undefined && candidate.claim !== 'preferred_username');
  return found?.id === undefined ? null : { id: found.id, source: `claim ${found.claim} (default chain)` };
}

/** What a token's claims say about the user id, by name only: for `ops probe`. */
export interface ClaimsReport {
  /** Every claim's name, never a value. */
  readonly names: readonly string[];
  /** The claim that looks like the platform's (numeric) user id, or `null`. */
  readonly userIdClaim: string | null;
  /** Whether `sub` holds a numeric id; `null` without `sub`. */
  readonly subNumeric: boolean | null;
}

/**
 * Name the claims of a token and the one that looks like the numeric user id: the first numeric claim of the
 * default chain, else the first numeric claim whose name says id or user. Never returns a value.
 * @param claims from {@link decodeTokenPayload}
 */
export function describeClaims(claims: Readonly<Record<string, unknown>> | null): ClaimsReport {
  if (claims === null) return { names: [], userIdClaim: null, subNumeric: null };
  const names = Object.keys(claims);
  const numeric = (name: string): boolean => !TOKEN_CLAIMS.has(name) && isNumericId(idOf(claims[name]));
  const userIdClaim =
    DEFAULT_USER_ID_CLAIMS.find((name) => numeric(name)) ??
    names.find((name) => numeric(name) && /(^|[_-])(user|uid|id)([_-]|$)|Id$|^uid$/i.test(name)) ??
    null;
  const sub = idOf(claims.sub);
  return { names, userIdClaim, subNumeric: sub === undefined ? null : isNumericId(sub) };
}
