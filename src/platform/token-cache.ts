/**
 * Access tokens, cached once per worker process.
 *
 * A token is reused until shortly before it expires; concurrent callers that find no usable token share one
 * in-flight authentication, so a burst of activities never stampedes the identity API. The token string is
 * held in a private field: it does not show up in `util.inspect`, `JSON.stringify` or structured logs.
 *
 * A token's lifetime never rests on our clock agreeing with the platform's. It is, first that applies: the
 * token response's `expires_in`, counted from when we received the token; the JWT's `exp − iat`, counted the
 * same way; `exp` alone as an absolute time, but only when it lies at least {@link MIN_CREDIBLE_REMAINING_MS}
 * ahead of our clock. An `exp` that looks past or seconds away on arrival says more about the platform's clock
 * (running behind ours) than about the token, so such a token, like one without any of these, is reused until
 * the platform answers 401.
 *
 * Sign-ins are paced whatever the claims say: a token counts as usable for its first
 * {@link MIN_SIGN_IN_INTERVAL_MS}, so a key signs in at most once in that interval unless a 401 dropped its
 * token (a rejected token is replaced at once).
 */
import { inspect } from 'node:util';
import { parseJsonKeepingDigits } from '../json-numbers';

/** An `exp` (without `iat` or `expires_in`) closer than this on arrival is not believed; see the module comment. */
const MIN_CREDIBLE_REMAINING_MS = 30_000;

/** A token is used for at least this long after it was received, whatever its claims say (unless a 401). */
const MIN_SIGN_IN_INTERVAL_MS = 2_000;

/** What an authentication yields, before the cache turns it into an {@link AccessToken}. */
export interface IssuedToken {
  /** The bearer token as returned by the token call. */
  readonly accessToken: string;
  /** `expires_in` of the token response; when present it decides the token's lifetime. */
  readonly expiresInSeconds?: number;
}

/** The non-secret facts the client derives from a JWT payload (decoded, not verified). */
interface TokenClaims {
  /** The `sub` claim. */
  readonly userId: string | null;
  /** The `exp` claim, in epoch seconds. */
  readonly exp: number | null;
  /** The `iat` claim, in epoch seconds. */
  readonly iat: number | null;
}

/**
 * Decode a JWT's payload without verifying it (the client only needs `sub`, `exp` and `iat`; the platform
 * verifies the signature). Parsed like every platform answer, so a numeric `sub` beyond 2^53 keeps its digits.
 * Returns `null` when the token is not a decodable JWT.
 */
