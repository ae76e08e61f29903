/**
 * Authentication of the sandbox: credentials check, JWT issue and verification, scope check.
 *
 * Tokens are real HS256 JWTs signed with a random per-instance secret, so a token of one sandbox instance is
 * rejected by every other instance, and any change to a token breaks its signature.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { z } from 'zod';
import type { SandboxClient, SandboxUser } from './fixtures';
import type { SandboxProfile } from './profiles';
import { SandboxHttpError, validationError } from './http-error';
import { SCOPES, TOKEN_ISSUER } from './shapes';
import type { Scope } from './shapes';

/** What a verified bearer token says about the caller. */
export interface TokenClaims {
  /** The user id: `sub`, or the profile's user id claim when `sub` is a UUID. */
  userId: string;
  scopes: Scope[];
  /** Expiry as epoch milliseconds. */
  expiresAtMs: number;
}

const credentialsSchema = z.object({
  username: z.string({ error: 'username must be a string' }).min(1, 'username must not be empty'),
  password: z.string({ error: 'password must be a string' }),
});

function sameSecret(a: string, b: string): boolean {
  // Compare digests so the comparison takes the same time whatever the lengths.
  const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Checks a token-call body against the users. A body that is not `{ username: string, password: string }`
 * answers 422 naming the field; unknown user or wrong password answers 401.
 */
export function authenticate(users: readonly SandboxUser[], body: unknown): SandboxUser {
  const parsed = credentialsSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = typeof issue?.path[0] === 'string' ? issue.path[0] : 'body';
    const message =
      body === null || typeof body !== 'object' || Array.isArray(body)
        ? 'body must be a JSON object with username and password'
        : (issue?.message ?? 'invalid credentials body');
    throw validationError(field, message);
  }
  const user = users.find((candidate) => candidate.username === parsed.data.username);
  // Check the password even for unknown users so both failures take the same path.
  const passwordOk = sameSecret(user?.password ?? '', parsed.data.password);
  if (!user || !passwordOk) throw new SandboxHttpError(401, 'unauthorized', 'invalid username or password');
  return user;
}

/** The profile's choices the token service carries out: the user id claim, `iat`, and the identity API's clock. */
export type TokenChoices = Pick<SandboxProfile['token'], 'userIdClaim' | 'issuedAt' | 'clockOffsetSeconds'>;

/** How a client authenticated a client credentials grant (RFC 6749 §2.3.1). */
export type ClientAuthMethod = 'basic' | 'body';

/** A token request's headers and form, as the client credentials grant reads them. */
interface GrantRequest {
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  /** The raw form (the body parser keeps `application/x-www-form-urlencoded` as text); anything else refused. */
  readonly body: unknown;
}

/** `Basic base64(id:secret)`, each half form-decoded (§2.3.1); `undefined` without such a header. */
function basicCredentialsOf(authorization: string | undefined): [string, string] | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(authorization ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const formDecoded = (text: string): string => new URLSearchParams(`v=${text}`).get('v') ?? '';
  return [formDecoded(decoded.slice(0, colon)), formDecoded(decoded.slice(colon + 1))];
}

/**
 * Checks a client credentials grant (RFC 6749 §4.4.2): a form body with `grant_type=client_credentials`, the
 * client authenticated with HTTP Basic or by `client_id` and `client_secret` in the form, never both (§2.3).
 * Another body or grant answers 400 naming the field; an unknown client or a wrong secret 401.
 */
export function authenticateClient(
  clients: readonly SandboxClient[],
  request: GrantRequest,
): { client: SandboxClient; method: ClientAuthMethod } {
  const refused = (field: string, message: string): SandboxHttpError =>
    new SandboxHttpError(400, 'validation_failed', message, { field });
  if (
    !/^application\/x-www-form-urlencoded\b/i.test(request.contentType ?? '') ||
    typeof request.body !== 'string'
  ) {
    throw refused(
      'body',
      'the token request must be an application/x-www-form-urlencoded form (client credentials only)',
    );
  }
  const form = new URLSearchParams(request.body);
  if (form.get('grant_type') !== 'client_credentials') {
    throw refused('grant_type', 'grant_type must be client_credentials');
  }
  const basic = basicCredentialsOf(request.authorization);
  const inBody = form.has('client_id') || form.has('client_secret');
  if (basic !== undefined && inBody) {
    throw refused('client_id', 'authenticate the client with HTTP Basic or in the body, not both');
  }
  const [clientId, clientSecret] = basic ?? [form.get('client_id') ?? '', form.get('client_secret') ?? ''];
  const client = clients.find((candidate) => candidate.clientId === clientId);
  // Check the secret even for unknown clients so both failures take the same path.
  const secretOk = sameSecret(client?.clientSecret ?? '', clientSecret);
  if (!client || !secretOk || clientId === '') {
    throw new SandboxHttpError(401, 'unauthorized', 'invalid client id or secret');
  }
  return { client, method: basic === undefined ? 'body' : 'basic' };
}

