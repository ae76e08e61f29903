/**
 * `POST /iam/api/v1/auth/jwt`: credentials in, signed JWT out, in the profile's answer shape; 429 beyond the
 * profile's sign-in limit.
 */
import type { FastifyInstance } from 'fastify';
import { authenticate } from '../auth';
import type { SandboxContext } from '../context';
import { PLATFORM_PATHS } from '../shapes';
import { tokenBody } from '../wire';

/** Registers the token route. */
export function registerAuthRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.post(PLATFORM_PATHS.token, async (request): Promise<Record<string, unknown>> => {
    ctx.signIns.admit();
    let user;
    try {
      user = authenticate(ctx.users, request.body);
    } catch (error) {
      ctx.stats.recordAuth('rejected');
      throw error;
    }
    const ttlSeconds = ctx.rules.tokenTtlSeconds;
    const { accessToken, expiresAtMs } = await ctx.tokens.sign(user, ttlSeconds);
    ctx.stats.recordAuth('issued');
    return tokenBody(ctx.profile, accessToken, ttlSeconds, expiresAtMs);
  });
}
