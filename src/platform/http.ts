/**
 * Request execution for the platform client: sends one HTTP attempt with axios, measures it, reports it, and
 * turns every failure into a sanitised {@link PlatformError}.
 *
 * axios is told never to throw on an HTTP status (`validateStatus`), so statuses are classified here, in one
 * place; only transport failures (refused, reset, timeout, abort) arrive as exceptions. Nothing from an axios
 * error is kept except its code and message: axios errors embed the request config and its headers. axios
 * follows no redirect: {@link PlatformHttp.send} follows them by their meaning (`redirects.ts`).
 */
import { AxiosError, isAxiosError } from 'axios';
import type { AxiosInstance, AxiosRequestConfig, RawAxiosRequestHeaders } from 'axios';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { parseJsonKeepingDigits } from '../json-numbers';
import { codeForStatus, codeForTransport, outcomeOf } from '../failure-types';
import { isPlatformError, PlatformError } from './errors';
import type { PlatformErrorCause } from './errors';
import { describeShape } from './extract';
import type { ResponseMap } from './extract';
import type { PlatformApi, RequestProfile } from './request-profile';
import { redirectStep } from './redirects';
import { parseErrorBody, ResponseShapeError } from './schemas';
import type { PlatformLogger, PlatformRequestEvent, PlatformRoute } from './types';

/** The API each route belongs to (the specification's path prefixes), for the profile's per-API headers. */
const API_OF_ROUTE: Readonly<Record<PlatformRoute, PlatformApi>> = {
  auth: 'identity',
  stocks: 'badge',
  orders: 'badge',
  documents: 'document',
};

/** Name of the header carrying the caller's idempotency key on order creation and uploads. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Default deadlines: what each means is said at `PlatformClientOptions.timeouts`. */
export const DEFAULT_TIMEOUTS = Object.freeze({
  requestMs: 30_000,
  uploadMs: 30 * 60_000,
  uploadMinMs: 60_000,
  minUploadBytesPerSecond: 64 * 1024,
  uploadStallMs: 30_000,
});

/** Largest response body the client accepts; platform responses are small JSON documents. */
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Error code the connect-timeout agents destroy a socket with. */
const CONNECT_TIMEOUT_CODE = 'ECONNECTTIMEOUT';

const REDACTED = '[REDACTED]';

/** A silent {@link PlatformLogger}. */
export const silentLogger: PlatformLogger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
});

/** Settings of the HTTP layer, resolved from the client options. */
interface HttpSettings extends Readonly<Record<keyof typeof DEFAULT_TIMEOUTS, number>> {
  readonly http: AxiosInstance;
  /** Base URL without trailing slash. */
  readonly baseUrl: string;
  /** Only with the client's own agents. */
  readonly connectMs?: number;
  readonly logger: PlatformLogger;
  readonly onRequest?: (event: PlatformRequestEvent) => void;
  /** Strings that must never appear in an error or a log line (the password; tokens are added per call). */
  readonly secrets: readonly string[];
  /** Pointers that win over the heuristics when reading answers. */
  readonly responseMap?: ResponseMap;
  /** The names, headers and prefix every request is sent with. */
  readonly requestProfile: RequestProfile;
}

/** One HTTP attempt. */
export interface PlatformRequest {
  readonly route: PlatformRoute;
  readonly method: 'GET' | 'POST';
  /** API path (no host, no query). */
  readonly path: string;
  /** Idempotency-Key, Content-Type, …; Authorization comes from `bearer`. */
  readonly headers?: RawAxiosRequestHeaders;
  /** Request body: a JSON string or a multipart stream. */
  readonly data?: unknown;
  /** Total deadline of this attempt, ms. @default the client's `requestMs` */
  readonly deadlineMs?: number;
  /** Stall detection while the body is sent (uploads). */
  readonly stall?: BodyActivity;
  /** Query parameters (never part of `path`, so never in errors or logs). */
  readonly query?: Readonly<Record<string, string>>;
  /** The body's member or part names, which a refusal naming another one says the request profile may fix. */
  readonly sentNames?: readonly string[];
  /**
   * Where a redirect sent the request: an absolute URL on the platform's origin, with its query, in place of the
   * base URL, `path` and `query`. Set by {@link PlatformHttp.send} only.
   */
  readonly url?: string;
  readonly signal?: AbortSignal;
  /** The bearer token to send (and to redact from errors). */
  readonly bearer?: string;
}

