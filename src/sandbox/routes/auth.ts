/** `POST /iam/api/v1/auth/jwt`: credentials in, signed JWT out. */
import type { FastifyInstance } from 'fastify';
import { authenticate } from '../auth';
import type { SandboxContext } from '../context';
import { PLATFORM_PATHS } from '../shapes';
import type { TokenResponse } from '../shapes';

/** Registers the token route. */
export function registerAuthRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.post(PLATFORM_PATHS.token, async (request): Promise<TokenResponse> => {
    let user;
    try {
      user = authenticate(ctx.users, request.body);
    } catch (error) {
      ctx.stats.recordAuth('rejected');
      throw error;
    }
    const token = await ctx.tokens.issue(user, ctx.rules.tokenTtlSeconds);
    ctx.stats.recordAuth('issued');
    return token;
  });
}
