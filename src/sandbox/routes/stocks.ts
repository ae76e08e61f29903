/** `GET /badge/v2/api/v1/stocks`: the stocks of the authenticated user, in the profile's envelope and pages. */
import type { FastifyInstance } from 'fastify';
import { claimsOf } from '../context';
import type { SandboxContext } from '../context';
import { validationError } from '../http-error';
import { PLATFORM_PATHS } from '../shapes';
import { stocksAnswer } from '../wire';

/**
 * The requested page (1-based). Profiles without paging ignore the parameter, as the reference sandbox always
 * did; paging profiles answer 422 for anything but a positive integer.
 */
function pageOf(query: unknown, paged: boolean): number {
  if (!paged) return 1;
  const raw =
    typeof query === 'object' && query !== null ? (query as Record<string, unknown>).page : undefined;
  if (raw === undefined) return 1;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,5}$/.test(raw)) {
    throw validationError('page', 'page must be a positive integer');
  }
  return Number(raw);
}

/** Registers the stocks route. */
export function registerStockRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get(PLATFORM_PATHS.stocks, (request, reply) => {
    const { userId } = claimsOf(request);
    const user = ctx.users.find((candidate) => candidate.id === userId);
    const page = pageOf(request.query, ctx.profile.stocks.pageSize !== null);
    const answer = stocksAnswer(ctx.profile, structuredClone(user?.stocks ?? []), page, ctx.baseUrl());
    return reply.headers(answer.headers).send(answer.body);
  });
}
