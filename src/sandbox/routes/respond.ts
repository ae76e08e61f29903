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
  return reply.code(result.status).send(result.body);
}
