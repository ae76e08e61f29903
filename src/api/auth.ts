/**
 * Who is calling: an API key (`X-API-Key`, matched by its SHA-256 against the keys file in constant time) or,
 * when configured, an OIDC access token (`Authorization: Bearer`, checked against the JWKS, fetched over
 * `https://` only, with issuer, audience and expiry all required). The result is the request's {@link Principal}; routes name the scope they need in their
 * `config.scope`, and the check runs in `onRequest`, before a byte of the body is read.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { REQUIRED_TOKEN_CLAIMS } from '../codec/ui-access-token';
import { insecureUrlProblem } from '../url-policy';
import { ConfigError } from '../config';
import { CLIENT_ID_PATTERN } from '../contract';
import { API_SCOPES, type ApiKeyEntry, type ApiScope, type OidcConfig } from './config';
import { ApiProblem } from './problem';

/** The authenticated caller of a request. */
export interface Principal {
  /**
   * The client: the API key's `client` (its `id` by default), or for a token `oidc:<azp or client_id>` or
   * `oidc-sub:<sub>` (a hash of it when it does not fit {@link CLIENT_ID_PATTERN}). It owns the orders and
   * documents it places, picks the secret its webhooks are signed with, and its limits count by it.
   */
  readonly clientId: string;
  readonly scopes: readonly ApiScope[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, set by the auth hook before the handler runs; null only on public routes. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** The scope a route needs; a route without one needs a caller with any scope. */
    scope?: ApiScope;
    /** Served without credentials (the OpenAPI document, the docs page, the health check). */
    public?: boolean;
  }
}

/** The caller of a request on an authenticated route (the auth hook has set it). */
export function principalOf(request: { readonly principal: Principal | null }): Principal {
  // Unreachable on a route with a scope: a plain error names the bug instead of acting for nobody.
  if (request.principal === null) throw new Error('no principal on an authenticated route');
  return request.principal;
}

/** Header carrying an API key. */
export const API_KEY_HEADER = 'x-api-key';

/** Request headers as node gives them. */
type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Finds the caller of a request; throws an {@link ApiProblem} (401, or 503 when the JWKS cannot be read). */
export interface Authenticator {
  authenticate(headers: Headers): Promise<Principal>;
}

/** A new API key: 32 random bytes, so SHA-256 of it needs no slow hash. */
export function newApiKey(): string {
  return `bo_${randomBytes(32).toString('base64url')}`;
}

/** Lowercase hex SHA-256 of an API key, as the keys file stores it. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const unauthorized = (detail: string, code = 'unauthenticated'): ApiProblem =>
  new ApiProblem({
    status: 401,
    code,
    detail,
    headers: { 'www-authenticate': 'Bearer realm="badge-orders", ApiKey header="X-API-Key"' },
  });

/** The 403 of a caller without the route's scope. */
export function forbidden(scope: ApiScope): ApiProblem {
  return new ApiProblem({
    status: 403,
    code: 'insufficient-scope',
    detail: `This operation needs the scope ${scope}`,
  });
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Matches a presented key against every entry, without stopping early, so timing tells nothing. */
function matchApiKey(keys: readonly ApiKeyEntry[], presented: string): ApiKeyEntry | undefined {
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  let found: ApiKeyEntry | undefined;
  for (const entry of keys) {
    if (timingSafeEqual(digest, Buffer.from(entry.sha256, 'hex')) && found === undefined) found = entry;
  }
  return found;
}

/** The names a claim holds: a list of strings, or one string of names separated by spaces. */
function namesIn(claim: unknown): string[] {
  if (typeof claim === 'string') return claim.split(/\s+/);
  return Array.isArray(claim) ? claim.filter((name): name is string => typeof name === 'string') : [];
}

/** The claim `name` of a token: a top-level claim of that name, else a path through nested claims by `.`. */
function claimAt(payload: JWTPayload, name: string): unknown {
  if (name in payload) return payload[name];
  return name
    .split('.')
    .reduce<unknown>(
      (claims, key) =>
        typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>)[key] : undefined,
      payload,
    );
}

/**
 * The scopes of a token: those its `scope` or `scp` claim names, but `ops` only for a client in
 * `API_OIDC_OPS_CLIENTS` or a holder of a role in `API_OIDC_OPS_ROLES`. An identity provider may grant any
 * scope a user asks for; the operators, not the token's bearer, decide who runs operator actions on every client.
 */
