/**
 * `POST /iam/api/v1/auth/jwt`: credentials in (the profile's kind: the spec's JSON username and password, or a
 * client credentials grant), signed JWT out, in the profile's answer shape; 429 beyond the profile's sign-in limit.
 */
import type { FastifyInstance } from 'fastify';
import { authenticate, authenticateClient } from '../auth';
import type { SandboxContext } from '../context';
import { PLATFORM_PATHS } from '../shapes';
import { tokenBody } from '../wire';

/** Registers the token route. */
export function registerAuthRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.post(PLATFORM_PATHS.token, async (request): Promise<Record<string, unknown>> => {
    ctx.signIns.admit();
    let user;
    let client;
    try {
      if (ctx.profile.token.grant === 'client_credentials') {
        const granted = authenticateClient(ctx.clients, {
          authorization: request.headers.authorization,
          contentType: request.headers['content-type'],
          body: request.body,
        });
        client = granted.client;
        ctx.stats.recordClientAuth(granted.method);
        user = ctx.users.find((candidate) => candidate.id === granted.client.userId);
        if (user === undefined) throw new Error(`client ${client.clientId} acts for no known user`);
      } else {
        user = authenticate(ctx.users, request.body);
      }
    } catch (error) {
      ctx.stats.recordAuth('rejected');
      throw error;
    }
    const ttlSeconds = ctx.rules.tokenTtlSeconds;
    const { accessToken, expiresAtMs } = await ctx.tokens.sign(user, ttlSeconds, client);
    ctx.stats.recordAuth('issued');
    return tokenBody(ctx.profile, accessToken, ttlSeconds, expiresAtMs);
  });
}
