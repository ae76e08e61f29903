/**
 * The codec server: `POST /encode` and `POST /decode` (also under `/{namespace}/…`, as the CLI's
 * `--codec-endpoint` templating calls them) with the Temporal codec server protocol — a JSON body
 * `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }` in and out — so operators can read encrypted
 * payloads in the Web UI and the CLI. Browsers are served only for the configured UI origin (CORS), and every
 * call needs a bearer token or, when allowed, the Web UI's passed access token.
 *
 * The server holds the keys to every order's personal data, so it spends as little as possible on callers it
 * does not know: credentials are checked as soon as the headers are in (`onRequest`), before a byte of the body
 * is read, and a refused request's connection is closed instead of drained. Bodies, payload counts, requests
 * in progress, connections and the time a request may take are all bounded ({@link DEFAULT_LIMITS}).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Payload } from '@temporalio/common';
import { formatIssues } from '../contract';
import { httpServerLogger } from '../logging';
import { isLoopbackHost } from '../url-policy';
import { EncryptionCodec, PayloadDecryptionError } from './encryption-codec';
import type { PayloadKeyRing } from './key-ring';

// The Web UI sends the operator's ID token in `Authorization-Extras` beside the access token (`passAccessToken`);
// it is not used here, but a preflight that does not allow it stops the browser from sending anything.
const ALLOWED_HEADERS = 'content-type, x-namespace, authorization, authorization-extras';

/** Checks an access token the Web UI passed; resolves true when it is valid. */
export type AccessTokenVerifier = (token: string) => Promise<boolean>;

/**
 * Bounds on what one caller can make the server hold, and their defaults, which fit the Web UI and the CLI: they
 * send the payloads of one history event (or one query, signal or update) per request.
 */
const DEFAULT_LIMITS = Object.freeze({
  /** Largest request body. One payload is at most 2 MiB (Temporal's blob limit), 2.7 MiB as base64. */
  bodyLimitBytes: 4 * 1024 * 1024,
  /** Most payloads in one request; more are refused with 413 before the body is parsed. */
  maxPayloads: 1000,
  /** Authenticated requests in progress at once; more are answered 503 with `retry-after`. */
  maxConcurrentRequests: 16,
  /** Open connections; more are closed as they arrive. */
  maxConnections: 256,
  /** Time a caller has to send the request headers. */
  headersTimeoutMs: 10_000,
  /** Time a caller has to send the whole request, body included (a slow drip ends here). */
  requestTimeoutMs: 30_000,
  /** A connection on which nothing moves for this long is closed. */
  idleTimeoutMs: 30_000,
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: 5_000,
});

export interface CodecServerOptions {
  /** The keys to encode and decode with (the workers' keys). */
  readonly keys: PayloadKeyRing;
  /** The one browser origin allowed (the Web UI), e.g. `http://127.0.0.1:8233`. */
  readonly corsOrigin: string;
  /** 0 picks a free port. @default 8888 */
  readonly port?: number;
  /** @default 127.0.0.1 */
  readonly host?: string;
  /** Bearer token every caller must send (operators, the CLI with `--codec-auth`). */
  readonly token?: string;
  /** Accepts the Web UI's passed access token (`passAccessToken`) when this verifier says it is valid. */
  readonly verifyUiAccessToken?: AccessTokenVerifier;
  /**
   * Serve callers without credentials — only for the local demo, whose dev-server UI cannot send any; refused
   * unless `host` is a loopback address.
   */
  readonly allowUnauthenticatedOnLoopback?: boolean;
  /** Size, count, concurrency and time limits; see {@link DEFAULT_LIMITS}. */
  readonly limits?: { readonly [K in keyof typeof DEFAULT_LIMITS]?: number };
  /**
   * Serve HTTPS with this certificate and key (PEM). The Web UI passes the operator's access token only to an
   * `https://` codec endpoint, so the UI's sign-in needs it (or TLS terminated in front of the server).
   */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** Request logs; silent when absent. */
  readonly logger?: Logger;
}

export interface RunningCodecServer {
  /** Base URL, e.g. `http://127.0.0.1:8888` (`https://` with `tls`): the UI's and the CLI's codec endpoint. */
  readonly url: string;
  close(): Promise<void>;
}

/** Thrown by {@link startCodecServer} for options that would leave the server open. */
export class CodecServerOptionsError extends Error {
  override readonly name = 'CodecServerOptionsError';
}

