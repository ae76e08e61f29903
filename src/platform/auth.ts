/**
 * The identity API: the token request (`POST /iam/api/v1/auth/jwt` with user credentials, or the OAuth 2.0 client
 * credentials grant with a client id and secret), the token cache in front of it, and the "401 → authenticate
 * again → repeat once" rule every badge and document call goes through.
 */
import { isPlatformError, PlatformError } from './errors';
import { decodeTokenPayload, describeClaims, documentOwnerFrom } from './owner';
import type { DocumentOwnerSetting } from './owner';
import type { PlatformHttp, PlatformRequest, PlatformResponse } from './http';
import { parseTokenResponse } from './schemas';
import { TokenCache } from './token-cache';
import { decodeTokenClaims } from './token-cache';
import type { CachedTokenResult, IssuedToken } from './token-cache';
import type { AuthSession, PlatformCredentials } from './types';

/** What {@link PlatformAuth} needs from the client. */
interface AuthSettings {
  readonly http: PlatformHttp;
  readonly cache: TokenCache;
  readonly credentials: PlatformCredentials;
  /** Path of the token request. */
  readonly tokenPath: string;
  /** How long before expiry a token stops being reused. */
  readonly refreshMarginMs: number;
  /** Where the document owner comes from; the default chain of claims when absent. */
  readonly documentOwner?: DocumentOwnerSetting;
}

/** One answered attempt: the request sent and the platform's answer. */
export interface Answered {
  readonly request: PlatformRequest;
  /** Whatever its status. */
  readonly response: PlatformResponse;
}

/** What the API modules (stocks, orders, documents) get from the client. */
export interface ApiContext {
  readonly http: PlatformHttp;
  readonly auth: PlatformAuth;
}

/**
 * Wait for `promise`, but reject with the signal's reason as soon as it aborts.
 * @param promise what to wait for (it keeps running; its rejection is then ignored)
 * @param signal the caller's signal
 */
async function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason as Error);
  });
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Authentication for one client: obtains, caches and renews the bearer token. */
export class PlatformAuth {
  readonly #settings: AuthSettings;
  readonly #key: string;

  /** @param settings the client's HTTP layer, cache and credentials */
  constructor(settings: AuthSettings) {
    this.#settings = settings;
    const { credentials } = settings;
    // A NUL cannot be in a username from the environment: a client's key never equals a user's.
    const who = 'clientId' in credentials ? `\u0000client ${credentials.clientId}` : credentials.username;
    this.#key = TokenCache.key(settings.http.settings.baseUrl, who);
  }

