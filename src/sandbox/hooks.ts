/**
 * The request pipeline of the platform routes, in order: the tenant header (profiles that want one), maintenance, latency, injected fault, bearer token,
 * scope. Also the helpers that apply a fault to a request (answer or drop the connection) and count answers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireScope } from './auth';
import type { FaultKind } from './config';
import { existingRequestState, platformRouteOf, requestState } from './context';
import type { SandboxContext } from './context';
import { isCommitFault } from './faults';
import { SandboxHttpError } from './http-error';
import { SANDBOX_TENANT_ID } from './profiles';
import type { SandboxRoute, Scope } from './shapes';

const SCOPE_OF: Record<Exclude<SandboxRoute, 'auth'>, Scope> = {
  stocks: 'badge',
  orders: 'badge',
  documents: 'document',
};

/** Registers the platform pipeline and the answer counter on `app`. */
export function registerPlatformHooks(app: FastifyInstance, ctx: SandboxContext): void {
  app.addHook('onRequest', async (request, reply) => {
    const route = platformRouteOf(request);
    if (!route) return;
    const state = requestState(request, route);

    const tenantHeader = ctx.profile.requests.tenantHeader;
    if (tenantHeader !== null && request.headers[tenantHeader.toLowerCase()] !== SANDBOX_TENANT_ID) {
      throw new SandboxHttpError(
        400,
        'validation_failed',
        `the ${tenantHeader} header must name your tenant`,
        {
          field: tenantHeader,
        },
      );
    }

    if (ctx.faults.maintenance) {
      ctx.stats.recordFault('maintenance');
      throw new SandboxHttpError(503, 'maintenance', 'the platform is down for maintenance', {
        retryAfterSeconds: ctx.faults.retryAfterSeconds,
      });
    }

    const latency = ctx.faults.latencyFor(route);
    if (latency > 0) {
      ctx.stats.recordFault('latency');
      await sleep(latency);
    }

    const fault = ctx.faults.decide(route);
    if (fault) {
      ctx.stats.recordFault(fault);
      if (isCommitFault(fault)) state.commitFault = fault;
      else if (applyFault(ctx, request, reply, fault, route)) return reply;
    }

    if (route !== 'auth') {
      state.claims = await ctx.tokens.verify(request.headers.authorization);
      requireScope(state.claims, SCOPE_OF[route]);
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.url?.startsWith('/_sandbox') === true) return;
    const state = existingRequestState(request);
    if (state?.dropped) return;
    ctx.stats.recordRequest(platformRouteOf(request) ?? 'unknown', reply.statusCode);
  });
}

/**
 * Applies a fault to a request. Drops return true after destroying the connection (the caller must return
 * without answering); every other kind throws the error answer.
 */
function applyFault(
  ctx: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  fault: FaultKind,
  route: SandboxRoute,
): true {
  switch (fault) {
    case 'drop':
    case 'commit-then-drop':
      dropConnection(ctx, request, reply, route);
      return true;
    case 'rate-limit':
      throw new SandboxHttpError(429, 'rate_limited', 'too many requests (injected fault)', {
        retryAfterSeconds: ctx.faults.retryAfterSeconds,
      });
    case 'unauthorized':
      throw new SandboxHttpError(
        401,
        'unauthorized',
        route === 'auth' ? 'invalid username or password (injected fault)' : 'token expired (injected fault)',
      );
    case 'error-500':
    case 'commit-then-500':
      throw new SandboxHttpError(500, 'server_error', 'internal server error (injected fault)');
    case 'error-502':
      throw new SandboxHttpError(502, 'server_error', 'bad gateway (injected fault)');
    case 'error-503':
    case 'commit-then-503':
      throw new SandboxHttpError(503, 'server_error', 'service unavailable (injected fault)');
  }
}

/** Destroys the connection without an answer and counts the request as `dropped`. */
function dropConnection(
  ctx: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  route: SandboxRoute,
): void {
  const state = requestState(request, route);
  state.dropped = true;
  ctx.stats.recordRequest(route, 'dropped');
  reply.hijack();
  request.raw.socket.destroy();
}

/**
 * Applies the commit-then-fail fault decided for this request, if any, after its effect was stored. Returns
 * true when the connection was dropped (the handler must return without answering); throws for error answers.
 */
export function applyCommitFault(ctx: SandboxContext, request: FastifyRequest, reply: FastifyReply): boolean {
  const state = existingRequestState(request);
  if (!state?.commitFault) return false;
  return applyFault(ctx, request, reply, state.commitFault, state.route);
}
