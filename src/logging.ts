/**
 * Structured logs (pino) for the service's processes. Secrets are redacted wherever they might appear, as a
 * second line of defence: the code never logs them on purpose, but an error from an HTTP library carries the
 * request's headers, a nested configuration object carries a password, a message quotes a URL with
 * credentials in it. Every argument of every log call, and every child logger's bindings, goes through
 * {@link redactSecrets} before pino sees it (pino's own `redact` only knows fixed paths, not "any depth").
 */
import pino, { type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { DefaultLogger, type LogLevel, type LogMetadata } from '@temporalio/worker';

/**
 * Key names whose values never reach a log line, at any depth: anything containing `secret`, `token`,
 * `password` (or `passwd`, `passphrase`), `authorization`, `cookie`, `api-key` / `apiKey` / `x-api-key`,
 * `credential`, `private-key` or `signature`, in any case.
 */
const SECRET_KEY_PATTERN =
  /secret|token|passw(?:or)?d|passphrase|authorization|cookie|api[-_]?key|credential|private[-_]?key|signature/i;

export const REDACTED = '[redacted]';

/** Deeper than this, values are cut off (log lines are not the place for deep structures anyway). */
const MAX_DEPTH = 12;

/**
 * Longest URL and Host of a request that a log line keeps (Fastify's `req`): any real one fits; an outsider's
 * 15 KB of them is cut before anything looks at it.
 */
const MAX_LOGGED_URL = 2_048;
const MAX_LOGGED_HOST = 256;

/*
 * Secrets inside free text: `Bearer …` headers, credentials in URLs, `password=…` / `"token": "…"` pairs. Every
 * logged string goes through these, including text an outsider wrote (a request's URL and Host are logged before
 * anything checks the caller), so each pattern runs in time linear in the text: no two quantifiers can take the
 * same characters and no match can fail after a long scan from many starts (test/regular-expressions.unit.test.ts
 * proves it of every pattern under src/).
 */
const BEARER = /\b((?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]+/gi;
/** The user information of a URL (up to its last `@` before the path): matched from `://`, never from a scheme. */
const URL_CREDENTIALS = /:\/\/[^\s/?#]*@/g;
/** A name (`client_secret`, `X-Signature`, `access_token`): a whole run, so no run is scanned from inside. */
const NAME = /[A-Za-z0-9_-]+/g;
/** Names of values that are secrets, anywhere in a name. */
const SECRET_NAME = /secret|token|passw(?:or)?d|passphrase|api[-_]?key|credential|signature/i;
/** What follows a secret's name: `=` or `:` (quotes and spaces around it), then the value, matched right there. */
const ASSIGNED_VALUE = /(["']?\s*[=:]\s*["']?)[^\s"'&,;}]+/y;

/** `text` with the values assigned to secret names ({@link SECRET_NAME}) replaced, in one pass over it. */
function redactAssignments(text: string): string {
  let redacted = '';
  let copied = 0;
  NAME.lastIndex = 0;
  for (let name = NAME.exec(text); name !== null; name = NAME.exec(text)) {
    if (!SECRET_NAME.test(name[0])) continue;
    ASSIGNED_VALUE.lastIndex = NAME.lastIndex;
    const assignment = ASSIGNED_VALUE.exec(text);
    if (assignment === null) continue;
    redacted += `${text.slice(copied, NAME.lastIndex + (assignment[1] ?? '').length)}${REDACTED}`;
    copied = ASSIGNED_VALUE.lastIndex;
    // The value is gone: names inside it need no look.
    NAME.lastIndex = copied;
  }
  return redacted + text.slice(copied);
}

/** Removes secrets from free text (messages, error messages, stacks), in time linear in its length. */
export function redactText(text: string): string {
  return redactAssignments(text.replace(BEARER, `$1${REDACTED}`).replace(URL_CREDENTIALS, `://${REDACTED}@`));
}

/** `text` cut to `max` characters, saying how long it was. */
function cut(text: unknown, max: number): unknown {
  return typeof text === 'string' && text.length > max
    ? `${text.slice(0, max)}… (${text.length} characters)`
    : text;
}

/** What Fastify's request gives a log line: its own `req` serializer, with the URL and Host bounded. */
interface LoggedRequest {
  readonly method?: string;
  readonly url?: string;
  readonly host?: string;
  readonly ip?: string;
  readonly socket?: { readonly remotePort?: number } | null;
}

/** A request as a log line shows it: method, URL and Host ({@link MAX_LOGGED_URL}), the caller's address. */
function requestForLog(request: LoggedRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: cut(request.url, MAX_LOGGED_URL),
    host: cut(request.host, MAX_LOGGED_HOST),
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * The logger a Fastify server (the HTTP API, the codec server) is given: Fastify takes a logger's own `req`
 * serializer over its default, which logs the URL, the Host and an `Accept-Version` of any length.
 */
export function httpServerLogger(logger: Logger): Logger {
  return logger.child({}, { serializers: { req: (value: LoggedRequest) => requestForLog(value) } });
}

/** A plain, redacted copy of an error: type, message, stack, code, its own fields and its cause. */
function redactError(error: Error, depth: number, seen: WeakSet<object>): Record<string, unknown> {
  const copy: Record<string, unknown> = {
    type: error.name || error.constructor.name,
    message: redactText(error.message),
  };
  if (error.stack !== undefined) copy.stack = redactText(error.stack);
  for (const [key, value] of Object.entries(error)) {
    if (key in copy) continue;
    copy[key] = SECRET_KEY_PATTERN.test(key) ? REDACTED : redactSecrets(value, depth + 1, seen);
  }
  if (error.cause !== undefined) copy.cause = redactSecrets(error.cause, depth + 1, seen);
  if (error instanceof AggregateError) copy.errors = redactSecrets(error.errors, depth + 1, seen);
  return copy;
}

/**
 * A copy of `value` that is safe to log: values under secret-looking keys ({@link SECRET_KEY_PATTERN}) at any
 * depth are replaced, secrets in text ({@link redactText}) removed, errors turned into plain objects (with
 * their causes), bytes summarised, cycles cut.
 */
function redactSecrets(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  // Bytes are never logged: they may be key material or a document.
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[binary ${value.byteLength} bytes]`;
  if (value instanceof Date) return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  seen.add(value);
  try {
    if (value instanceof Error) return redactError(value, depth, seen);
    if (Array.isArray(value)) return value.map((item: unknown) => redactSecrets(item, depth + 1, seen));
    if (value instanceof Map) return redactSecrets(Object.fromEntries(value), depth, seen);
    if (value instanceof Set) return redactSecrets([...value], depth, seen);
    // An object that says how it is written as JSON (a key ring writes only its ids) is redacted as that.
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return redactSecrets(toJSON.call(value) as unknown, depth + 1, seen);
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        SECRET_KEY_PATTERN.test(key) ? REDACTED : redactSecrets(item, depth + 1, seen),
      ]),
    );
  } finally {
    seen.delete(value);
  }
}

interface CreateLoggerOptions {
  readonly level: LevelWithSilent;
  readonly name: string;
  /** Where lines go. @default standard output */
  readonly destination?: DestinationStream;
}

type Serializer = (value: unknown) => unknown;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !(value instanceof Error) &&
  !ArrayBuffer.isView(value);

/** Creates the process logger; see the module comment. */
export function createLogger(options: CreateLoggerOptions): Logger {
  // A logged field goes through its serializer (Fastify's `req`, `res`) and then redaction, here, before pino
  // sees it; pino would run the serializer again on the result, so the serializers skip what is done.
  const done = new WeakSet<object>();
  const skippingDone =
    (serializer: Serializer): Serializer =>
    (value) =>
      typeof value === 'object' && value !== null && done.has(value) ? value : serializer(value);
  const prepareField = (key: string, value: unknown, serializers: Record<string, Serializer>): unknown => {
    if (SECRET_KEY_PATTERN.test(key)) return REDACTED;
    const serializer = serializers[key];
    const prepared = redactSecrets(serializer ? serializer(value) : value);
    if (typeof prepared === 'object' && prepared !== null) done.add(prepared);
    return prepared;
  };

  const pinoOptions: pino.LoggerOptions = {
    name: options.name,
    level: options.level,
    // Errors arrive here already as redacted plain objects (see logMethod); pino's error serializer would
    // only rename their type.
    serializers: { err: (value: unknown) => value },
    hooks: {
      logMethod(args, method) {
        const serializers =
          (Reflect.get(this, pino.symbols.serializersSym) as Record<string, Serializer> | undefined) ?? {};
        const [first, ...rest] = args as unknown[];
        // `logger.error(error)` and `logger.error(error, 'message')`: keep pino's meaning, an `err` field and
        // the error's message as the line's message.
        const fields = first instanceof Error ? { err: first } : first;
        const messageArgs = first instanceof Error && rest.length === 0 ? [first.message] : rest;
        const prepared = isPlainObject(fields)
          ? Object.fromEntries(
              Object.entries(fields).map(([key, value]) => [key, prepareField(key, value, serializers)]),
            )
          : redactSecrets(fields);
        method.apply(this, [prepared, ...messageArgs.map((arg) => redactSecrets(arg))] as Parameters<
          typeof method
        >);
      },
    },
  };
  const logger = options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
  // Child loggers (Fastify's per request, ours per order) are made from this one and inherit these two. The
  // originals are called on the logger they are called on (`this`): a child of a child needs that.
  for (const method of ['child', 'setBindings'] as const) {
    const original: unknown = Reflect.get(logger, method);
    Object.defineProperty(logger, method, {
      configurable: true,
      writable: true,
      value: function (
        this: Logger,
        bindings: pino.Bindings,
        childOptions?: pino.ChildLoggerOptions,
      ): unknown {
        const serializers = childOptions?.serializers;
        const wrapped = serializers
          ? {
              ...childOptions,
              serializers: Object.fromEntries(
                Object.entries(serializers).map(([key, serializer]) => [key, skippingDone(serializer)]),
              ),
            }
          : childOptions;
        return Reflect.apply(original as (...args: unknown[]) => unknown, this, [
          redactSecrets(bindings),
          ...(wrapped === undefined ? [] : [wrapped]),
        ]);
      },
    });
  }
  return logger;
}

const SDK_TO_PINO = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** Routes the Temporal SDK's logs (worker, workflows, activities) into pino. */
export function sdkLoggerFor(logger: Logger, level: LogLevel = 'INFO'): DefaultLogger {
  return new DefaultLogger(level, (entry) => {
    const meta: LogMetadata = entry.meta ?? {};
    logger[SDK_TO_PINO[entry.level]](meta, entry.message);
  });
}
