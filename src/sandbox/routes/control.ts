/**
 * The control API under `/_sandbox/`: inspection (state, stats, profile), the ground truth harnesses check
 * against (orders and documents with the keys they were sent with), run-time configuration (faults, rules) and
 * reset. Guarded by its own bearer token, separate from user tokens; never subject to faults or maintenance.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { describeZodError, parseFaultConfig, parseRulesUpdate } from '../config';
import type { FaultConfig, SandboxRules } from '../config';
import type { SandboxContext } from '../context';
import { SandboxHttpError } from '../http-error';
import { firstOrderIdSchema } from '../profiles';
import type { SandboxProfile } from '../profiles';
import type { SandboxStats } from '../stats';
import type { DocumentRecord, OrderRecord, RecordFilter, SandboxState } from '../store';

/** Path prefix of the control API. */
export const CONTROL_PREFIX = '/_sandbox';

function tokenMatches(expected: string, authorization: string | undefined): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? '';
  const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected)) && presented.length > 0;
}

const recordFilterSchema = z.strictObject({
  idempotencyKey: z.string().optional(),
  userId: z.string().optional(),
  orderId: z
    .string()
    .regex(/^\d{1,40}$/, 'orderId must be an order id (digits)')
    .optional(),
});

/** Body of `POST /reset`: optionally where order ids start this time (the profile's first order id otherwise). */
const resetSchema = z.strictObject({ firstOrderId: firstOrderIdSchema.optional() });

/** Parses the query of the ground-truth listings; 400 naming the parameter when invalid. */
function recordFilter(query: unknown, allowOrderId: boolean): RecordFilter {
  const result = recordFilterSchema.safeParse(query ?? {});
  if (!result.success) {
    const first = result.error.issues[0];
    throw new SandboxHttpError(400, 'validation_failed', `invalid query: ${describeZodError(result.error)}`, {
      field: first && first.path.length > 0 ? first.path.join('.') : 'query',
    });
  }
  if (!allowOrderId && result.data.orderId !== undefined) {
    throw new SandboxHttpError(400, 'validation_failed', 'orderId filters documents only', {
      field: 'orderId',
    });
  }
  return result.data;
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
      control.get('/profile', (_request, reply) => reply.send(ctx.profile satisfies SandboxProfile));
      control.get('/orders', (request, reply) =>
        reply.send(ctx.store.listOrders(recordFilter(request.query, false)) satisfies OrderRecord[]),
      );
      control.get('/documents', (request, reply) =>
        reply.send(ctx.store.listDocuments(recordFilter(request.query, true)) satisfies DocumentRecord[]),
      );

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

      control.post('/reset', (request, reply) => {
        const parsed = resetSchema.safeParse(request.body ?? {});
        if (!parsed.success) {
          throw new SandboxHttpError(
            400,
            'validation_failed',
            `invalid body: ${describeZodError(parsed.error)}`,
            {
              field: 'firstOrderId',
            },
          );
        }
        ctx.store.reset(parsed.data.firstOrderId);
        ctx.stats.reset();
        ctx.signIns.reset();
        return reply.code(204).send();
      });
      done();
    },
    { prefix: CONTROL_PREFIX },
  );
}
