/**
 * The OpenID Connect provider process of the local operator sign-in (started by `startOidcProvider` in
 * `oidc-provider.ts`): `oidc-provider` (an OpenID Certified implementation) on loopback, with static clients,
 * static password users and its own sign-in page. Access tokens are JWTs signed with the provider's RSA key
 * (published at `<issuer>/jwks`), issued by `<issuer>` for the client's id as audience — as Dex issues them.
 *
 * A separate process because the provider is an ES module, which Jest's module loader cannot load.
 * Configuration: a JSON file named by the first argument ({@link ProviderProcessConfig}).
 */
import { createHash, generateKeyPairSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { runMain } from '../../src/main/run-main';

const configSchema = z.object({
  port: z.number().int().min(1).max(65535),
  clients: z.array(
    z.object({ id: z.string().min(1), secret: z.string().min(16), redirectUris: z.array(z.string().url()) }),
  ),
  users: z.array(
    z.object({
      email: z.string().min(1),
      username: z.string().min(1),
      password: z.string().min(1),
      userId: z.string().min(1),
    }),
  ),
});
/** What the process reads from its configuration file. */
export type ProviderProcessConfig = z.infer<typeof configSchema>;

/** The resource all access tokens are for (the operator tools); its audience is the client's id. */
const OPERATOR_RESOURCE = 'urn:badge-orders:operator-tools';
const OPERATOR_SCOPES = 'openid profile email';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const sameText = (given: string, expected: string): boolean =>
  timingSafeEqual(digest(given), digest(expected));

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function signInPage(uid: string, error: string | null): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in — badge-orders operators</title></head>
<body style="font-family: sans-serif; max-width: 24rem; margin: 4rem auto">
<h1>Operator sign-in</h1>
${error ? `<p role="alert" style="color: #b00">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<p><label>Email address <input name="login" type="email" autocomplete="username" required></label></p>
<p><label>Password <input name="password" type="password" autocomplete="current-password" required></label></p>
<p><button type="submit">Sign in</button></p>
</form></body></html>`;
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 16 * 1024) throw new Error('form too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

async function main(configPath: string): Promise<void> {
  const config = configSchema.parse(JSON.parse(readFileSync(configPath, 'utf8')));
  const { default: Provider } = await import('oidc-provider');
  const issuer = `http://127.0.0.1:${config.port}`;
  const usersById = new Map(config.users.map((user) => [user.userId, user]));
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

  const provider = new Provider(issuer, {
    clients: config.clients.map((client) => ({
      client_id: client.id,
      client_secret: client.secret,
      redirect_uris: client.redirectUris,
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    findAccount(_ctx, sub) {
      const user = usersById.get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: user.email,
          email_verified: true,
          name: user.username,
          preferred_username: user.username,
        }),
      };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    // The ID token carries the claims itself (the Web UI shows the operator's name and email from it).
    conformIdTokenClaims: false,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => OPERATOR_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, _resource, client) => ({
          scope: OPERATOR_SCOPES,
          audience: client.clientId,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 3600,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    jwks: { keys: [{ ...signingKey, kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' }] },
    cookies: { keys: [randomBytes(32).toString('base64')] },
  });
  const callback = provider.callback();

  /** The sign-in page: the login prompt asks for email and password; consent is given for the company's own UIs. */
  async function interaction(request: IncomingMessage, response: ServerResponse, uid: string): Promise<void> {
    const details = await provider.interactionDetails(request, response);
    if (details.uid !== uid) throw new Error('interaction mismatch');
    const accountId = details.session?.accountId;
    if (details.prompt.name === 'consent' && accountId) {
      const clientId = String(details.params.client_id);
      const grant = details.grantId
        ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId }))
        : new provider.Grant({ accountId, clientId });
      const missing = details.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(' '));
      }
      const grantId = await grant.save();
      await provider.interactionFinished(
        request,
        response,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
      return;
    }
    if (request.method === 'POST') {
      const form = await readForm(request);
      const login = form.get('login') ?? '';
      const password = form.get('password') ?? '';
      // Every user is compared, so the time does not tell which emails exist.
      const matches = config.users.filter(
        (user) => sameText(login, user.email) && sameText(password, user.password),
      );
      const user = matches[0];
      if (user) {
        await provider.interactionFinished(
          request,
          response,
          { login: { accountId: user.userId } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      response.writeHead(401, { 'content-type': 'text/html; charset=utf-8' });
      response.end(signInPage(uid, 'Invalid email address or password.'));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(signInPage(uid, null));
  }

  const server = createServer((request, response) => {
    const match = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/login)?$/.exec(request.url ?? '');
    if (!match?.[1]) {
      // The provider's own routes (Koa's callback answers errors itself).
      void callback(request, response);
      return;
    }
    interaction(request, response, match[1]).catch((error: unknown) => {
      console.error('sign-in failed:', error instanceof Error ? error.message : error);
      if (!response.headersSent) response.writeHead(400, { 'content-type': 'text/plain' });
      response.end('The sign-in could not be completed; start again from the application.');
    });
  });
  server.listen(config.port, '127.0.0.1', () => console.log(`OIDC provider listening at ${issuer}`));
  const stop = (): void => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

runMain(() => main(process.argv[2] ?? ''), { messageOnly: [] });
