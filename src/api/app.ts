/**
 * The HTTP API as a fastify app: authentication and scopes (`auth.ts`), failed authentications limited per
 * address, per-client rate limits, body and time limits, problem details for every refusal, the orders routes,
 * the documents upload, the OpenAPI document and its docs page.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import { httpServerLogger } from '../logging';
import type { BadgeOrdersClient } from '../client/badge-orders-client';
import type { CallbackUrlPolicy } from '../webhook-destination';
import type { Tracing } from '../tracing';
import type { Authenticator, Principal } from './auth';
import { forbidden, principalOf } from './auth';
import { apiLimitsSchema, type ApiLimits } from './config';
import { DocumentUnavailableError } from '../documents';
import {
  documentStoreUnavailable,
  documentsRoutes,
  uploadDocumentOperation,
  type ApiDocuments,
} from './documents-plugin';
import { buildOpenApiDocument, type JsonSchema } from './openapi';
import { ORDER_OPERATIONS } from '../http-contract';
import { ApiProblem, PROBLEM_CONTENT_TYPE, problemBody, sendProblem } from './problem';
import { ordersRoutes } from './routes/orders';
import { temporalProblem } from './temporal-errors';
import { WindowCounter } from './window-counter';

interface BuildApiAppOptions {
  readonly orders: BadgeOrdersClient;
  readonly authenticator: Authenticator;
  /** @default see `apiLimitsSchema` */
  readonly limits?: Partial<ApiLimits>;
  /** Request logs; none when absent. */
  readonly logger?: Logger;
  /**
   * `POST /v1/documents`, and orders that name documents by reference (each checked to be the caller's). Without
   * it, orders name `path` documents only.
   */
  readonly documents?: ApiDocuments;
  /**
   * Where the workers deliver webhooks (`WEBHOOK_ALLOW_HTTP_LOOPBACK`, `WEBHOOK_ALLOWED_HOSTS`): a `callbackUrl`
   * they would refuse is refused at once. @default https:// to any host with public addresses
   */
  readonly webhooks?: CallbackUrlPolicy;
  /** A span per orders request when tracing is on; give `orders` the same tracing. */
  readonly tracing?: Tracing;
}

const STATUS_CODES_OF_FASTIFY: Readonly<Record<string, string>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body-too-large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported-media-type',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid-input',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid-json',
};

/** The problem for a fastify error with a 4xx status (body, media type, JSON), else undefined. */
function requestProblem(error: FastifyError): ApiProblem | undefined {
  const status = error.statusCode;
  if (status === undefined || status < 400 || status > 499) return undefined;
  const code = STATUS_CODES_OF_FASTIFY[error.code] ?? 'bad-request';
  // A JSON syntax error's message quotes at most a position, never the body.
  return new ApiProblem({ status, code, detail: error.message });
}

/**
 * Who a caller without credentials is, for the limits: its IPv4 address, or the /64 of its IPv6 address (a host
 * is given a whole /64: counted by address, it would have 2^64 of them to guess from). An IPv4 address written
 * as IPv6 (`::ffff:203.0.113.1`) is that IPv4 address.
 */
function callerAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${address.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

/** The problems of node's HTTP parser errors, by their code; any other is a 400. */
const CLIENT_ERROR_PROBLEMS: Readonly<Record<string, ConstructorParameters<typeof ApiProblem>[0]>> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'headers-too-large',
    detail: 'The request line or headers are too large',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'request-timeout',
    detail: 'The request was not received in time',
  },
};

/**
 * Answers what node's HTTP parser refuses before fastify sees a request (headers or URL too large, malformed
 * request, too slow) with a problem detail too, then closes the connection.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const problem = new ApiProblem(
    CLIENT_ERROR_PROBLEMS[error.code ?? ''] ?? {
      status: 400,
      code: 'bad-request',
      detail: 'The request is not valid HTTP',
    },
  );
  const { status } = problem;
  const body = JSON.stringify(problemBody(problem));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The docs page (`/docs`): the OpenAPI document rendered as one self-contained HTML page — no script, no
 * stylesheet, no font from anywhere, so it works on a machine without internet and under a strict CSP.
 */
const escape = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function resolve(document: JsonSchema, schema: unknown): unknown {
  const target = (schema as { $ref?: string } | undefined)?.$ref;
  if (typeof target !== 'string') return schema;
  const name = target.split('/').pop() ?? '';
  return (document.components as { schemas: Record<string, unknown> }).schemas[name];
}