/**
 * How the HTTP layer learns that body bytes moved: `subscribe` registers `onBytes` (called whenever bytes were
 * read into the request) and `onEnd` (the whole body was read; only the total deadline applies from then on)
 * and returns a function that unsubscribes.
 */
export interface BodyActivity {
  /** Abort when no byte moved for this long, ms. */
  readonly stallMs: number;
  subscribe(onBytes: () => void, onEnd: () => void): () => void;
}

/** The platform's answer to one attempt, whatever its status. */
export interface PlatformResponse {
  readonly status: number;
  /** Response headers, lower-case names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /**
   * The body: parsed JSON when it is JSON (a number a double would change kept as the string of its digits), else
   * the text, `undefined` when empty.
   */
  readonly body: unknown;
  /** The path a followed redirect took the call to (no query), when the platform redirected it. */
  readonly redirectedTo?: string;
}

/**
 * A JWT (`eyJ…` header, payload, signature). The text is a platform's answer, so the match never fails after a
 * long scan: a header without the rest is matched whole and kept (a later start in it could only end the same
 * way), which keeps the work linear (test/regular-expressions.unit.test.ts).
 */
const JWT = /\beyJ[A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)?/g;

/**
 * Replace every secret (and anything that looks like a bearer token or a JWT) in a string.
 * @param text the string to clean
 * @param secrets exact strings to remove
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    // Very short secrets would shred ordinary words; such passwords are not worth protecting this way.
    if (secret.length >= 4) result = result.split(secret).join(REDACTED);
  }
  return result
    .replace(/\bBearer\s+[A-Za-z0-9\-._~+/]+=*/gi, `Bearer ${REDACTED}`)
    .replace(JWT, (match, rest: string | undefined) => (rest === undefined ? match : REDACTED));
}

/**
 * Deep-copy a JSON-like value with every string passed through {@link redactText}.
 * @param value the value to clean (depth-limited; deeper parts are dropped)
 * @param secrets exact strings to remove
 */
function redactValue(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 6) return '[…]';
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => redactValue(item, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = /^(authorization|password|access_token|token|refresh_token|secret)$/i.test(key)
      ? REDACTED
      : redactValue(item, secrets, depth + 1);
  }
  return out;
}

/**
 * Parse a `Retry-After` header (delay in seconds, or an HTTP date) into milliseconds from now.
 * @returns the delay, never negative, or `undefined` when absent or unreadable
 */