function tokenScopes(payload: JWTPayload, clientId: string, oidc: OidcConfig): ApiScope[] {
  const names = namesIn(payload.scope ?? payload.scp);
  const roles = namesIn(claimAt(payload, oidc.rolesClaim ?? 'roles'));
  const operator =
    (oidc.opsClients ?? []).includes(clientId) || (oidc.opsRoles ?? []).some((role) => roles.includes(role));
  return API_SCOPES.filter((scope) => names.includes(scope) && (scope !== 'ops' || operator));
}

/**
 * Claims naming a token's client, the first present deciding, each with the prefix of its name space: `azp` and
 * `client_id` name the provider's client (`oidc:`), `sub` a subject (`oidc-sub:`), which may be a user whose
 * name equals another caller's client.
 */
const CLIENT_CLAIMS = [
  ['azp', 'oidc:'],
  ['client_id', 'oidc:'],
  ['sub', 'oidc-sub:'],
] as const;

/**
 * The client id of a token: the prefix of its claim ({@link CLIENT_CLAIMS}) and the claim, or the prefix,
 * `sha256-` and the first 48 hex digits of the claim's SHA-256 when that does not fit {@link CLIENT_ID_PATTERN};
 * undefined for a token that names no client (it could own nothing).
 */
function tokenClientId(payload: JWTPayload): string | undefined {
  for (const [claim, prefix] of CLIENT_CLAIMS) {
    const value = payload[claim];
    if (typeof value !== 'string' || value === '') continue;
    const direct = `${prefix}${value}`;
    if (CLIENT_ID_PATTERN.test(direct)) return direct;
    return `${prefix}sha256-${createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 48)}`;
  }
  return undefined;
}

interface AuthenticatorOptions {
  readonly apiKeys: readonly ApiKeyEntry[];
  readonly oidc?: OidcConfig;
}

/** The authenticator of the configuration. */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { apiKeys, oidc } = options;
  // Checked here too: an authenticator may be built in code, without `loadApiConfig`.
  const jwksProblem = oidc ? insecureUrlProblem(oidc.jwksUrl) : undefined;
  if (jwksProblem !== undefined) throw new ConfigError(`API_OIDC_JWKS_URL ${jwksProblem}`);
  const jwks = oidc ? createRemoteJWKSet(new URL(oidc.jwksUrl)) : undefined;

  async function verifyToken(token: string): Promise<Principal> {
    if (!oidc || !jwks)
      throw unauthorized('Bearer tokens are not accepted here: send an API key in X-API-Key');
    let clientId: string | undefined;
    let scopes: ApiScope[];
    try {
      const { payload } = await jwtVerify(token, jwks, {
        issuer: oidc.issuer,
        audience: oidc.audience,
        algorithms: oidc.algorithms,
        clockTolerance: oidc.clockToleranceSeconds,
        requiredClaims: [...REQUIRED_TOKEN_CLAIMS],
      });
      clientId = tokenClientId(payload);
      scopes = clientId === undefined ? [] : tokenScopes(payload, clientId, oidc);
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired)
        throw unauthorized('The bearer token has expired', 'token-expired');
      if (error instanceof joseErrors.JWKSTimeout || isFetchFailure(error)) {
        throw new ApiProblem({
          status: 503,
          code: 'jwks-unavailable',
          detail: 'The identity provider’s keys cannot be read now; try again shortly',
          headers: { 'retry-after': '5' },
        });
      }
      // The reason (signature, issuer, audience, …) is for our logs at most, not for a caller probing tokens.
      throw unauthorized('The bearer token is not valid here', 'invalid-token');
    }
    if (clientId === undefined) {
      throw unauthorized('The bearer token names no client (azp, client_id or sub)', 'invalid-token');
    }
    return { clientId, scopes };
  }

  return {
    async authenticate(headers) {
      const key = single(headers[API_KEY_HEADER]);
      if (key !== undefined && key !== '') {
        const entry = matchApiKey(apiKeys, key);
        if (!entry) throw unauthorized('The API key is not valid', 'invalid-api-key');
        return { clientId: entry.client ?? entry.id, scopes: entry.scopes };
      }
      const authorization = single(headers.authorization);
      if (authorization !== undefined && authorization !== '') {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
        if (!match?.[1])
          throw unauthorized('The Authorization header must be "Bearer <token>"', 'invalid-token');
        return verifyToken(match[1]);
      }
      throw unauthorized('Credentials are missing: send an API key in X-API-Key or a bearer token');
    },
  };
}

function isFetchFailure(error: unknown): boolean {
  // jose gives every problem with a token a class of its own; what remains is reaching the JWKS endpoint (a
  // system error such as ECONNREFUSED, or an answer that is no key set), which says nothing about the token.
  if (error instanceof joseErrors.JOSEError) return error.code === 'ERR_JOSE_GENERIC';
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}
