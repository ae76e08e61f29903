/**
 * The control API under `/_sandbox/`: inspection (state, stats), run-time configuration (faults, rules) and
 * reset. Guarded by its own bearer token, separate from user tokens; never subject to faults or maintenance.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { parseFaultConfig, parseRulesUpdate } from '../config';
import type { FaultConfig, SandboxRules } from '../config';
import type { SandboxContext } from '../context';
import { SandboxHttpError } from '../http-error';
import type { SandboxStats } from '../stats';
import type { SandboxState } from '../store';

/** Path prefix of the control API. */
export const CONTROL_PREFIX = '/_sandbox';

function tokenMatches(expected: string, authorization: string | undefined): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
  const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected)) && presented.length > 0;
}

/** Registers the control API. */
export async function registerControlRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  await app.register(
    (control, _options, done) => {
      // Control clients often send `Content-Type: application/json` with an empty body (reset); accept that.
      control.removeContentTypeParser('application/json');
      control.removeContentTypeParser('text/plain');
      // Any other content type is accepted only without a body (axios sends form-urlencoded on an empty POST).
      control.addContentTypeParser('*', { parseAs: 'string' }, (request, body, parsed) => {
        const text = typeof body === 'string' ? body : body.toString('utf8');
        if (text.trim() === '') {
          parsed(null, undefined);
          return;
        }
        if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
          parsed(
            new SandboxHttpError(400, 'validation_failed', 'the body must be application/json', {
              field: 'body',
            }),
          );
          return;
        }
        try {
          parsed(null, JSON.parse(text) as unknown);
        } catch {
          parsed(
            new SandboxHttpError(400, 'validation_failed', 'the body is not valid JSON', { field: 'body' }),
          );
        }
      });
      control.addHook('onRequest', (request, _reply, next) => {
        if (!tokenMatches(ctx.controlToken, request.headers.authorization)) {
          next(
            new SandboxHttpError(
              401,
              'unauthorized',
              'the control API needs the control token as bearer token',
            ),
          );
          return;
        }
        next();
      });

      control.get('/state', (_request, reply) => reply.send(ctx.store.snapshot() satisfies SandboxState));
      control.get('/stats', (_request, reply) => reply.send(ctx.stats.snapshot() satisfies SandboxStats));

      control.get('/faults', (_request, reply) => reply.send(ctx.faults.current() satisfies FaultConfig));
      control.put('/faults', (request, reply) => {
        ctx.faults.replace(parseFaultConfig(request.body));
        return reply.send(ctx.faults.current());
      });

      control.get('/rules', (_request, reply) => reply.send(ctx.rules satisfies SandboxRules));
      control.put('/rules', (request, reply) => {
        const update = parseRulesUpdate(request.body);
        ctx.rules = {
          acceptedContentTypes: update.acceptedContentTypes ?? ctx.rules.acceptedContentTypes,
          maxUploadBytes: update.maxUploadBytes ?? ctx.rules.maxUploadBytes,
          tokenTtlSeconds: update.tokenTtlSeconds ?? ctx.rules.tokenTtlSeconds,
        };
        return reply.send(ctx.rules);
      });

      control.post('/reset', (_request, reply) => {
        ctx.store.reset();
        ctx.stats.reset();
        return reply.code(204).send();
      });
      done();
    },
    { prefix: CONTROL_PREFIX },
  );
}