function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date names its month; this keeps Date.parse from reading "-5" as a year.
  if (!/[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Decode a response body: JSON when it parses, else the text; `undefined` when empty. The one place the platform's
 * answers are parsed, losslessly: a number a double would change (an order id beyond 2^53) arrives as the string
 * of its digits, exactly as sent.
 */
function decodeBody(data: unknown): unknown {
  const text = Buffer.isBuffer(data) ? data.toString('utf8') : data;
  if (typeof text !== 'string') return text;
  if (text.trim() === '') return undefined;
  try {
    return parseJsonKeepingDigits(text);
  } catch {
    return text;
  }
}

function lowerCaseHeaders(headers: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (headers === null || typeof headers !== 'object') return out;
  const plain =
    typeof (headers as { toJSON?: unknown }).toJSON === 'function'
      ? (headers as { toJSON(): unknown }).toJSON()
      : headers;
  for (const [name, value] of Object.entries(plain as Record<string, unknown>)) {
    if (typeof value === 'string') out[name.toLowerCase()] = value;
    else if (typeof value === 'number') out[name.toLowerCase()] = String(value);
    else if (Array.isArray(value)) out[name.toLowerCase()] = value.map(String).join(', ');
  }
  return out;
}

/** Sockets whose TLS handshake completed: a request on one may have left, whatever error follows. */
const handshaken = new WeakSet<object>();

/** Whether the request of a failed call went over a connection whose TLS handshake had completed. */
function handshakeCompleted(error: unknown): boolean {
  const socket = isAxiosError(error)
    ? (error.request as { socket?: unknown } | undefined)?.socket
    : undefined;
  return typeof socket === 'object' && socket !== null && handshaken.has(socket);
}

/**
 * HTTP and HTTPS keep-alive agents that note each socket's completed TLS handshake and, with `connectMs`,
 * destroy sockets that do not connect within it.
 */
function platformAgents(connectMs: number | undefined): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  const guard = <A extends http.Agent>(agent: A): A => {
    const createConnection = agent.createConnection.bind(agent);
    agent.createConnection = (options, callback) => {
      const socket = createConnection(options, callback);
      if (socket instanceof tls.TLSSocket) socket.once('secureConnect', () => handshaken.add(socket));
      if (connectMs !== undefined && socket instanceof net.Socket && socket.connecting) {
        const timer = setTimeout(() => {
          const error = Object.assign(new Error(`connect timeout after ${connectMs} ms`), {
            code: CONNECT_TIMEOUT_CODE,
          });
          socket.destroy(error);
        }, connectMs);
        const clear = (): void => clearTimeout(timer);
        socket.once('connect', clear);
        socket.once('close', clear);
      }
      return socket;
    };
    return agent;
  };
  // The options of Node's global agents: an idle socket is closed after 5 s, the most recently used is reused.
  const options = { keepAlive: true, scheduling: 'lifo', timeout: 5_000 } as const;
  return { httpAgent: guard(new http.Agent(options)), httpsAgent: guard(new https.Agent(options)) };
}

/** Build a secret-free summary of any thrown value. */
export function sanitizeCause(
  error: unknown,
  where: { method: string; path: string },
  secrets: readonly string[],
): PlatformErrorCause {
  const base = { method: where.method, path: where.path };
  // Duck-typed: errors from Node internals may come from another realm (e.g. under jest) and fail instanceof.
  if (typeof error === 'object' && error !== null) {
    const { name, code, message } = error as { name?: unknown; code?: unknown; message?: unknown };
    const status = isAxiosError(error) ? error.response?.status : undefined;
    return {
      name: typeof name === 'string' ? name : 'Error',
      ...(typeof code === 'string' && { code }),
      ...(typeof message === 'string' && { message: redactText(message, secrets) }),
      ...(status !== undefined && { status }),
      ...base,
    };
  }
  return { name: typeof error, ...base };
}

/**
 * The HTTP layer shared by the API modules: one instance per client.
 */
export class PlatformHttp {
  /** The resolved client settings. */
  readonly settings: HttpSettings;
  readonly #warnedShapes = new Set<PlatformRoute>();
  readonly #agents: { httpAgent: http.Agent; httpsAgent: https.Agent };

  /** @param settings resolved client settings */
  constructor(settings: HttpSettings) {
    this.settings = settings;
    this.#agents = platformAgents(settings.connectMs);
  }

  /**
   * Log once per route (at warn) that an answer could not be fully read, with its key structure only: values
   * may be signed links or tokens.
   * @param route the API answered
   * @param status the answer's status
   * @param body the parsed body
   * @param missing what was not found, e.g. `['documentId', 'links.thumbnail']`
   */
  warnUnreadable(route: PlatformRoute, status: number, body: unknown, missing: readonly string[]): void {
    if (this.#warnedShapes.has(route)) return;
    this.#warnedShapes.add(route);
    this.settings.logger.warn(
      { route, status, missing, shape: describeShape(body) },
      'platform answer not fully understood; pin its shape with the response map (logged once per route)',
    );
  }

  /**
   * Send one attempt, following its redirects as `redirects.ts` decides: a 307/308 sends it again (through
   * `resend`) at `Location`, a 303 reads the result there with a GET, a GET follows 301/302 too; each only on
   * the platform's origin. Resolves with the last answer whatever its HTTP status, never a 3xx; rejects with a
   * {@link PlatformError}: `REDIRECTED` (not sent) for a redirect it does not follow, `UNEXPECTED_RESPONSE` for a
   * 303 it cannot follow, any failure after a 303 as `maybe-applied` (the call was processed), `NETWORK` or
   * `TIMEOUT` when no answer arrived; or with the caller's abort reason.
   * @param request the attempt to send
   * @param resend sends the request to one address (`request.path`, or `request.url` after a redirect); a body
   *   that cannot be sent twice (a file stream) must be made afresh by it. @default {@link exchange}
   */
  async send(
    request: PlatformRequest,
    resend: (hop: PlatformRequest) => Promise<PlatformResponse> = (hop) => this.exchange(hop),
  ): Promise<PlatformResponse> {
    let hop = request;
    // Once a 303 said the call was processed, whatever fails reading its result may have taken effect.
    let processed = false;
    const failure = (error: unknown): unknown =>
      processed && isPlatformError(error)
        ? new PlatformError({
            ...error,
            message: `${error.message} (reading the result of ${request.method} ${request.path}, which the platform processed: 303 See Other)`,
            cause: error.cause,
            outcome: outcomeOf(error.code, { processed }),
          })
        : error;
    for (let followed = 0; ; followed += 1) {
      let response: PlatformResponse;
      try {
        response = hop.method === request.method ? await resend(hop) : await this.exchange(hop);
      } catch (error) {
        throw failure(error);
      }
      if (response.status < 300 || response.status > 399) {
        if (processed && response.status >= 400) throw failure(this.errorFor(hop, response));
        return followed === 0 ? response : { ...response, redirectedTo: hop.path };
      }
      const url = new URL(this.#urlOf(hop));
      const step = redirectStep({
        method: hop.method,
        url,
        status: response.status,
        location: response.headers.location,
        followed,
      });
      if ('refused' in step) throw failure(this.errorFor(hop, response, { redirect: step.refused }));
      processed ||= response.status === 303 && request.method !== 'GET';
      const { query: _query, ...rest } = hop;
      hop =
        step.method === hop.method
          ? { ...rest, path: this.#apiPath(step.target), url: step.target.href }
          : {
              route: hop.route,
              method: step.method,
              path: this.#apiPath(step.target),
              url: step.target.href,
              ...(hop.signal && { signal: hop.signal }),
              ...(hop.bearer !== undefined && { bearer: hop.bearer }),
            };
    }
  }

  /** Where `request` goes: where a redirect sent it, else the base URL, the profile's path prefix and its path. */
  #urlOf(request: PlatformRequest): string {
    return request.url ?? `${this.settings.baseUrl}${this.settings.requestProfile.pathPrefix}${request.path}`;
  }

  /** The path of a URL on the platform's origin as errors and logs name it: without the base URL's path. */
  #apiPath(url: URL): string {
    // The base URL has no trailing slash (createPlatformClient drops them): its path is `/` or `/base`.
    const basePath = new URL(this.settings.baseUrl).pathname;
    const prefix = basePath === '/' ? '' : basePath;
    return prefix !== '' && url.pathname.startsWith(`${prefix}/`)
      ? url.pathname.slice(prefix.length)
      : url.pathname;
  }

  /**
   * Send one HTTP exchange: no redirect is followed ({@link send} follows them). Resolves with the answer
   * whatever its HTTP status; rejects with a {@link PlatformError} (`NETWORK`, `TIMEOUT`) when no answer
   * arrived, or with the caller's abort reason.
   * @param request the attempt to send
   */
  async exchange(request: PlatformRequest): Promise<PlatformResponse> {
    const { method, path, route } = request;
    const callerSignal = request.signal;
    callerSignal?.throwIfAborted();
    const deadlineMs = request.deadlineMs ?? this.settings.requestMs;
    // axios' own `timeout` is an idle timeout that restarts with every byte; this controller enforces the
    // total deadline and the stall timeout, and carries the caller's abort.
    const controller = new AbortController();
    let ended: { readonly why: 'deadline' | 'stall'; readonly ms: number } | undefined;
    const end = (why: 'deadline' | 'stall', ms: number): void => {
      ended ??= { why, ms };
      controller.abort(new Error(`platform call ${why} after ${ms} ms`));
    };
    const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    const deadline = setTimeout(() => end('deadline', deadlineMs), deadlineMs);
    let stallTimer: NodeJS.Timeout | undefined;
    let unsubscribe: (() => void) | undefined;
    const stall = request.stall;
    if (stall !== undefined) {
      const arm = (): void => {
        clearTimeout(stallTimer);
        stallTimer = setTimeout(() => end('stall', stall.stallMs), stall.stallMs);
      };
      arm();
      unsubscribe = stall.subscribe(arm, () => clearTimeout(stallTimer));
    }
    const cleanUp = (): void => {
      clearTimeout(deadline);
      clearTimeout(stallTimer);
      unsubscribe?.();
      callerSignal?.removeEventListener('abort', onCallerAbort);
    };

    const config: AxiosRequestConfig = {
      url: this.#urlOf(request),
      method,
      headers: {
        Accept: 'application/json',
        ...this.settings.requestProfile.headers[API_OF_ROUTE[route]],
        ...request.headers,
        ...(request.bearer !== undefined && { Authorization: `Bearer ${request.bearer}` }),
      },
      ...(request.query !== undefined && request.url === undefined && { params: request.query }),
      data: request.data,
      timeout: deadlineMs,
      signal: controller.signal,
      validateStatus: () => true,
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      maxContentLength: MAX_RESPONSE_BYTES,
      // No limit on what we send: -1, axios' "unlimited" (it hands follow-redirects Infinity itself). Any other
      // value, Infinity too, pipes every streamed upload through a byte-counting Transform and a pipeline.
      maxBodyLength: -1,
      // Redirects are followed by send(), by their meaning; axios' follow-redirects would buffer every body
      // for replay and hand the token to a subdomain.
      maxRedirects: 0,
      transitional: { clarifyTimeoutError: true, silentJSONParsing: true, forcedJSONParsing: false },
      ...this.#agents,
    };
    const started = performance.now();
    const report = (status: PlatformRequestEvent['status']): number => {
      const durationMs = Math.round(performance.now() - started);
      try {
        this.settings.onRequest?.({ route, method, path, status, durationMs });
      } catch (hookError) {
        this.settings.logger.warn(
          { route, err: sanitizeCause(hookError, request, this.#secrets(request)) },
          'platform onRequest hook threw',
        );
      }
      return durationMs;
    };

    let raw;
    try {
      raw = await this.settings.http.request<unknown>(config);
    } catch (error) {
      if (callerSignal?.aborted) {
        // The caller gave up (e.g. the activity was cancelled): surface its reason, not a platform error.
        report('network-error');
        throw callerSignal.reason ?? error;
      }
      const mapped =
        ended === undefined
          ? this.#transportError(request, error, deadlineMs)
          : new PlatformError({
              code: 'TIMEOUT',
              method,
              path,
              timeoutMs: ended.ms,
              ...(ended.why === 'stall' && { detail: `no body byte moved for ${ended.ms} ms` }),
              cause: {
                name: 'DeadlineError',
                code: ended.why === 'stall' ? 'ESTALLED' : 'EDEADLINE',
                method,
                path,
              },
            });
      const durationMs = report(mapped.code === 'TIMEOUT' ? 'timeout' : 'network-error');
      this.settings.logger.debug(
        { route, method, path, error: mapped.code, cause: mapped.cause?.code, durationMs },
        'platform request failed',
      );
      throw mapped;
    } finally {
      cleanUp();
    }
    const durationMs = report(raw.status);
    this.settings.logger.debug({ route, method, path, status: raw.status, durationMs }, 'platform request');
    return { status: raw.status, headers: lowerCaseHeaders(raw.headers), body: decodeBody(raw.data) };
  }

  /**
   * Total deadline of an upload of `sizeBytes`: `max(uploadMinMs, size / minUploadBytesPerSecond)`, never
   * above `uploadMs`.
   * @param sizeBytes the size of the file sent
   */
  uploadDeadlineMs(sizeBytes: number): number {
    const { uploadMinMs, minUploadBytesPerSecond, uploadMs } = this.settings;
    const bySize = Math.ceil((Math.max(0, sizeBytes) / minUploadBytesPerSecond) * 1000);
    return Math.min(uploadMs, Math.max(uploadMinMs, bySize));
  }

  #secrets(request: PlatformRequest): string[] {
    return request.bearer === undefined
      ? [...this.settings.secrets]
      : [...this.settings.secrets, request.bearer];
  }

  #transportError(request: PlatformRequest, error: unknown, timeoutMs: number): PlatformError {
    const { method, path } = request;
    const cause = sanitizeCause(error, request, this.#secrets(request));
    if (
      isAxiosError(error) &&
      error.code === AxiosError.ERR_BAD_RESPONSE &&
      /maxContentLength/.test(error.message)
    ) {
      return new PlatformError({
        code: 'UNEXPECTED_RESPONSE',
        method,
        path,
        cause,
        detail: `response body larger than ${MAX_RESPONSE_BYTES} bytes`,
      });
    }
    const code = codeForTransport(cause.code);
    if (code === 'TIMEOUT') {
      const connect = cause.code === CONNECT_TIMEOUT_CODE && this.settings.connectMs !== undefined;
      return new PlatformError({
        code,
        method,
        path,
        cause,
        timeoutMs: connect ? this.settings.connectMs : timeoutMs,
        ...(connect && { detail: 'could not connect' }),
      });
    }
    return new PlatformError({
      code,
      method,
      path,
      cause: handshakeCompleted(error) ? { ...cause, handshakeCompleted: true } : cause,
      detail: cause.code ?? cause.message,
    });
  }

  /**
   * Turn an answer with a failure status into its {@link PlatformError}; the failure table maps the status to
   * the code. 401 here means the token was rejected twice, except on the token call (`tokenCall`).
   * @param request the attempt that was answered
   * @param response the answer
   * @param context the call: the token call, or order creation with the stock id sent; or a redirect that
   *   was not followed, and why
   */
  errorFor(
    request: PlatformRequest,
    response: PlatformResponse,
    context: { readonly tokenCall?: boolean; readonly stockId?: string; readonly redirect?: string } = {},
  ): PlatformError {
    const { method, path } = request;
    const { status } = response;
    const secrets = this.#secrets(request);
    const parsed = parseErrorBody(response.body);
    const code = codeForStatus(status, {
      token: context.tokenCall === true,
      stock: context.stockId !== undefined || parsed.code === 'stock_not_found',
    });
    const platformMessage = parsed.message === undefined ? undefined : redactText(parsed.message, secrets);
    const field = parsed.field === undefined ? undefined : redactText(parsed.field, secrets);
    // `vehicle.plate` or `vehicle[0]` is inside a member that was sent: the data's problem, not the names'.
    const unsent =
      code === 'VALIDATION' &&
      field !== undefined &&
      !this.#sent(request).has((/^[^.[/]+/.exec(field)?.[0] ?? field).toLowerCase());
    const retryAfter = response.headers['retry-after'];
    const retryAfterMs =
      code === 'RATE_LIMITED' || code === 'SERVER_ERROR' ? parseRetryAfter(retryAfter) : undefined;
    return new PlatformError({
      code,
      method,
      path,
      status,
      outcome: outcomeOf(code, { status, retryAfter: retryAfter !== undefined }),
      detail:
        context.redirect !== undefined
          ? redactText(
              code === 'REDIRECTED'
                ? `${context.redirect}; nothing was processed: set BADGE_BASE_URL to where the platform serves its API`
                : context.redirect,
              secrets,
            )
          : code === 'UNEXPECTED_RESPONSE'
            ? (platformMessage ?? `unexpected status ${status}`)
            : unsent
              ? `${platformMessage ?? 'refused'}; the platform names ${field}, which this request did not send: set the name in BADGE_REQUEST_PROFILE (docs/platform-client.md, "Request profile")`
              : platformMessage,
      platformMessage,
      retryAfterMs,
      platformCode: parsed.code === undefined ? undefined : redactText(parsed.code, secrets),
      ...(code === 'FORBIDDEN' && { scope: parsed.scope }),
      ...(code === 'STOCK_NOT_FOUND' && { stockId: context.stockId }),
      ...(code === 'VALIDATION' && {
        details: redactValue(parsed.details, secrets),
        field,
        ...(unsent && { unsent: field }),
      }),
      ...(unsent && { setting: 'BADGE_REQUEST_PROFILE' }),
      ...(code === 'REDIRECTED' && { setting: 'BADGE_BASE_URL' }),
    });
  }

  /** Every name `request` sent, lower case: its body's members or parts, its query's and its headers. */
  #sent(request: PlatformRequest): ReadonlySet<string> {
    return new Set(
      [
        ...(request.sentNames ?? []),
        ...Object.keys(request.query ?? {}),
        ...Object.keys(request.headers ?? {}),
        ...Object.keys(this.settings.requestProfile.headers[API_OF_ROUTE[request.route]]),
        'Accept',
        'Authorization',
      ].map((name) => name.toLowerCase()),
    );
  }

  /**
   * Parse a successful answer's body; a body the parser cannot understand becomes an `UNEXPECTED_RESPONSE`
   * naming what was missing.
   * @param request the attempt that was answered
   * @param response the answer
   * @param parse one of the parsers in `schemas.ts`
   * @param missing what the answer lacks when it cannot be read: logged once by {@link warnUnreadable}
   */
  parse<T>(
    request: PlatformRequest,
    response: PlatformResponse,
    parse: (body: unknown) => T,
    missing?: readonly string[],
  ): T {
    try {
      return parse(response.body);
    } catch (error) {
      if (missing) this.warnUnreadable(request.route, response.status, response.body, missing);
      const problem =
        error instanceof ResponseShapeError ? error.problem : 'the response body could not be parsed';
      throw new PlatformError({
        code: 'UNEXPECTED_RESPONSE',
        method: request.method,
        path: request.path,
        status: response.status,
        message: `${request.method} ${request.path} returned ${response.status} with a body that cannot be understood: ${problem}`,
        cause: sanitizeCause(error, request, this.#secrets(request)),
      });
    }
  }
}