/** The HTML of the docs page. */
function renderDocsPage(document: JsonSchema): string {
  const info = document.info as { title: string; version: string; description: string };
  const sections: string[] = [];
  for (const [path, methods] of Object.entries(
    document.paths as Record<string, Record<string, JsonSchema>>,
  )) {
    for (const [method, operation] of Object.entries(methods)) {
      const body = (operation.requestBody as { content?: Record<string, { schema: unknown }> } | undefined)
        ?.content?.['application/json']?.schema;
      const responses = Object.entries(operation.responses as Record<string, { description: string }>)
        .map(([status, response]) => `<li><code>${status}</code> ${escape(response.description)}</li>`)
        .join('');
      sections.push(
        `<section><h2><code>${method.toUpperCase()} ${escape(path)}</code></h2>` +
          `<p><strong>${escape(String(operation.summary))}</strong></p>` +
          `<p>${escape(String(operation.description)).replace(/\n\n/g, '</p><p>')}</p>` +
          (body === undefined
            ? ''
            : `<details><summary>Request body schema</summary><pre>${escape(JSON.stringify(resolve(document, body), null, 2))}</pre></details>`) +
          `<ul>${responses}</ul></section>`,
      );
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:1rem;overflow:auto}section{border-top:1px solid #ddd}</style>
</head><body><h1>${escape(info.title)} <small>${escape(info.version)}</small></h1>
<p>${escape(info.description)}</p><p>The machine-readable document: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
${sections.join('\n')}
</body></html>`;
}

/** Builds the app (not listening); `app.listen` or `app.inject` it. */
export async function buildApiApp(options: BuildApiAppOptions): Promise<FastifyInstance> {
  // The limits a process read from its environment are parsed already (their transforms do not run twice).
  const limits: ApiLimits = { ...apiLimitsSchema.parse({}), ...options.limits };
  const app = Fastify({
    loggerInstance: options.logger && httpServerLogger(options.logger),
    bodyLimit: limits.bodyLimitBytes,
    requestTimeout: limits.requestTimeoutMs,
    // Identifiers in paths are checked by the routes; fastify's default 100 characters would cut an orderRef.
    routerOptions: { maxParamLength: 200 },
    // `request.ip`, which the limits count by: the caller X-Forwarded-For names when the request comes from one
    // of these proxies, else the connection's address.
    trustProxy: limits.trustProxy,
    clientErrorHandler: answerClientError,
  }) as unknown as FastifyInstance;

  // Bodies are JSON (the documents plugin adds multipart): text is refused with 415, not parsed.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('principal', null);
  // Credentials are checked as soon as the headers are in, before the body is read. An address that failed
  // too often in this window is turned away before its credentials are looked at (guessing keys or tokens,
  // or making the API fetch JWKS, costs it the window), whoever it is: a limit per client would come too late.
  const failures = new WindowCounter(limits.rateLimitWindowMs);
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (request.routeOptions.url === undefined || config.public === true) return;
    const caller = callerAddress(request.ip);
    if (failures.used(caller) >= limits.authFailureMax) {
      const retryAfter = Math.max(1, Math.ceil(failures.remainingMs(caller) / 1000));
      throw new ApiProblem({
        status: 429,
        code: 'too-many-failed-authentications',
        detail: `Too many failed authentications from this address: at most ${limits.authFailureMax} per ${limits.rateLimitWindowMs / 1000} s (API_AUTH_FAILURE_MAX); retry after ${retryAfter} s`,
        headers: { 'retry-after': String(retryAfter) },
      });
    }
    let principal: Principal;
    try {
      principal = await options.authenticator.authenticate(request.headers);
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 401) failures.add(caller, 1);
      throw error;
    }
    if (config.scope !== undefined && !principal.scopes.includes(config.scope)) throw forbidden(config.scope);
    request.principal = principal;
  });

  await app.register(rateLimit, {
    global: true,
    max: limits.rateLimitMax,
    timeWindow: limits.rateLimitWindowMs,
    // Per key: one busy backend does not slow another. Public routes count per address.
    keyGenerator: (request) =>
      request.principal ? `client:${request.principal.clientId}` : `ip:${callerAddress(request.ip)}`,
    errorResponseBuilder: (_request, context) =>
      new ApiProblem({
        status: 429,
        code: 'rate-limited',
        detail: `Too many requests: at most ${context.max} per ${limits.rateLimitWindowMs / 1000} s for this key; retry after ${context.after}`,
      }),
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiProblem) return sendProblem(reply, error);
    const known =
      error instanceof DocumentUnavailableError
        ? documentStoreUnavailable()
        : (temporalProblem(error) ?? requestProblem(error));
    if (known) {
      if (known.status >= 500) request.log.warn({ err: error }, 'request failed');
      return sendProblem(reply, known);
    }
    request.log.error({ err: error }, 'request failed');
    return sendProblem(
      reply,
      new ApiProblem({
        status: 500,
        code: 'internal-error',
        detail: 'The request failed unexpectedly; it was logged',
      }),
    );
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new ApiProblem({
        status: 404,
        code: 'not-found',
        detail: `No route ${request.method} ${request.url.split('?')[0]}`,
      }),
    ),
  );

  // The orders operations, and the documents upload when the API has documents (with their limits).
  const document = buildOpenApiDocument([
    ...Object.values(ORDER_OPERATIONS),
    ...(options.documents === undefined ? [] : [uploadDocumentOperation(options.documents)]),
  ]);
  const docsPage = renderDocsPage(document);

  app.get('/openapi.json', { config: { public: true } }, (_request, reply) => reply.send(document));
  app.get('/docs', { config: { public: true } }, (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(docsPage),
  );
  app.get('/healthz', { config: { public: true } }, (_request, reply) => reply.send({ ok: true }));

  await app.register(ordersRoutes, {
    orders: options.orders,
    limits,
    webhooks: options.webhooks ?? { allowHttpLoopback: false },
    tracing: options.tracing,
    documents: options.documents?.store,
  });
  if (options.documents !== undefined) {
    const ownerOf = (request: FastifyRequest): string => principalOf(request).clientId;
    await app.register(documentsRoutes, { ...options.documents, ownerOf });
  }
  return app;
}
