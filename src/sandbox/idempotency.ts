/**
 * `Idempotency-Key` handling for order creation and document upload. When the profile honours keys, the same
 * key (per user and route) returns the first successful response and has no second effect; failed requests are
 * not remembered. When it ignores them, the header is not even looked at: every request has its effect.
 */
import type { FastifyRequest } from 'fastify';
import type { SandboxContext } from './context';
import { SandboxHttpError, validationError } from './http-error';
import { IDEMPOTENCY_KEY_HEADER } from './shapes';
import type { SandboxRoute } from './shapes';

/** A response produced by a route's effect. */
export interface RouteResult {
  status: number;
  /** The answer as JSON text (see `wire.ts`). */
  body: string;
}

/** A response and whether it was replayed from a remembered key. */
export interface IdempotentResult extends RouteResult {
  replayed: boolean;
}

/** The request's idempotency key, checked; null when the header is absent. */
function idempotencyKeyOf(request: FastifyRequest): string | null {
  const key = sentIdempotencyKey(request);
  if (key !== null && (key.length === 0 || key.length > 255)) {
    throw validationError('Idempotency-Key', 'the Idempotency-Key header must have 1 to 255 characters');
  }
  return key;
}

/**
 * The `Idempotency-Key` header as sent, unchecked, for the ground-truth records (also when keys are ignored).
 * Null when absent.
 */
export function sentIdempotencyKey(request: FastifyRequest): string | null {
  const header = request.headers[IDEMPOTENCY_KEY_HEADER];
  return (Array.isArray(header) ? header[0] : header) ?? null;
}

/**
 * Runs `effect` under the request's idempotency key. When the profile ignores keys, or without a key, it simply
 * runs. With a key: a remembered successful response is replayed; a key still in flight answers 409
 * `idempotency_conflict` with `Retry-After: 1`; otherwise the effect runs and its response is remembered if it
 * is a 2xx.
 */
export async function runIdempotent(
  ctx: SandboxContext,
  request: FastifyRequest,
  scope: { userId: string; route: SandboxRoute },
  effect: () => RouteResult | Promise<RouteResult>,
): Promise<IdempotentResult> {
  if (ctx.profile.idempotency === 'ignored') return { ...(await effect()), replayed: false };
  const key = idempotencyKeyOf(request);
  if (key === null) return { ...(await effect()), replayed: false };

  const { userId, route } = scope;
  const begin = ctx.store.beginIdempotent(userId, route, key, new Date(ctx.now()).toISOString());
  if (begin.kind === 'replay') {
    ctx.stats.recordReplay();
    return { status: begin.status, body: begin.body, replayed: true };
  }
  if (begin.kind === 'in-flight') {
    throw new SandboxHttpError(
      409,
      'idempotency_conflict',
      'a request with this Idempotency-Key is still in progress',
      { retryAfterSeconds: 1 },
    );
  }

  let result: RouteResult;
  try {
    result = await effect();
  } catch (error) {
    ctx.store.abandonIdempotent(userId, route, key);
    throw error;
  }
  if (result.status >= 200 && result.status < 300) {
    ctx.store.completeIdempotent(userId, route, key, result.status, result.body);
  } else {
    ctx.store.abandonIdempotent(userId, route, key);
  }
  return { ...result, replayed: false };
}
