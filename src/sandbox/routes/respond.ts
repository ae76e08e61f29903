/** Sends the result of an effectful route, applying a pending commit-then-fail fault first. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxContext } from '../context';
import { applyCommitFault } from '../hooks';
import type { IdempotentResult } from '../idempotency';
import { IDEMPOTENT_REPLAY_HEADER } from '../shapes';

/**
 * Answers with `result` — unless a commit-then-fail fault was decided for the request, in which case the
 * effect stays stored and the answer is an error (thrown) or a dropped connection.
 */
export function sendEffectResult(
  ctx: SandboxContext,
  request: FastifyRequest,
  reply: FastifyReply,
  result: IdempotentResult,
): FastifyReply {
  if (applyCommitFault(ctx, request, reply)) return reply;
  if (result.replayed) void reply.header(IDEMPOTENT_REPLAY_HEADER, 'true');
  // JSON text, as wire.ts writes it (ids beyond 2^53 digit for digit).
  return reply.code(result.status).type('application/json; charset=utf-8').send(result.body);
}
