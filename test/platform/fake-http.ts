/**
 * A fake HTTP layer for unit tests of the platform client: an axios instance whose adapter hands every
 * request to a handler function instead of the network, and records what was sent.
 */
import axios, { AxiosError, AxiosHeaders } from 'axios';
import type { AxiosInstance, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { createPlatformClient } from '../../src/platform';
import type { PlatformClient, PlatformClientOptions } from '../../src/platform';
import type { PlatformRequestEvent } from '../../src/platform/types';
import { TokenCache } from '../../src/platform/token-cache';

/** One request as the fake platform saw it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the base URL. */
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body parsed, a form or the multipart body as text, or undefined. */
  readonly body: unknown;
  /** The raw multipart body, for uploads. */
  readonly bytes?: Buffer;
  /** The config axios passed to the adapter (contains the Authorization header!). */
  readonly config: InternalAxiosRequestConfig;
}

/** What a handler answers. */
export interface FakeReply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** Answers a request, or throws (e.g. an AxiosError with a network code). */
export type FakeHandler = (request: RecordedRequest) => FakeReply | Promise<FakeReply>;

export const BASE_URL = 'https://platform.test/base';
export const USERNAME = 'demo';
export const PASSWORD = 'pa55-word-that-must-not-leak';

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** An (unsigned-looking) JWT with the given claims; the client decodes without verifying. */
export function makeJwt(claims: Record<string, unknown>): string {
  return `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}.c2lnbmF0dXJlLW5vdC1jaGVja2Vk`;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

function isReadable(value: unknown): value is Readable {
  return typeof value === 'object' && value !== null && typeof (value as Readable).pipe === 'function';
}

/** An axios instance whose adapter calls `handler`; every request is recorded in `requests`. */
export function fakeHttp(handler: FakeHandler): { http: AxiosInstance; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const http = axios.create({
    adapter: async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(AxiosHeaders.from(config.headers).toJSON())) {
        if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
      }
      let body: unknown;
      let bytes: Buffer | undefined;
      const data: unknown = config.data;
      if (isReadable(data)) {
        // form-data is a legacy stream: pipe it into a modern one to consume it.
        bytes = await readAll(data.pipe(new PassThrough()));
        body = bytes.toString('latin1');
      } else if (typeof data === 'string') {
        // JSON, or a form (the client credentials grant) kept as its text.
        body = /^application\/x-www-form-urlencoded/.test(headers['content-type'] ?? '')
          ? data
          : (JSON.parse(data) as unknown);
      }
      const url = String(config.url);
      const recorded: RecordedRequest = {
        method: String(config.method).toUpperCase(),
        path: url.startsWith(BASE_URL) ? url.slice(BASE_URL.length) : url,
        headers,
        body,
        ...(bytes && { bytes }),
        config,
      };
      requests.push(recorded);
      const reply = await handler(recorded);
      const responseBody =
        reply.body === undefined
          ? ''
          : typeof reply.body === 'string'
            ? reply.body
            : JSON.stringify(reply.body);
      return {
        status: reply.status,
        statusText: '',
        headers: AxiosHeaders.from({ 'content-type': 'application/json', ...reply.headers }),
        data: responseBody,
        config,
        request: {},
      };
    },
  });
  return { http, requests };
}

/** Throw the AxiosError a real adapter throws for a transport failure (it embeds the request config). */
export function transportError(code: string, message: string, request: RecordedRequest): never {
  throw new AxiosError(message, code, request.config);
}

/** A token reply with a JWT that expires `ttlSeconds` after `nowMs`. */
export function tokenReply(
  nowMs: number,
  ttlSeconds = 900,
  claims: Record<string, unknown> = {},
): { reply: FakeReply; token: string } {
  const iat = Math.floor(nowMs / 1000);
  const token = makeJwt({ sub: '4711', scope: 'badge document', iat, exp: iat + ttlSeconds, ...claims });
  return {
    reply: { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: ttlSeconds } },
    token,
  };
}

/** A mutable clock for token caches. */
export class FakeClock {
  constructor(public nowMs = Date.UTC(2030, 0, 1)) {}
  readonly now = (): number => this.nowMs;
  advance(ms: number): void {
    this.nowMs += ms;
  }
}

/** Everything a unit test needs: a client over a fake platform, its own token cache and clock. */
export interface Harness {
  readonly client: PlatformClient;
  readonly requests: RecordedRequest[];
  readonly events: PlatformRequestEvent[];
  readonly cache: TokenCache;
  readonly clock: FakeClock;
  readonly tokens: string[];
  /** Requests other than the token call. */
  apiRequests(): RecordedRequest[];
  /** Number of token calls. */
  authCalls(): number;
}

/**
 * A client whose token call is answered with a fresh JWT (900 s) and whose other calls go to `handler`.
 * Every issued token is recorded in `tokens`.
 */
export function harness(
  handler: FakeHandler,
  options: Partial<Omit<PlatformClientOptions, 'http' | 'tokenCache'>> & { ttlSeconds?: number } = {},
): Harness {
  const clock = new FakeClock();
  const cache = new TokenCache({ now: clock.now });
  const tokens: string[] = [];
  const events: PlatformRequestEvent[] = [];
  const { http, requests } = fakeHttp((request) => {
    if (request.path === '/iam/api/v1/auth/jwt') {
      const { reply, token } = tokenReply(clock.nowMs, options.ttlSeconds ?? 900, { n: tokens.length });
      tokens.push(token);
      return reply;
    }
    return handler(request);
  });
  const { ttlSeconds: _ttl, ...clientOptions } = options;
  const client = createPlatformClient({
    baseUrl: BASE_URL,
    credentials: { username: USERNAME, password: PASSWORD },
    onRequest: (event) => events.push(event),
    ...clientOptions,
    http,
    tokenCache: cache,
  });
  return {
    client,
    requests,
    events,
    cache,
    clock,
    tokens,
    apiRequests: () => requests.filter((request) => request.path !== '/iam/api/v1/auth/jwt'),
    authCalls: () => requests.filter((request) => request.path === '/iam/api/v1/auth/jwt').length,
  };
}

/** Await a promise expected to reject and return the rejection. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
