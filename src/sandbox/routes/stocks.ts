/** `GET /badge/v2/api/v1/stocks`: the stocks of the authenticated user. */
import type { FastifyInstance } from 'fastify';
import { claimsOf } from '../context';
import type { SandboxContext } from '../context';
import { PLATFORM_PATHS } from '../shapes';
import type { StocksResponse } from '../shapes';

/** Registers the stocks route. */
export function registerStockRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get(PLATFORM_PATHS.stocks, (request, reply) => {
    const { userId } = claimsOf(request);
    const user = ctx.users.find((candidate) => candidate.id === userId);
    const body: StocksResponse = { data: structuredClone(user?.stocks ?? []) };
    return reply.send(body);
  });
}