/**
 * Bytes as proto JSON writes them: base64 in the standard or the URL-safe alphabet, padding optional. (Node's
 * decoder would skip any other character silently; a proto JSON parser refuses it, and so do we.)
 */
const base64Schema = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');
/** A `Payload` in proto JSON: `metadata` (a map of bytes) and `data` may each be left out when empty. */
const jsonPayloadSchema = z.object({
  metadata: z.record(z.string(), base64Schema.nullable()).nullish(),
  data: base64Schema.nullish(),
});
/**
 * A `Payloads` message in proto JSON. Empty lists are left out, so the Temporal CLI sends `{}` for a query or
 * signal without arguments. Unknown fields are refused, as a proto JSON parser does (a misspelt `payload`
 * would otherwise read as "no payloads").
 */
const bodySchema = z.strictObject({ payloads: z.array(jsonPayloadSchema).nullish() });
type JsonPayload = z.infer<typeof jsonPayloadSchema>;

/** A payload with `convert` applied to its data and each metadata value (proto JSON ⇄ bytes). */
function mapPayload<A, B>(
  payload: { readonly metadata?: Record<string, A | null> | null; readonly data?: A | null },
  convert: (value: A | null | undefined) => B,
): { metadata: Record<string, B>; data: B } {
  const metadata = Object.entries(payload.metadata ?? {}).map(([key, value]): [string, B] => [
    key,
    convert(value),
  ]);
  return { metadata: Object.fromEntries(metadata), data: convert(payload.data) };
}

const fromJson = (payload: JsonPayload): Payload =>
  mapPayload(payload, (value) => Buffer.from(value ?? '', 'base64'));
const toJson = (payload: Payload): { metadata: Record<string, string>; data: string } =>
  mapPayload(payload, (value) => Buffer.from(value ?? new Uint8Array()).toString('base64'));

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** An error the error handler answers with its own status and code. */
function httpError(statusCode: number, code: string, message: string): Error {
  return Object.assign(new Error(message), { statusCode, code });
}

/**
 * Objects and arrays a JSON text can hold at most: its `{` and `[` characters (some may sit inside strings,
 * so this only over-counts). Counted before `JSON.parse`, so a body of a million `{}` is refused without
 * building a million objects.
 */
function containerCount(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '{' || char === '[') count += 1;
  }
  return count;
}