export function decodeTokenClaims(token: string): TokenClaims | null {
  try {
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const payload = parseJsonKeepingDigits(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8'));
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
    const { sub, exp, iat } = payload as Record<string, unknown>;
    return {
      userId: typeof sub === 'string' && sub !== '' ? sub : typeof sub === 'number' ? String(sub) : null,
      exp: typeof exp === 'number' && Number.isFinite(exp) ? exp : null,
      iat: typeof iat === 'number' && Number.isFinite(iat) ? iat : null,
    };
  } catch {
    return null;
  }
}

/**
 * When a token received at `nowMs` expires in local time, or `null` when unknown; see the module comment.
 * @param expiresInSeconds the token response's `expires_in`
 * @param claims the JWT's claims, `null` for an opaque token
 * @param nowMs when the token was received
 */
function localExpiryMs(
  expiresInSeconds: number | undefined,
  claims: TokenClaims | null,
  nowMs: number,
): number | null {
  if (expiresInSeconds !== undefined) return nowMs + expiresInSeconds * 1000;
  const exp = claims?.exp ?? null;
  if (exp === null) return null;
  const iat = claims?.iat ?? null;
  if (iat !== null && exp >= iat) return nowMs + (exp - iat) * 1000;
  return exp * 1000 - nowMs >= MIN_CREDIBLE_REMAINING_MS ? exp * 1000 : null;
}

/**
 * A cached access token. The token string is only available through {@link AccessToken.reveal}; everything
 * else on it is safe to log.
 */
class AccessToken {
  readonly #value: string;
  /** The user id (`sub`), or `null`. */
  readonly userId: string | null;
  /**
   * When the token expires in local time, or `null` when unknown (then it is reused until a 401): `expires_in`
   * or `exp − iat` counted from `obtainedAt`, or a credible `exp` (see the module comment).
   */
  readonly expiresAt: Date | null;
  /** When this process received the token. */
  readonly obtainedAt: Date;

  /**
   * @param issued what the token call returned: the token and the response's `expires_in`
   * @param nowMs the local time it was received
   */
  constructor(issued: IssuedToken, nowMs: number) {
    const claims = decodeTokenClaims(issued.accessToken);
    const expiresAtMs = localExpiryMs(issued.expiresInSeconds, claims, nowMs);
    this.#value = issued.accessToken;
    this.userId = claims?.userId ?? null;
    this.expiresAt = expiresAtMs === null ? null : new Date(expiresAtMs);
    this.obtainedAt = new Date(nowMs);
  }

  /** The bearer token itself; only for the Authorization header. */
  reveal(): string {
    return this.#value;
  }

  /**
   * Whether the token may still be used at `nowMs`: until `marginMs` before expiry, with the margin capped at
   * half the token's lifetime so that short-lived tokens are still reused, and in any case for the first
   * {@link MIN_SIGN_IN_INTERVAL_MS} after it was received.
   * @param nowMs the current local time
   * @param marginMs how long before expiry to stop using the token
   */
  isUsable(nowMs: number, marginMs: number): boolean {
    if (this.expiresAt === null) return true;
    const obtainedAtMs = this.obtainedAt.getTime();
    if (nowMs - obtainedAtMs < MIN_SIGN_IN_INTERVAL_MS) return true;
    const expiresAtMs = this.expiresAt.getTime();
    const lifetimeMs = Math.max(0, expiresAtMs - obtainedAtMs);
    return nowMs < expiresAtMs - Math.min(marginMs, lifetimeMs / 2);
  }

  /** Non-secret facts only. */
  toJSON(): Record<string, unknown> {
    return { userId: this.userId, expiresAt: this.expiresAt, obtainedAt: this.obtainedAt };
  }

  /** Non-secret facts only. */
  [inspect.custom](): string {
    return `AccessToken ${inspect(this.toJSON())}`;
  }
}

/** The outcome of {@link TokenCache.get}. */
export interface CachedTokenResult {
  /** A usable token. */
  readonly token: AccessToken;
  /** `true` when the token was already cached; `false` when this call waited for an authentication. */
  readonly fromCache: boolean;
}

/**
 * Caches access tokens keyed by base URL and username. One instance per worker process
 * ({@link defaultTokenCache}) lets every activity share one token; tests create their own with a fake clock.
 */
export class TokenCache {
  /** The cache's clock, in epoch milliseconds. */
  readonly now: () => number;
  readonly #tokens = new Map<string, AccessToken>();
  readonly #inFlight = new Map<string, Promise<AccessToken>>();

  /** @param options the clock in epoch ms, `Date.now` unless a test advances its own instead of sleeping */
  constructor(options: { readonly now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The cache key of a base URL and username (trailing slashes and host case do not matter).
   * @param baseUrl the platform's base address
   * @param username the user the token belongs to
   */
  static key(baseUrl: string, username: string): string {
    let normalised = baseUrl;
    try {
      normalised = new URL(baseUrl).href;
    } catch {
      // Keep the raw string: an invalid base URL fails at request time with a clear error.
    }
    return `${normalised.replace(/\/+$/, '')} ${username}`;
  }

  /**
   * Return a usable cached token, or authenticate. Concurrent callers for the same key that find no usable
   * token share one call of `authenticate`; if it fails, all of them get its error and nothing is cached.
   * @param key from {@link TokenCache.key}
   * @param marginMs how long before expiry a token stops being reused
   * @param authenticate performs the token call
   */
  async get(
    key: string,
    marginMs: number,
    authenticate: () => Promise<IssuedToken>,
  ): Promise<CachedTokenResult> {
    const cached = this.#tokens.get(key);
    if (cached?.isUsable(this.now(), marginMs)) return { token: cached, fromCache: true };
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = this.#authenticate(key, authenticate);
      this.#inFlight.set(key, pending);
    }
    return { token: await pending, fromCache: false };
  }

  async #authenticate(key: string, authenticate: () => Promise<IssuedToken>): Promise<AccessToken> {
    try {
      const issued = await authenticate();
      const token = new AccessToken(issued, this.now());
      this.#tokens.set(key, token);
      return token;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  /**
   * The cached token for a key, usable or not, without authenticating.
   * @param key from {@link TokenCache.key}
   */
  peek(key: string): AccessToken | undefined {
    return this.#tokens.get(key);
  }

  /**
   * Drop the cached token after the platform rejected it. With `token`, only that token is dropped: when
   * another caller already replaced it with a fresh one, the fresh one stays.
   * @param key from {@link TokenCache.key}
   * @param token the token the platform rejected
   * @returns whether a token was dropped
   */
  invalidate(key: string, token?: AccessToken): boolean {
    const cached = this.#tokens.get(key);
    if (!cached || (token !== undefined && cached !== token)) return false;
    return this.#tokens.delete(key);
  }

  /** Number of cached tokens. */
  get size(): number {
    return this.#tokens.size;
  }

  /** Keys and non-secret facts only. */
  [inspect.custom](): string {
    return `TokenCache ${inspect(Object.fromEntries(this.#tokens))}`;
  }
}

/** The process-wide token cache every client uses unless given another one. */
export const defaultTokenCache = new TokenCache();
