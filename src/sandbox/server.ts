/** The fastify app factory of the sandbox: plugins, pipeline hooks, error mapping and routes. */
import multipart from '@fastify/multipart';
import Fastify from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawServerDefault,
} from 'fastify';
import type { Logger } from 'pino';
import { SandboxConfigError } from './config';
import { platformRouteAt } from './context';
import type { SandboxContext } from './context';
import { registerPlatformHooks } from './hooks';
import { SandboxHttpError } from './http-error';
import { registerAuthRoutes } from './routes/auth';
import { CONTROL_PREFIX, registerControlRoutes } from './routes/control';
import { registerDocumentRoutes } from './routes/documents';
import { registerOrderRoutes } from './routes/orders';
import { registerStockRoutes } from './routes/stocks';
import { errorAnswer } from './wire';

/** Largest JSON body (credentials, orders, control calls): 1 MiB; larger answers 422. */
const JSON_BODY_LIMIT = 1024 * 1024;

function isControlRequest(request: FastifyRequest): boolean {
  // Unknown paths have no route; their raw URL tells whether they were meant for the control API.
  return (request.routeOptions.url ?? request.url).startsWith(CONTROL_PREFIX);
}

function isFastifyError(error: unknown): error is FastifyError {
  return error instanceof Error && typeof (error as Partial<FastifyError>).code === 'string';
}

/** Maps anything thrown to the sandbox's error body. */
function toHttpError(error: unknown, request: FastifyRequest): SandboxHttpError {
  if (error instanceof SandboxHttpError) return error;
  if (error instanceof SandboxConfigError) {
    return new SandboxHttpError(400, 'validation_failed', error.message, {
      ...(error.field !== undefined ? { field: error.field } : {}),
    });
  }
  if (isFastifyError(error) && error.statusCode !== undefined && error.statusCode < 500) {
    // Body parser and multipart errors: not JSON, empty body, wrong content type, too large, malformed parts.
    const uploadTooLarge = error.code === 'FST_REQ_FILE_TOO_LARGE';
    const field = uploadTooLarge ? 'file' : 'body';
    if (isControlRequest(request)) {
      return new SandboxHttpError(400, 'validation_failed', error.message, { field });
    }
    return new SandboxHttpError(422, 'validation_failed', error.message, { field, closeConnection: true });
  }
  return new SandboxHttpError(500, 'server_error', 'internal server error');
}

function sendError(
  ctx: SandboxContext,
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const httpError = toHttpError(error, request);
  if (httpError.status >= 500 && !(error instanceof SandboxHttpError)) {
    request.log.error({ err: error }, 'unexpected sandbox error');
  }
  const { retryAfterSeconds, closeConnection } = httpError.details;
  if (retryAfterSeconds !== undefined) void reply.header('retry-after', String(retryAfterSeconds));
  if (closeConnection === true) void reply.header('connection', 'close');
  // The control API is ours and keeps one error shape; the platform routes answer as the profile's platform.
  const style = isControlRequest(request) ? 'reference' : ctx.profile.errors;
  const answer = errorAnswer(style, httpError);
  return reply.code(httpError.status).headers(answer.headers).send(answer.body);
}

/** Options of {@link buildSandboxApp}. */
export interface BuildSandboxAppOptions {
  /** A pino logger for request logs, or false for none. */
  logger: false | Logger;
}

/** Builds (but does not start) the sandbox's fastify app around `ctx`. */
export async function buildSandboxApp(
  ctx: SandboxContext,
  options: BuildSandboxAppOptions,
): Promise<FastifyInstance> {
  const app = Fastify<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger>({
    ...(options.logger === false ? { logger: false } : { loggerInstance: options.logger }),
    bodyLimit: JSON_BODY_LIMIT,
    // close() must also end idle keep-alive sockets, or test runners see open handles.
    forceCloseConnections: true,
  });
  await app.register(multipart);
  // Forms are kept as text: only a client credentials grant reads one (`authenticateClient`). An empty one is
  // no body, as before (axios labels a bodiless POST, such as a control call, a form).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, body === '' ? undefined : body),
  );
  app.setErrorHandler((error, request, reply) => sendError(ctx, error, request, reply));
  if (ctx.strictSlash) {
    app.addHook('onRoute', (route) => {
      if (platformRouteAt(route.url) !== undefined && !route.url.endsWith('/')) route.url = `${route.url}/`;
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const [path = '', query] = request.url.split(/\?(.*)/s, 2);
    if (ctx.strictSlash && !path.endsWith('/') && platformRouteAt(path) !== undefined) {
      // Starlette's redirect_slashes: the request is not processed (not even authenticated); the client is sent
      // to the path with its slash, with the same method and body (307), by a relative Location.
      return reply
        .code(307)
        .header('location', `${path}/${query === undefined ? '' : `?${query}`}`)
        .send();
    }
    return sendError(
      ctx,
      new SandboxHttpError(404, 'not_found', `no route for ${request.method} ${request.url}`),
      request,
      reply,
    );
  });
  registerPlatformHooks(app, ctx);
  registerAuthRoutes(app, ctx);
  registerStockRoutes(app, ctx);
  registerOrderRoutes(app, ctx);
  registerDocumentRoutes(app, ctx);
  await registerControlRoutes(app, ctx);
  return app;
}