/** The UUID a profile with a user id claim puts in `sub`: stable per user, unrelated to the user id's digits. */
export function subjectUuid(userId: string): string {
  const hex = createHash('sha256').update(`badge-sandbox-subject:${userId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Issues and verifies the sandbox's JWTs. One instance per sandbox, holding that instance's secret. */
export class TokenService {
  private readonly secret = new Uint8Array(randomBytes(32));
  /** The identity API's clock: the sandbox's, moved by the profile's offset. */
  private readonly now: () => number;

  /**
   * @param now clock in epoch milliseconds, injectable so expiry tests need no sleeping
   * @param choices the profile's: where the tokens name the user (`sub`, or a UUID `sub` and a claim), whether
   * they carry `iat`, and how far the identity API's clock is off
   * @param clients the clients whose tokens name them, not a user (`sub` and `client_id` the client id)
   */
  constructor(
    now: () => number,
    private readonly choices: TokenChoices,
    private readonly clients: readonly SandboxClient[] = [],
  ) {
    const offsetMs = choices.clockOffsetSeconds * 1000;
    this.now = () => now() + offsetMs;
  }

  /**
   * Signs a token for `user` that lives `ttlSeconds` (fractional allowed); returns it with its expiry in epoch
   * milliseconds by the identity API's clock. The token route renders the answer in the profile's shape.
   */
  async sign(
    user: SandboxUser,
    ttlSeconds: number,
    client?: SandboxClient,
  ): Promise<{ accessToken: string; expiresAtMs: number }> {
    const nowMs = this.now();
    const expiresAtMs = Math.round(nowMs + ttlSeconds * 1000);
    const claim = client === undefined ? this.choices.userIdClaim : null;
    // A client's token names the client (RFC 9068 §2.2: `sub` is the client id) and no user at all.
    const signer = new SignJWT({
      scope: user.scopes.join(' '),
      ...(claim !== null && { [claim.name]: claim.type === 'number' ? Number(user.id) : user.id }),
      ...(client !== undefined && { client_id: client.clientId }),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(client !== undefined ? client.clientId : claim === null ? user.id : subjectUuid(user.id))
      .setIssuer(TOKEN_ISSUER)
      .setExpirationTime(expiresAtMs / 1000);
    if (this.choices.issuedAt) signer.setIssuedAt(Math.floor(nowMs / 1000));
    return { accessToken: await signer.sign(this.secret), expiresAtMs };
  }

  /**
   * Verifies an `Authorization` header value. Missing header, another scheme, a bad signature, another issuer
   * or an expired token answer 401 `unauthorized`.
   */
  async verify(authorization: string | undefined): Promise<TokenClaims> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const token = match?.[1];
    if (!token) throw new SandboxHttpError(401, 'unauthorized', 'missing bearer token');
    const nowMs = this.now();
    let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
    try {
      ({ payload } = await jwtVerify(token, this.secret, {
        issuer: TOKEN_ISSUER,
        algorithms: ['HS256'],
        requiredClaims: ['sub', 'exp', ...(this.choices.issuedAt ? ['iat'] : [])],
        currentDate: new Date(nowMs),
      }));
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : '';
      const reason = code === 'ERR_JWT_EXPIRED' ? 'token expired' : 'invalid token';
      throw new SandboxHttpError(401, 'unauthorized', reason);
    }
    // jose compares whole seconds; compare to the millisecond so sub-second lifetimes behave.
    const expiresAtMs = (payload.exp ?? 0) * 1000;
    if (expiresAtMs <= nowMs) throw new SandboxHttpError(401, 'unauthorized', 'token expired');
    const scopeClaim = typeof payload.scope === 'string' ? payload.scope : '';
    const scopes = scopeClaim
      .split(' ')
      .filter((value): value is Scope => (SCOPES as readonly string[]).includes(value));
    const claim = this.choices.userIdClaim;
    const client =
      typeof payload.client_id === 'string'
        ? this.clients.find((candidate) => candidate.clientId === payload.client_id)
        : undefined;
    const named: unknown =
      client !== undefined ? client.userId : claim === null ? payload.sub : payload[claim.name];
    const userId = typeof named === 'string' || typeof named === 'number' ? String(named) : '';
    return { userId, scopes, expiresAtMs };
  }
}

/** The identity API's limit on token calls (the profile's `token.signInLimit`): a sliding window. */
export class SignInLimiter {
  /** When the token calls of the current window were admitted, oldest first. */
  private admitted: number[] = [];

  /**
   * @param limit the profile's, or null for none
   * @param now the sandbox's clock in epoch milliseconds
   */
  constructor(
    private readonly limit: SandboxProfile['token']['signInLimit'],
    private readonly now: () => number,
  ) {}

  /** Admits one token call, or throws 429 `rate_limited` with `Retry-After` when the window is full. */
  admit(): void {
    if (this.limit === null) return;
    const nowMs = this.now();
    const windowMs = this.limit.perSeconds * 1000;
    this.admitted = this.admitted.filter((at) => at > nowMs - windowMs);
    const oldest = this.admitted[0];
    if (oldest !== undefined && this.admitted.length >= this.limit.count) {
      throw new SandboxHttpError(
        429,
        'rate_limited',
        `too many sign-ins: at most ${this.limit.count} in ${this.limit.perSeconds} s`,
        { retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - nowMs) / 1000)) },
      );
    }
    this.admitted.push(nowMs);
  }

  /** Forgets the admitted calls (the control API's reset). */
  reset(): void {
    this.admitted = [];
  }
}

/** Answers 403 `forbidden`, naming the scope, unless the token carries `scope`. */
export function requireScope(claims: TokenClaims, scope: Scope): void {
  if (!claims.scopes.includes(scope)) {
    throw new SandboxHttpError(403, 'forbidden', `the token lacks the "${scope}" scope`, { scope });
  }
}
