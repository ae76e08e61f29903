/**
 * The codec server: `POST /encode` and `POST /decode` (also under `/{namespace}/…`, as the CLI's
 * `--codec-endpoint` templating calls them) with the Temporal codec server protocol — a JSON body
 * `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }` in and out — so operators can read encrypted
 * payloads in the Web UI and the CLI. Browsers are served only for the configured UI origin (CORS), and every
 * call needs a bearer token or, when allowed, the Web UI's passed access token.
 */
import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Payload } from '@temporalio/common';
import { formatIssues } from '../contract';
import { EncryptionCodec, PayloadDecryptionError } from './encryption-codec';
import type { PayloadKeyRing } from './key-ring';

/** Largest request body: a page of history payloads. */
const BODY_LIMIT_BYTES = 32 * 1024 * 1024;
const ALLOWED_HEADERS = 'content-type, x-namespace, authorization';

/** Checks an access token the Web UI passed; resolves true when it is valid. */
export type AccessTokenVerifier = (token: string) => Promise<boolean>;

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
  /** Request logs; silent when absent. */
  readonly logger?: Logger;
}

/** A running codec server. */
export interface RunningCodecServer {
  /** Base URL, e.g. `http://127.0.0.1:8888`: the UI's and the CLI's codec endpoint. */
  readonly url: string;
  close(): Promise<void>;
}

/** Thrown by {@link startCodecServer} for options that would leave the server open. */
export class CodecServerOptionsError extends Error {
  override readonly name = 'CodecServerOptionsError';
}

const jsonPayloadSchema = z.object({
  metadata: z.record(z.string(), z.string().nullable()).nullish(),
  data: z.string().nullish(),
});
const bodySchema = z.object({ payloads: z.array(jsonPayloadSchema) });
type JsonPayload = z.infer<typeof jsonPayloadSchema>;

function fromJson(payload: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? '', 'base64')]),
    ),
    data: Buffer.from(payload.data ?? '', 'base64'),
  };
}

function toJson(payload: Payload): { metadata: Record<string, string>; data: string } {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [
        key,
        Buffer.from(value ?? new Uint8Array()).toString('base64'),
      ]),
    ),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

const isLoopback = (host: string): boolean => host === '127.0.0.1' || host === '::1' || host === 'localhost';

/** Starts the codec server; see the module comment. */
export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  const host = options.host ?? '127.0.0.1';
  const corsOrigin = new URL(options.corsOrigin).origin;
  const hasCredentials = options.token !== undefined || options.verifyUiAccessToken !== undefined;
  if (!hasCredentials && !(options.allowUnauthenticatedOnLoopback && isLoopback(host))) {
    throw new CodecServerOptionsError(
      'The codec server needs a token or a UI access token verifier (unauthenticated only on a loopback host)',
    );
  }
  if (!options.keys.encrypts) throw new CodecServerOptionsError('The codec server needs at least one key');
  const codec = new EncryptionCodec(options.keys);

  const app = Fastify({
    bodyLimit: BODY_LIMIT_BYTES,
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
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
    if (options.token !== undefined && sameSecret(given, options.token)) return true;
    if (options.verifyUiAccessToken) return options.verifyUiAccessToken(given).catch(() => false);
    return false;
  };

  const handle = (operation: 'encode' | 'decode') => async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await authenticated(request))) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: 'A valid bearer token is required', code: 'UNAUTHORIZED' });
    }
    const body = bodySchema.safeParse(request.body);
    if (!body.success) {
      return reply
        .code(400)
        .send({ error: `Invalid body: ${formatIssues(body.error).join('; ')}`, code: 'INVALID_BODY' });
    }
    const payloads = body.data.payloads.map(fromJson);
    try {
      const converted = operation === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
      return reply.send({ payloads: converted.map(toJson) });
    } catch (error) {
      if (!(error instanceof PayloadDecryptionError)) throw error;
      return reply.code(422).send({ error: error.message, code: error.code, keyId: error.keyId });
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