  /**
   * A usable token from the cache, authenticating (once, shared by concurrent callers) when needed.
   * @param signal stops waiting (rejecting with its reason); the shared token call itself goes on for the
   * other callers, bounded by its own deadline
   */
  session(signal?: AbortSignal): Promise<CachedTokenResult> {
    const pending = this.#settings.cache.get(this.#key, this.#settings.refreshMarginMs, () =>
      this.#requestToken(),
    );
    return signal === undefined ? pending : abortable(pending, signal);
  }

  /**
   * The non-secret facts of the current token, authenticating if needed.
   * @param signal aborts the wait with its reason
   */
  async authenticate(signal?: AbortSignal): Promise<AuthSession> {
    const { token, fromCache } = await this.session(signal);
    const claims = decodeTokenPayload(token.reveal());
    return {
      userId: token.userId,
      documentOwner: documentOwnerFrom(claims, this.#settings.documentOwner, this.#credentialsKind),
      credentials: this.#credentialsKind,
      claims: describeClaims(claims),
      expiresAt: token.expiresAt,
      fromCache,
    };
  }

  /**
   * Run an attempt with the current token; when the platform answers 401, drop that token, authenticate again
   * and run the attempt once more with the new one. The second answer is returned whatever its status (a
   * second 401 becomes `UNAUTHORIZED` in the caller's error mapping).
   * @param attempt sends the request with the given bearer token; called at most twice, so it must rebuild
   * any request body that cannot be replayed (a file stream)
   */
  async withToken(attempt: (bearer: string) => Promise<Answered>, signal?: AbortSignal): Promise<Answered> {
    const first = await this.#sessionBeforeSending(signal);
    const answered = await attempt(first.token.reveal());
    if (answered.response.status !== 401) return answered;
    const { route, method, path } = answered.request;
    this.#settings.http.settings.logger.warn(
      { route, method, path, userId: first.token.userId },
      'platform rejected the token (401); authenticating again',
    );
    this.#settings.cache.invalidate(this.#key, first.token);
    const second = await this.#sessionBeforeSending(signal);
    return attempt(second.token.reveal());
  }

  /**
   * A token for a call about to be sent. When the token call fails, the call itself was never sent, whatever
   * the token call's own outcome: its error says `not-sent` (keeping its code, so it is retried as before), so
   * that an order creation or an upload is not held as if it might have taken effect.
   */
  async #sessionBeforeSending(signal?: AbortSignal): Promise<CachedTokenResult> {
    try {
      return await this.session(signal);
    } catch (error) {
      if (!isPlatformError(error) || error.outcome === 'not-sent') throw error;
      throw new PlatformError({ ...error, message: error.message, cause: error.cause, outcome: 'not-sent' });
    }
  }

  get #credentialsKind(): 'user' | 'client' {
    return 'clientId' in this.#settings.credentials ? 'client' : 'user';
  }

  async #requestToken(): Promise<IssuedToken> {
    const { http, credentials, tokenPath } = this.#settings;
    const { tokenFields } = http.settings.requestProfile;
    const request: PlatformRequest = {
      route: 'auth',
      method: 'POST',
      path: tokenPath,
      ...('clientId' in credentials
        ? clientCredentialsGrant(credentials, tokenFields)
        : {
            headers: { 'Content-Type': 'application/json' },
            data: JSON.stringify({
              ...tokenFields,
              username: credentials.username,
              password: credentials.password,
            }),
            sentNames: [...Object.keys(tokenFields), 'username', 'password'],
          }),
    };
    const response = await http.send(request);
    if (response.status < 200 || response.status >= 300) {
      throw http.errorFor(request, response, { tokenCall: true });
    }
    const issued = http.parse(request, response, parseTokenResponse, ['access_token']);
    const claims = decodeTokenClaims(issued.accessToken);
    http.settings.logger.info(
      {
        route: 'auth',
        userId: claims?.userId ?? null,
        exp: claims?.exp ?? null,
        ...(claims === null && { note: 'token is not a JWT; it is reused until the platform answers 401' }),
      },
      'authenticated against the platform',
    );
    return issued;
  }
}

/** `value` as application/x-www-form-urlencoded writes it (a space as `+`). */
export function formEncoded(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/**
 * The client's HTTP Basic credentials (RFC 6749 §2.3.1: id and secret form-encoded first, then
 * `id:secret` in base64): the `Authorization` value, a secret like the client secret itself.
 */
export function basicCredentials(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${formEncoded(clientId)}:${formEncoded(clientSecret)}`).toString('base64')}`;
}

/**
 * Headers and body of the OAuth 2.0 client credentials grant (RFC 6749 §4.4.2): a form with
 * `grant_type=client_credentials`, the client authenticated with HTTP Basic or by `client_id` and
 * `client_secret` in the form (§2.3.1), never both.
 */
function clientCredentialsGrant(
  credentials: Extract<PlatformCredentials, { clientId: string }>,
  tokenFields: Readonly<Record<string, string>>,
): Pick<PlatformRequest, 'headers' | 'data' | 'sentNames'> {
  const { clientId, clientSecret, clientAuth = 'basic' } = credentials;
  const form = new URLSearchParams({ ...tokenFields, grant_type: 'client_credentials' });
  if (clientAuth === 'body') {
    form.set('client_id', clientId);
    form.set('client_secret', clientSecret);
  }
  return {
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(clientAuth === 'basic' && { Authorization: basicCredentials(clientId, clientSecret) }),
    },
    data: form.toString(),
    sentNames: [...form.keys()],
  };
}