export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  const host = options.host ?? '127.0.0.1';
  const corsOrigin = new URL(options.corsOrigin).origin;
  const hasCredentials = options.token !== undefined || options.verifyUiAccessToken !== undefined;
  if (!hasCredentials && !(options.allowUnauthenticatedOnLoopback && isLoopbackHost(host))) {
    throw new CodecServerOptionsError(
      'The codec server needs a token or a UI access token verifier (unauthenticated only on a loopback host)',
    );
  }
  if (!options.keys.encrypts) throw new CodecServerOptionsError('The codec server needs at least one key');
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const codec = new EncryptionCodec(options.keys);
  const tokenDigest = options.token === undefined ? undefined : sha256(options.token);
  // A payload is an object with a metadata object (and, in newer protocol versions, a list of external
  // payload details): four containers each, plus the body and its list.
  const maxContainers = 4 * limits.maxPayloads + 2;

  // Node checks the header and request deadlines on this interval (30 s by default, longer than a deadline).
  const serverOptions = {
    headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 2))),
  };
  const app = Fastify({
    bodyLimit: limits.bodyLimitBytes,
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Fastify passes `http` to http.createServer, and only `https` (the same options plus TLS) when set.
    ...(options.tls
      ? { https: { ...serverOptions, cert: options.tls.cert, key: options.tls.key } }
      : { http: serverOptions }),
    forceCloseConnections: true,
    ...(options.logger ? { loggerInstance: httpServerLogger(options.logger) } : { logger: false }),
    // One instance type for both servers: nothing below depends on which one listens.
  }) as unknown as FastifyInstance;
  app.server.maxConnections = limits.maxConnections;

  // A refused request's unread body is not drained: the connection closes after the answer.
  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode >= 400 && !request.raw.complete) reply.header('connection', 'close');
  });

  // CORS: only the UI's origin, checked before anything else; other origins get no CORS headers and a 403.
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (origin !== corsOrigin) {
      return reply.code(403).send({ error: `Origin ${origin} is not allowed`, code: 'ORIGIN_NOT_ALLOWED' });
    }
    reply
      .header('access-control-allow-origin', corsOrigin)
      .header('access-control-allow-credentials', 'true')
      .header('vary', 'Origin');
  });
  app.options('*', async (request, reply) => {
    if (request.headers.origin === undefined) return reply.code(404).send();
    return reply
      .header('access-control-allow-methods', 'POST, OPTIONS')
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '600')
      .code(204)
      .send();
  });

  const authenticated = async (request: FastifyRequest): Promise<boolean> => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const given = match?.[1];
    if (given === undefined) return !hasCredentials;
    // Digests compared: always 32 bytes, so neither the time nor a length check tells a caller anything.
    if (tokenDigest !== undefined && timingSafeEqual(sha256(given), tokenDigest)) return true;
    if (options.verifyUiAccessToken) return options.verifyUiAccessToken(given).catch(() => false);
    return false;
  };

  // Authentication and the concurrency limit, as soon as the headers are in: the body is read only for a
  // caller with credentials and a free slot. Preflights carry no credentials (browsers never send them).
  let inProgress = 0;
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    if (!(await authenticated(request))) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: 'A valid bearer token is required', code: 'UNAUTHORIZED' });
    }
    if (inProgress >= limits.maxConcurrentRequests) {
      return reply
        .code(503)
        .header('retry-after', '1')
        .send({ error: 'Too many requests in progress; retry shortly', code: 'BUSY' });
    }
    inProgress += 1;
    reply.raw.once('close', () => {
      inProgress -= 1;
    });
  });

  // Our own JSON parser: it refuses a body with too many payloads before parsing it, and its errors never
  // quote the body (payload data) back.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (containerCount(text) > maxContainers) {
      done(tooManyPayloads(limits.maxPayloads));
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      done(httpError(400, 'INVALID_JSON', 'The body is not valid JSON'));
    }
  });

  app.setErrorHandler(async (error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status =
      error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500
        ? error.statusCode
        : 500;
    if (status === 500) request.log.error({ err: error }, 'codec request failed');
    return reply
      .code(status)
      .send({ error: status === 500 ? 'Internal error' : error.message, code: error.code ?? 'ERROR' });
  });

  const handle = (operation: 'encode' | 'decode') => async (request: FastifyRequest, reply: FastifyReply) => {
    const body = bodySchema.safeParse(request.body);
    if (!body.success) {
      return reply
        .code(400)
        .send({ error: `Invalid body: ${formatIssues(body.error).join('; ')}`, code: 'INVALID_BODY' });
    }
    const jsonPayloads = body.data.payloads ?? [];
    if (jsonPayloads.length > limits.maxPayloads) throw tooManyPayloads(limits.maxPayloads);
    const payloads = jsonPayloads.map(fromJson);
    try {
      const converted = operation === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
      return reply.send({ payloads: converted.map(toJson) });
    } catch (error) {
      if (!(error instanceof PayloadDecryptionError)) throw error;
      request.log.warn({ keyId: error.keyId, failure: error.failure }, 'payload could not be decrypted');
      return reply
        .code(422)
        .send({ error: decryptionFailureMessage(error), code: error.code, keyId: error.keyId });
    }
  };
  for (const prefix of ['', '/:namespace']) {
    app.post(`${prefix}/encode`, handle('encode'));
    app.post(`${prefix}/decode`, handle('decode'));
  }

  const address = await app.listen({ port: options.port ?? 8888, host });
  return {
    url: address.replace('[::1]', 'localhost'),
    close: () => app.close(),
  };
}

/**
 * The 422 answer's message: it names the key id the payload carries (the caller sent it) but never the ids
 * this server holds, which would tell a caller which keys to go after.
 */
function decryptionFailureMessage(error: PayloadDecryptionError): string {
  switch (error.failure) {
    case 'no-key-id':
      return 'Encrypted payload names no key';
    case 'unknown-key':
      return `Payload encrypted with key "${error.keyId}" cannot be decrypted: this codec server does not have that key`;
    case 'wrong-key':
      return `Payload encrypted with key "${error.keyId}" could not be decrypted: the key differs or the payload was altered`;
  }
}

function tooManyPayloads(maxPayloads: number): Error {
  return httpError(413, 'TOO_MANY_PAYLOADS', `At most ${maxPayloads} payloads per request`);
}
