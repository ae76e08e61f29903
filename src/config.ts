/**
 * Configuration of the service's processes, parsed once at the process edge (src/main/*.ts, or a backend's
 * own start for `loadTemporalConfig` and `loadTracingConfig`) from the environment; nothing else reads
 * `process.env`. Each variable is declared once ({@link VARIABLES}: name, schema with its default, meaning,
 * the processes that read it); the parsers, the messages naming a variable, docs/configuration.md
 * (`npm run config:docs`) and the checks of `.env.example` and compose derive from that declaration. Secrets
 * may come from files (`NAME_FILE`), as container secrets do.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadClientConfigProfile, type ClientConfigProfile } from '@temporalio/envconfig';
import { z } from 'zod';
import { PayloadKeyRing, parsePayloadKeys } from './codec/key-ring';
import { responseMapSchema } from './platform/extract';
import { PLATFORM_PATHS, requestProfileSchema, tenantProblem } from './platform/request-profile';
import type { PlatformCredentials } from './platform/types';
import { CLIENT_ID_PATTERN, DEFAULT_TASK_QUEUE, formatIssues } from './contract';
import { insecureUrlProblem } from './url-policy';
import { listedHost } from './webhook-destination';

/** Thrown when the environment is invalid; the message names every variable concerned. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

/** The processes that read the environment (src/main/*.ts), as docs/configuration.md names them. */
export const PROCESSES = ['worker', 'api', 'codec-server', 'schedule', 'starter', 'ops'] as const;
type ProcessName = (typeof PROCESSES)[number];

/** One environment variable: everything else about it derives from this. */
interface Variable<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** Parses the variable's text (unset and empty alike are `undefined`); its default is the variable's. */
  readonly schema: S;
  /** One line for docs/configuration.md. */
  readonly meaning: string;
  /** The processes that read it: set by {@link readBy} for each group a process's loader reads. */
  readonly processes: ProcessName[];
  /** A deployment sets it: in `.env`, or as a secret file (`NAME_FILE`) when `secret`. */
  readonly required?: boolean;
  /** Also read from the file named by `NAME_FILE`. */
  readonly secret?: boolean;
  /** The default as docs/configuration.md shows it, where the schema's value is not the text to write. */
  readonly defaultText?: string;
}

const declared: Variable[] = [];
/** Every variable the processes read, in the order docs/configuration.md lists them. */
export const VARIABLES: readonly Variable[] = declared;

function variable<S extends z.ZodType>(
  name: string,
  schema: S,
  meaning: string,
  options: Pick<Variable, 'required' | 'secret' | 'defaultText'> = {},
): Variable<S> {
  const declaration = { name, schema, meaning, processes: [], ...options };
  declared.push(declaration);
  return declaration;
}

/** A variable read as text, its meaning decided where it is read. */
function text(
  name: string,
  meaning: string,
  options: Pick<Variable, 'secret' | 'defaultText'> = {},
): Variable {
  return variable(name, z.string().optional(), meaning, options);
}

/** The group, its variables marked as read by `processes`. */
function readBy<G extends Group>(processes: readonly ProcessName[], group: G): G {
  for (const v of Object.values(group))
    v.processes.push(...processes.filter((p) => !v.processes.includes(p)));
  return group;
}

/** Variables by config field. */
type Group = Readonly<Record<string, Variable>>;

/**
 * Config fields with a schema of their own (checks across fields), read from `layout` or their own way;
 * `variable` and `layout` name the variables in messages.
 */
interface Part<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  readonly read?: (env: Env) => unknown;
  /** The variable a message about the whole part names. */
  readonly variable?: Variable;
  readonly layout?: Layout;
}

/** What a loader reads into each config field: a variable, a part, or nested fields. */
type Layout = Variable | Part | Fields;
type Fields = { readonly [field: string]: Layout };

const isVariable = (layout: Layout): layout is Variable => declared.includes(layout as Variable);
const isPart = (layout: Layout): layout is Part =>
  !isVariable(layout) && (layout as Part).schema !== undefined;

type Shape<F extends Fields> = {
  -readonly [K in keyof F]: F[K] extends Variable<infer S> | Part<infer S>
    ? S
    : F[K] extends Fields
      ? z.ZodPrefault<z.ZodObject<Shape<F[K]>>>
      : never;
};

/** The zod shape of `fields`: a variable's or a part's schema, nested fields an object defaulting to `{}`. */
function shape<F extends Fields>(fields: F): Shape<F> {
  return Object.fromEntries(
    Object.entries(fields).map(([field, inner]) => [
      field,
      isVariable(inner) || isPart(inner) ? inner.schema : z.object(shape(inner)).prefault({}),
    ]),
  ) as Shape<F>;
}

/** The raw values `layout` reads (unset and empty variables alike are `undefined`; secrets also from files). */
function read<L extends Layout>(
  env: Env,
  layout: L,
): L extends Variable ? string | undefined : L extends Group ? Record<keyof L, string | undefined> : unknown;
function read(env: Env, layout: Layout): unknown {
  if (isVariable(layout)) return layout.secret ? secretFrom(env, layout.name) : env[layout.name] || undefined;
  if (isPart(layout)) return layout.read ? layout.read(env) : read(env, layout.layout ?? {});
  return Object.fromEntries(Object.entries(layout).map(([field, inner]) => [field, read(env, inner)]));
}

/** Variable name by config field path (`platform.baseUrl` → `BADGE_BASE_URL`), for messages. */
function names(path: string, layout: Layout): Record<string, string> {
  if (isVariable(layout)) return { [path]: layout.name };
  if (isPart(layout)) {
    return {
      ...(layout.variable && { [path]: layout.variable.name }),
      ...(layout.layout && names(path, layout.layout)),
    };
  }
  return Object.fromEntries(
    Object.entries(layout).flatMap(([field, inner]) =>
      Object.entries(names(path === '' ? field : `${path}.${field}`, inner)),
    ),
  );
}

/**
 * Reads `NAME`, or the file named by `NAME_FILE` (trailing newline removed). An empty file is no secret, like
 * an empty variable: compose mounts a file for every secret, and an optional one (an API key) is left empty.
 */
function secretFrom(env: Env, name: string): string | undefined {
  const direct = env[name];
  if (direct !== undefined && direct !== '') return direct;
  const text = readVariableFile(`${name}_FILE`, env[`${name}_FILE`])?.replace(/\r?\n$/, '');
  return text === '' ? undefined : text;
}

/** The text of the file variable `name` names (`undefined` when unset); throws {@link ConfigError} naming it. */
function readVariableFile(name: string, file: string | undefined): string | undefined {
  if (file === undefined || file === '') return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `${name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/**
 * `schema` parsed from what `layout` reads in `env`; throws {@link ConfigError} naming the variable behind each
 * field (`names`, longest prefix).
 */
function load<T extends z.ZodType>(schema: T, env: Env, layout: Layout): Readonly<z.output<T>> {
  const parsed = schema.safeParse(read(env, layout));
  if (parsed.success) return Object.freeze(parsed.data);
  const fieldNames = names('', layout);
  const issues = formatIssues(parsed.error).map((issue) => {
    const [field = '', ...rest] = issue.split(': ');
    const prefix = Object.keys(fieldNames)
      .filter((path) => field === path || field.startsWith(`${path}.`))
      .sort((a, b) => b.length - a.length)[0];
    const name = prefix === undefined ? field : `${fieldNames[prefix]}${field.slice(prefix.length)}`;
    return `${name}: ${rest.join(': ')}`;
  });
  throw new ConfigError(`Invalid configuration: ${issues.join('; ')}`);
}

/** `true`/`false` (also `1`/`0`, `yes`/`no`) from the environment. */
const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const positiveInt = z.coerce.number().int().positive();
const port = z.coerce.number().int().min(0).max(65535);
/** A whole number of at least `min`, `fallback` when unset. */
const wholeNumber = (min: number, fallback: number) => z.coerce.number().int().min(min).default(fallback);

const TEMPORAL_CLIENTS: readonly ProcessName[] = ['worker', 'api', 'schedule', 'starter', 'ops'];
const WORKER: readonly ProcessName[] = ['worker'];
const WORKER_API: readonly ProcessName[] = ['worker', 'api'];
const PLATFORM_READERS: readonly ProcessName[] = ['worker', 'ops'];
const TRACED: readonly ProcessName[] = ['worker', 'api', 'starter'];

/** `LOG_LEVEL`, one declaration for the three servers. */
export const LOG_LEVEL = variable(
  'LOG_LEVEL',
  z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  'Log level: trace, debug, info, warn, error, fatal or silent.',
);

// ---- Temporal -------------------------------------------------------------------------------------------

const TEMPORAL = readBy(TEMPORAL_CLIENTS, {
  address: variable(
    'TEMPORAL_ADDRESS',
    z.string().min(1).default('127.0.0.1:7233'),
    'gRPC address of the Temporal frontend (read by @temporalio/envconfig).',
    { required: true },
  ),
  namespace: variable(
    'TEMPORAL_NAMESPACE',
    z.string().min(1).default('default'),
    'Temporal namespace of the orders (read by @temporalio/envconfig).',
    { required: true },
  ),
  taskQueue: variable(
    'TEMPORAL_TASK_QUEUE',
    z.string().min(1).default(DEFAULT_TASK_QUEUE),
    'Task queue of the orders.',
  ),
  webUiUrl: variable(
    'TEMPORAL_WEB_UI_URL',
    z.string().url().default('http://127.0.0.1:8233'),
    'Base URL of the Temporal Web UI, for links printed to people.',
  ),
});

// Read by @temporalio/envconfig as the Temporal CLI reads them; declared for the docs and the checks.
for (const [name, meaning, secret] of [
  ['TEMPORAL_API_KEY', 'API key of Temporal Cloud (or a server that wants one).', true],
  ['TEMPORAL_CONFIG_FILE', 'TOML file of connection profiles, as the Temporal CLI reads it.'],
  ['TEMPORAL_PROFILE', 'Profile of `TEMPORAL_CONFIG_FILE` to use.'],
  ['TEMPORAL_TLS', 'Connect with TLS (`true`) even without client certificates.'],
  ['TEMPORAL_TLS_CLIENT_CERT_PATH', 'Client certificate (PEM file) for mTLS.'],
  ['TEMPORAL_TLS_CLIENT_KEY_PATH', 'Client key (PEM file) for mTLS.'],
  [
    'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    'CA certificate (PEM file) the server’s certificate is checked against.',
  ],
  ['TEMPORAL_TLS_SERVER_NAME', 'Server name TLS expects (SNI), when it differs from the address’s host.'],
] as const) {
  readBy(TEMPORAL_CLIENTS, { [name]: text(name, meaning, { secret: secret === true }) });
}

/** `keyId=base64(32 bytes)` entries, newest first, parsed into a key ring; the message never holds a key. */
const payloadKeysSchema = z
  .string()
  .optional()
  .transform((text, context): PayloadKeyRing => {
    if (text === undefined || text.trim() === '') return PayloadKeyRing.empty();
    try {
      return parsePayloadKeys(text, '');
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const PAYLOAD = readBy(TEMPORAL_CLIENTS, {
  payloadKeys: variable(
    'PAYLOAD_KEYS',
    payloadKeysSchema,
    'Payload encryption keys, `keyId=base64(32 bytes)`, newest first (docs/security.md).',
    { required: true, secret: true, defaultText: 'none: required unless PAYLOAD_ENCRYPTION=off' },
  ),
  encryption: variable(
    'PAYLOAD_ENCRYPTION',
    z.enum(['on', 'off']).default('on'),
    '`off` stores payloads (vehicle and badge data) unencrypted: local experiments only.',
  ),
});

/**
 * Payload keys and whether encryption is on. Personal data must not reach Temporal in clear by omission: no
 * keys is refused unless `PAYLOAD_ENCRYPTION=off` says so; keys with `off` are a contradiction, refused too.
 */
const payloadCodecSchema = z.object(shape(PAYLOAD)).superRefine((codec, context) => {
  if (codec.encryption === 'on' && !codec.payloadKeys.encrypts) {
    context.addIssue({
      code: 'custom',
      path: ['payloadKeys'],
      message:
        'is required: set PAYLOAD_KEYS or PAYLOAD_KEYS_FILE, or PAYLOAD_ENCRYPTION=off to store payloads (vehicle and badge data) unencrypted',
    });
  }
  if (codec.encryption === 'off' && codec.payloadKeys.encrypts) {
    context.addIssue({
      code: 'custom',
      path: ['encryption'],
      message: 'is off but PAYLOAD_KEYS is set: remove one of them',
    });
  }
});

/**
 * How to reach Temporal, read the way the Temporal CLI and SDKs read it (`@temporalio/envconfig`): a TOML
 * profile overlaid with the standard variables. Only what Temporal's own configuration has no name for is
 * ours: the task queue, the Web UI address and the payload keys.
 */
const temporalConfigSchema = z.object({
  /** The connection profile (TLS files are read when connecting). @default none: plain text, no API key */
  profile: z.custom<ClientConfigProfile>((value) => typeof value === 'object' && value !== null).default({}),
  ...shape(TEMPORAL),
  codec: payloadCodecSchema,
});
export type TemporalConfig = z.infer<typeof temporalConfigSchema>;

/** Our variable names of earlier releases, and the standard names that replace them. */
const RENAMED_TEMPORAL_VARIABLES: Readonly<Record<string, string>> = {
  TEMPORAL_TLS_CERT_PATH: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_KEY_PATH: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
  TEMPORAL_TLS_CA_PATH: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
};

/** The connection profile as the Temporal CLI would build it from `env` (empty variables count as unset). */
function temporalProfileFromEnv(env: Env): ClientConfigProfile {
  const renamed = Object.keys(RENAMED_TEMPORAL_VARIABLES).filter((name) => env[name]);
  if (renamed.length > 0) {
    throw new ConfigError(
      `Invalid configuration: ${renamed
        .map((name) => `${name}: is no longer read; use ${RENAMED_TEMPORAL_VARIABLES[name]}`)
        .join('; ')}`,
    );
  }
  const set = Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
    ),
  );
  // Container secrets arrive as files; Temporal's own loader knows no `_FILE` form for the API key.
  const apiKey = secretFrom(env, 'TEMPORAL_API_KEY');
  if (apiKey !== undefined) set.TEMPORAL_API_KEY = apiKey;
  try {
    return loadClientConfigProfile({ overrideEnvVars: set });
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE: ${profileProblem(error)}`,
    );
  }
}

/**
 * What is wrong with the TOML profile, without its text: a TOML parser's message quotes the lines around the
 * mistake, and those may hold an API key or a client key.
 */
function profileProblem(error: unknown): string {
  const { line, column, codeblock } = (error ?? {}) as {
    line?: unknown;
    column?: unknown;
    codeblock?: unknown;
  };
  if (codeblock !== undefined && typeof line === 'number') {
    return `not valid TOML (line ${line}, column ${String(column)})`;
  }
  return error instanceof Error ? error.message : String(error);
}

const TEMPORAL_PART: Part<typeof temporalConfigSchema> = {
  schema: temporalConfigSchema,
  layout: { ...TEMPORAL, codec: PAYLOAD },
  read: (env) => {
    const profile = temporalProfileFromEnv(env);
    return {
      ...read(env, TEMPORAL),
      profile,
      address: profile.address,
      namespace: profile.namespace,
      codec: read(env, PAYLOAD),
    };
  },
};

/** Temporal settings for clients (starter, operator CLI). */
export function loadTemporalConfig(env: Env = process.env): Readonly<TemporalConfig> {
  return load(temporalConfigSchema, env, TEMPORAL_PART);
}

// ---- The platform ---------------------------------------------------------------------------------------

/** A variable holding JSON that `schema` validates; unset or blank is `undefined`. */
function jsonSetting<T extends z.ZodType>(schema: T, what: string) {
  return z
    .string()
    .optional()
    .transform((text, context): z.output<T> | undefined => {
      if (text === undefined || text.trim() === '') return undefined;
      let json: unknown;
      try {
        json = JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: `must be ${what}` });
        return z.NEVER;
      }
      const parsed = schema.safeParse(json);
      if (parsed.success) return parsed.data;
      context.addIssue({ code: 'custom', message: formatIssues(parsed.error).join('; ') });
      return z.NEVER;
    });
}

const PLATFORM = readBy(PLATFORM_READERS, {
  baseUrl: variable(
    'BADGE_BASE_URL',
    z.string().url().default('http://127.0.0.1:4010'),
    'Base URL of the Badge Ordering Platform: https://, or http:// on loopback.',
    { required: true },
  ),
  allowInsecureHttp: variable(
    'BADGE_ALLOW_INSECURE_HTTP',
    booleanFromEnv.default(false),
    'Allow http:// to a platform host other than this one (the password then travels in clear).',
  ),
  username: variable(
    'BADGE_USERNAME',
    z.string().min(1).optional(),
    'Platform user the worker logs in as (user credentials).',
    {
      required: true,
      defaultText: 'none: this and BADGE_PASSWORD, or BADGE_CLIENT_ID and BADGE_CLIENT_SECRET',
    },
  ),
  password: variable('BADGE_PASSWORD', z.string().min(1).optional(), 'Its password.', {
    required: true,
    secret: true,
    defaultText: 'none: required with BADGE_USERNAME',
  }),
  clientId: variable(
    'BADGE_CLIENT_ID',
    z.string().min(1).optional(),
    'Client id of client credentials (OAuth 2.0 client credentials grant), instead of BADGE_USERNAME.',
    { defaultText: 'none: user credentials' },
  ),
  clientSecret: variable('BADGE_CLIENT_SECRET', z.string().min(1).optional(), 'Its client secret.', {
    secret: true,
    defaultText: 'none: required with BADGE_CLIENT_ID',
  }),
  clientAuth: variable(
    'BADGE_CLIENT_AUTH',
    z.enum(['basic', 'body']).default('basic'),
    'How client credentials authenticate the token request: `basic` (HTTP Basic, RFC 6749 §2.3.1) or `body` (client_id and client_secret form fields).',
  ),
  tokenPath: variable(
    'BADGE_TOKEN_PATH',
    z
      .string()
      .regex(/^\/[^\s?#]*$/, 'must be a path starting with / (no query or fragment)')
      .default(PLATFORM_PATHS.token),
    'Path of the token request, relative to BADGE_BASE_URL, for either kind of credentials.',
  ),
  requestTimeoutMs: variable(
    'BADGE_REQUEST_TIMEOUT_MS',
    positiveInt.default(30_000),
    'Deadline of one platform request, ms.',
  ),
  uploadTimeoutMs: variable(
    'BADGE_UPLOAD_TIMEOUT_MS',
    positiveInt.default(30 * 60_000),
    'Deadline of one document upload, ms.',
  ),
  uploadStallMs: variable(
    'BADGE_UPLOAD_STALL_MS',
    positiveInt.optional(),
    'An upload is aborted and retried when no byte moved for this long, ms.',
    { defaultText: '30000' },
  ),
  minUploadBytesPerSecond: variable(
    'BADGE_MIN_UPLOAD_BYTES_PER_SECOND',
    positiveInt.optional(),
    'Slowest upload rate allowed for: an upload’s deadline grows with the file’s size.',
    { defaultText: '65536' },
  ),
  idempotencyKeys: variable(
    'BADGE_IDEMPOTENCY_KEYS',
    z.enum(['honoured', 'unknown']).default('unknown'),
    '`honoured`: an order creation of unknown outcome is resent with the same key (held for an operator once its retry window passes); `unknown`: it waits for an operator.',
  ),
  uploadUnknownOutcome: variable(
    'BADGE_UPLOAD_UNKNOWN_OUTCOME',
    z.enum(['retry', 'hold']).default('retry'),
    'After an upload that may have stored the file: `retry` (flagged possibleDuplicate) or `hold` (for a person’s reconcileDocument; the nightly replay leaves it).',
  ),
  responseMap: variable(
    'BADGE_RESPONSE_MAP',
    jsonSetting(responseMapSchema, 'a JSON object of JSON pointers'),
    'JSON pointers to the platform’s response fields, once known (`npm run ops -- probe` suggests them).',
  ),
  requestProfile: variable(
    'BADGE_REQUEST_PROFILE',
    jsonSetting(requestProfileSchema, 'a JSON object (docs/platform-client.md, “Request profile”)'),
    'JSON: the names, headers, stock query and path prefix requests are sent with (docs/platform-client.md, “Request profile”).',
    { defaultText: 'the specification’s names, a file part `file`' },
  ),
  tenantId: variable(
    'BADGE_TENANT_ID',
    z
      .string()
      .trim()
      .regex(/^[\x21-\x7e]{1,200}$/, 'must be printable ASCII without spaces')
      .optional(),
    'The tenant id the platform gave, sent where BADGE_REQUEST_PROFILE writes `{tenant}`; not a secret (it is logged in no request, though).',
  ),
  documentOwner: variable(
    'BADGE_DOCUMENT_OWNER',
    z.string().trim().min(1).max(64).optional(),
    'Platform user id sent as every upload’s `document_owner`, unless an order names its own.',
    { defaultText: 'read from the token' },
  ),
  userIdClaim: variable(
    'BADGE_USER_ID_CLAIM',
    z
      .string()
      .trim()
      .regex(/^[\w.:-]{1,100}$/, 'must be a claim name such as user_id')
      .optional(),
    'Token claim holding the platform user id (not with BADGE_DOCUMENT_OWNER).',
    { defaultText: 'user_id, userId, uid, sub, preferred_username, the first numeric one' },
  ),
});

/**
 * Why `baseUrl` must not be used to send credentials, or `undefined` when it may (`insecureUrlProblem`): the
 * password and the bearer token travel in every request, so plain HTTP over a network gives them away.
 */
export function insecureBaseUrlReason(baseUrl: string, allowInsecureHttp: boolean): string | undefined {
  return insecureUrlProblem(baseUrl, {
    allowInsecureHttp,
    inClear: { what: 'the password and token', variable: 'BADGE_ALLOW_INSECURE_HTTP' },
    credentialsHint: 'use BADGE_USERNAME and BADGE_PASSWORD',
  });
}

/**
 * Which credentials the platform was given (spec: "either a client id and secret or user credentials"): exactly
 * one kind, each complete; otherwise issues naming the variables.
 */
function checkCredentials(
  platform: Pick<PlatformSettings, 'username' | 'password' | 'clientId' | 'clientSecret'>,
  context: z.RefinementCtx,
): void {
  const issue = (path: keyof typeof platform, message: string): void =>
    context.addIssue({ code: 'custom', path: [path], message });
  const user = platform.username !== undefined || platform.password !== undefined;
  const client = platform.clientId !== undefined || platform.clientSecret !== undefined;
  if (user && client) {
    issue(
      'clientId',
      'must not be set together with BADGE_USERNAME or BADGE_PASSWORD: configure one kind of credentials (BADGE_CLIENT_ID and BADGE_CLIENT_SECRET, or BADGE_USERNAME and BADGE_PASSWORD)',
    );
  } else if (client) {
    if (platform.clientId === undefined) issue('clientId', 'is required with BADGE_CLIENT_SECRET');
    if (platform.clientSecret === undefined) issue('clientSecret', 'is required with BADGE_CLIENT_ID');
  } else {
    if (platform.username === undefined) {
      issue(
        'username',
        'is required (with BADGE_PASSWORD), or set BADGE_CLIENT_ID and BADGE_CLIENT_SECRET for client credentials',
      );
    }
    if (platform.password === undefined) issue('password', 'is required');
  }
}

type PlatformSettings = z.output<z.ZodObject<Shape<typeof PLATFORM>>>;

/** The configured credentials, of the kind {@link checkCredentials} let through. */
function credentialsOf(
  platform: Pick<PlatformSettings, 'username' | 'password' | 'clientId' | 'clientSecret' | 'clientAuth'>,
): PlatformCredentials {
  const { username, password, clientId, clientSecret, clientAuth } = platform;
  if (clientId !== undefined && clientSecret !== undefined) return { clientId, clientSecret, clientAuth };
  return { username: username ?? '', password: password ?? '' };
}

/** Settings of the platform the worker talks to. */
const platformConfigSchema = z
  .object(shape(PLATFORM))
  .superRefine((platform, context) => {
    checkCredentials(platform, context);
    const reason = insecureBaseUrlReason(platform.baseUrl, platform.allowInsecureHttp);
    if (reason !== undefined) context.addIssue({ code: 'custom', path: ['baseUrl'], message: reason });
    const tenant = tenantProblem(platform.requestProfile, platform.tenantId);
    if (tenant !== undefined) {
      context.addIssue({ code: 'custom', path: [tenant.setting], message: tenant.message });
    }
    if (platform.documentOwner !== undefined && platform.userIdClaim !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['userIdClaim'],
        message: 'must not be set together with BADGE_DOCUMENT_OWNER: set one of them',
      });
    }
  })
  .transform((platform) => {
    const { username, password, clientId, clientSecret, clientAuth, ...rest } = platform;
    return {
      ...rest,
      credentials: credentialsOf({ username, password, clientId, clientSecret, clientAuth }),
    };
  });
export type PlatformConfig = z.infer<typeof platformConfigSchema>;

/** The platform settings alone (`npm run ops -- probe`); throws {@link ConfigError} naming each variable. */
export function loadPlatformConfig(env: Env): Readonly<PlatformConfig> {
  return load(platformConfigSchema, env, PLATFORM);
}

// ---- Tracing --------------------------------------------------------------------------------------------

const TRACING = readBy(TRACED, {
  endpoint: variable(
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    z.string().url().optional(),
    'Where spans are sent, as is; tracing is off without an endpoint.',
  ),
  protocol: variable(
    'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
    'http/protobuf or http/json (gRPC is not supported).',
  ),
  headers: variable(
    'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
    z.record(z.string(), z.string()).default({}),
    '`key=value,…` sent with every export, e.g. a collector’s API key; never logged.',
    { secret: true },
  ),
  serviceName: variable('OTEL_SERVICE_NAME', z.string().min(1).optional(), 'Service name of the spans.', {
    defaultText: 'the process’s own (badge-orders-worker, …)',
  }),
  exportTimeoutMs: variable(
    'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
    positiveInt.default(10_000),
    'Deadline of one export, ms.',
  ),
  scheduleDelayMs: variable(
    'OTEL_BSP_SCHEDULE_DELAY',
    positiveInt.default(5_000),
    'Longest time a finished span waits in the batch, ms.',
  ),
});
/** The variables of every signal, read where the traces' own are unset, and the switches of the SDK. */
const OTLP = readBy(TRACED, {
  endpoint: text('OTEL_EXPORTER_OTLP_ENDPOINT', 'Collector base URL; spans go to its `/v1/traces`.'),
  protocol: text('OTEL_EXPORTER_OTLP_PROTOCOL', 'As OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, for every signal.'),
  headers: text('OTEL_EXPORTER_OTLP_HEADERS', 'As OTEL_EXPORTER_OTLP_TRACES_HEADERS, for every signal.', {
    secret: true,
  }),
  timeout: text('OTEL_EXPORTER_OTLP_TIMEOUT', 'As OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, for every signal.'),
  disabled: text('OTEL_SDK_DISABLED', '`true`: no tracing.', { defaultText: 'false' }),
  exporter: text('OTEL_TRACES_EXPORTER', '`otlp`, or `none`: no tracing.', { defaultText: 'otlp' }),
});

/** Trace export over OTLP (docs/observability.md); `endpoint` undefined means off. */
const tracingConfigSchema = z.object(shape(TRACING));
export type TracingConfig = z.infer<typeof tracingConfigSchema>;

/** `key=value,…` as the OpenTelemetry variables write headers (values percent-encoded). */
function otlpHeaders(text: string | undefined): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const entry of (text ?? '').split(',')) {
    if (entry.trim() === '') continue;
    const equals = entry.indexOf('=');
    if (equals <= 0) return 'must be key=value pairs separated by commas';
    try {
      headers[decodeURIComponent(entry.slice(0, equals).trim())] = decodeURIComponent(
        entry.slice(equals + 1).trim(),
      );
    } catch {
      return 'must be percent-encoded key=value pairs';
    }
  }
  return headers;
}

/** The trace settings from the standard OpenTelemetry variables (the traces-specific one wins). */
const TRACING_PART = { schema: tracingConfigSchema.prefault({}), layout: TRACING, read: tracingFromEnv };
function tracingFromEnv(env: Env): Record<string, unknown> {
  const traces = read(env, TRACING);
  const all = read(env, OTLP);
  const exporter = all.exporter?.trim() || 'otlp';
  const disabled = /^true$/i.test(all.disabled ?? '') || exporter === 'none';
  if (!disabled && exporter !== 'otlp') {
    throw new ConfigError(
      `Invalid configuration: OTEL_TRACES_EXPORTER: must be otlp or none, not ${exporter}`,
    );
  }
  const endpoint =
    traces.endpoint ??
    (all.endpoint === undefined ? undefined : `${all.endpoint.replace(/\/+$/, '')}/v1/traces`);
  const headers = otlpHeaders(traces.headers ?? all.headers);
  if (typeof headers === 'string') {
    throw new ConfigError(`Invalid configuration: OTEL_EXPORTER_OTLP_HEADERS: ${headers}`);
  }
  // Headers are a collector's credentials (an API key): never in clear off this machine.
  const inClear =
    disabled || endpoint === undefined || Object.keys(headers).length === 0
      ? undefined
      : insecureUrlProblem(endpoint);
  if (inClear !== undefined) {
    throw new ConfigError(
      `Invalid configuration: OTEL_EXPORTER_OTLP_HEADERS: are sent with every export, so the endpoint ${inClear} (or send no headers)`,
    );
  }
  return {
    ...traces,
    endpoint: disabled ? undefined : endpoint,
    protocol: traces.protocol ?? all.protocol,
    headers,
    exportTimeoutMs: traces.exportTimeoutMs ?? all.timeout,
  };
}

/** Trace settings for clients (the starter, backend code); throws {@link ConfigError} naming each variable. */
export function loadTracingConfig(env: Env = process.env): Readonly<TracingConfig> {
  return load(tracingConfigSchema, env, TRACING_PART);
}

// ---- Webhooks -------------------------------------------------------------------------------------------

/** Shortest webhook secret accepted: an HMAC key guessable by brute force signs nothing. */
const MIN_WEBHOOK_SECRET_LENGTH = 16;

/** Where webhooks may go (`CallbackUrlPolicy`), read the same way by the worker and the HTTP API. */
const WEBHOOK_POLICY = readBy(WORKER_API, {
  allowHttpLoopback: variable(
    'WEBHOOK_ALLOW_HTTP_LOOPBACK',
    booleanFromEnv.default(false),
    'Deliver webhooks to this machine, http:// too (tests, local receivers).',
  ),
  allowedHosts: variable(
    'WEBHOOK_ALLOWED_HOSTS',
    z
      .string()
      .transform((list, ctx) => {
        const entries = list
          .split(',')
          .map((entry) => entry.trim().toLowerCase())
          .filter((entry) => entry !== '');
        // `*`: any host with public addresses, said on purpose (docker-compose.yml requires the variable).
        if (entries.includes('*')) {
          if (entries.length > 1) {
            ctx.addIssue({
              code: 'custom',
              message: '"*" allows any host: give it alone, or list the hosts',
            });
          }
          return [];
        }
        for (const entry of entries.filter((candidate) => listedHost(candidate) === null)) {
          ctx.addIssue({
            code: 'custom',
            message: `"${entry}" is not a host name, *.domain or IP address with an optional :port (hosts are separated by commas)`,
          });
        }
        return entries;
      })
      .default([]),
    'Comma-separated hosts callback URLs may name, on 443 or `:port` (`hooks.example.com`, `*.partner.example:8443`; listed hosts may be internal); `*`: any.',
    { required: true, defaultText: 'any host with public addresses' },
  ),
});
const callbackUrlPolicySchema = z.object(shape(WEBHOOK_POLICY));

const WEBHOOK_SECRETS = readBy(WORKER, {
  secrets: variable(
    'WEBHOOK_SECRETS_FILE',
    z
      .record(z.string(), z.unknown(), { error: 'must be a JSON object of client id to secret' })
      // Refused by the entry's position, never its text: with client id and secret swapped, either is the secret.
      .superRefine((secrets, context) => {
        Object.entries(secrets).forEach(([clientId, secret], index) => {
          const problem = !CLIENT_ID_PATTERN.test(clientId)
            ? 'the client id must be 1-64 letters, digits, ".", "_", ":" or "-"'
            : typeof secret !== 'string'
              ? 'the secret must be a string'
              : secret.length < MIN_WEBHOOK_SECRET_LENGTH
                ? `the secret must be at least ${MIN_WEBHOOK_SECRET_LENGTH} characters`
                : undefined;
          if (problem !== undefined) {
            context.addIssue({
              code: 'custom',
              message: `entry ${index + 1}: ${problem} (is the secret where the client id belongs?)`,
            });
          }
        });
      })
      .transform((secrets) => secrets as Record<string, string>)
      .default({}),
    'JSON file `{ "<clientId>": "<secret>", "default": "<secret>" }` of webhook signing secrets (`default`: orders without a client only).',
    { defaultText: 'none: deliveries fail visibly' },
  ),
}).secrets;

/** Webhook signing (docs/webhooks.md) with the delivery policy; secrets never enter history, logs or errors. */
export const webhookConfigSchema = callbackUrlPolicySchema.extend({ secrets: WEBHOOK_SECRETS.schema });
export type WebhookConfig = z.infer<typeof webhookConfigSchema>;

/** The JSON of the file `variable` names, for its schema; the file's content never appears in a message. */
function jsonFile<S extends z.ZodType>(variable: Variable<S>): Part<S> {
  return {
    schema: variable.schema,
    variable,
    read: (env) => {
      const file = env[variable.name];
      const text = readVariableFile(variable.name, file);
      if (text === undefined) return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new ConfigError(`${variable.name}: ${file} is not valid JSON`);
      }
    },
  };
}

// ---- Documents ------------------------------------------------------------------------------------------

/** Worker and API alike: where document paths are relative to, the largest document. */
export const DOCUMENTS = readBy(WORKER_API, {
  documentsRoot: variable(
    'DOCUMENTS_ROOT',
    z
      .string()
      .min(1)
      .default('./documents')
      .transform((path) => resolve(path)),
    'Folder document paths are relative to (worker), and the local store’s home.',
  ),
  maxDocumentBytes: variable(
    'MAX_DOCUMENT_BYTES',
    positiveInt.default(1024 * 1024 * 1024),
    'Largest document uploaded (worker) or stored (API), bytes.',
  ),
});

const STORE_KIND = readBy(WORKER_API, {
  kind: text('DOCUMENT_STORE', 'Where documents named by reference are kept: `local` or `s3`.', {
    defaultText: 'local',
  }),
}).kind;
const LOCAL_STORE = readBy(WORKER_API, {
  root: variable('DOCUMENT_STORE_LOCAL_ROOT', z.string().min(1).optional(), 'Folder of the local store.', {
    defaultText: '.document-store under DOCUMENTS_ROOT',
  }),
});
/** `DOCUMENT_STORE_S3_TIMEOUT_MS` when unset, and of a store built in code without it. */
export const S3_TIMEOUT_DEFAULT_MS = 30_000;
const S3_STORE = readBy(WORKER_API, {
  bucket: variable(
    'DOCUMENT_STORE_S3_BUCKET',
    z
      .string({ error: 'is required with DOCUMENT_STORE=s3' })
      .min(3, 'must be a bucket name (3 to 63 characters)')
      .max(63, 'must be a bucket name (3 to 63 characters)'),
    'The S3 bucket (it must exist).',
    { defaultText: 'none: required with s3' },
  ),
  prefix: variable(
    'DOCUMENT_STORE_S3_PREFIX',
    z.string().max(512).optional(),
    'Prefix of every key, e.g. `badge-orders/`.',
  ),
  endpoint: variable('DOCUMENT_STORE_S3_ENDPOINT', z.string().optional(), 'URL of an S3-compatible server.', {
    defaultText: 'AWS',
  }),
  region: variable('DOCUMENT_STORE_S3_REGION', z.string().min(1).optional(), 'Region.', {
    defaultText: 'the SDK’s; us-east-1 with an endpoint',
  }),
  forcePathStyle: variable(
    'DOCUMENT_STORE_S3_FORCE_PATH_STYLE',
    booleanFromEnv.optional(),
    'Path-style bucket addressing.',
    { defaultText: 'true with an endpoint' },
  ),
  allowInsecureHttp: variable(
    'DOCUMENT_STORE_S3_ALLOW_INSECURE_HTTP',
    booleanFromEnv.default(false),
    'Allow an http:// endpoint off loopback.',
  ),
  timeoutMs: variable(
    'DOCUMENT_STORE_S3_TIMEOUT_MS',
    wholeNumber(100, S3_TIMEOUT_DEFAULT_MS),
    'A call to S3 fails (retryable) when connecting, or a connection on which nothing moves, takes this long, ms.',
  ),
});
const S3_CREDENTIALS = readBy(WORKER_API, {
  accessKeyId: variable('DOCUMENT_STORE_S3_ACCESS_KEY_ID', z.string().min(1).optional(), 'Access key id.', {
    secret: true,
    defaultText: 'the SDK’s chain',
  }),
  secretAccessKey: variable(
    'DOCUMENT_STORE_S3_SECRET_ACCESS_KEY',
    z.string().min(1).optional(),
    'Secret access key.',
    { secret: true, defaultText: 'the SDK’s chain' },
  ),
  sessionToken: variable('DOCUMENT_STORE_S3_SESSION_TOKEN', z.string().min(1).optional(), 'Session token.', {
    secret: true,
  }),
});

const s3DocumentStoreConfigSchema = z
  .object({
    kind: z.literal('s3'),
    ...shape(S3_STORE),
    credentials: z.object(shape(S3_CREDENTIALS)).optional(),
  })
  .superRefine((store, context) => {
    if (store.endpoint !== undefined) {
      const reason = insecureUrlProblem(store.endpoint, {
        allowInsecureHttp: store.allowInsecureHttp,
        inClear: { what: 'documents', variable: 'DOCUMENT_STORE_S3_ALLOW_INSECURE_HTTP' },
        credentialsHint: 'use DOCUMENT_STORE_S3_ACCESS_KEY_ID and DOCUMENT_STORE_S3_SECRET_ACCESS_KEY',
      });
      if (reason !== undefined) context.addIssue({ code: 'custom', path: ['endpoint'], message: reason });
    }
    const { accessKeyId, secretAccessKey } = store.credentials ?? {};
    if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['credentials', accessKeyId === undefined ? 'accessKeyId' : 'secretAccessKey'],
        message: 'is required when the other half of the key is set',
      });
    }
  });

/** Where documents named by reference are kept (docs/documents.md): `local` (the default) or `s3`. */
export const documentStoreConfigSchema = z
  .discriminatedUnion(
    'kind',
    [z.object({ kind: z.literal('local'), ...shape(LOCAL_STORE) }), s3DocumentStoreConfigSchema],
    { error: 'must be local or s3' },
  )
  .default({ kind: 'local' });
export type DocumentStoreConfig = z.infer<typeof documentStoreConfigSchema>;

/** The document store's settings (for {@link documentStoreConfigSchema}), read as their kind says. */
export const DOCUMENT_STORE: Part<typeof documentStoreConfigSchema> = {
  schema: documentStoreConfigSchema,
  variable: STORE_KIND,
  layout: { kind: STORE_KIND, ...LOCAL_STORE, ...S3_STORE, credentials: S3_CREDENTIALS },
  read: (env) => {
    const kind = read(env, STORE_KIND);
    if (kind === undefined) return undefined;
    if (kind !== 's3') return { kind, ...read(env, LOCAL_STORE) };
    const credentials = read(env, S3_CREDENTIALS);
    return {
      kind,
      ...read(env, S3_STORE),
      ...(Object.values(credentials).some((value) => value !== undefined) && { credentials }),
    };
  },
};

// ---- The worker -----------------------------------------------------------------------------------------

const ENSURE_SEARCH_ATTRIBUTES = variable(
  'ENSURE_SEARCH_ATTRIBUTES',
  booleanFromEnv.default(true),
  'Make sure the search attributes exist at start-up.',
);

const WORKER_SETTINGS = readBy(WORKER, {
  maxConcurrentActivities: variable(
    'WORKER_MAX_CONCURRENT_ACTIVITIES',
    positiveInt.default(50),
    'Activities run at once by one worker.',
  ),
  shutdownGraceMs: variable(
    'WORKER_SHUTDOWN_GRACE_MS',
    wholeNumber(0, 50_000),
    'After SIGTERM, how long running activities may finish before they are cancelled, ms (below the stop period).',
  ),
  logLevel: LOG_LEVEL,
  metricsPort: variable(
    'METRICS_PORT',
    port.optional(),
    'Port of the Prometheus metrics endpoint; off when unset.',
    { defaultText: 'off' },
  ),
  metricsHost: variable(
    'METRICS_HOST',
    z.string().min(1).default('127.0.0.1'),
    'Interface the metrics endpoint listens on (a container sets 0.0.0.0).',
  ),
  statusMetricsIntervalMs: variable(
    'STATUS_METRICS_INTERVAL_MS',
    wholeNumber(1000, 60_000),
    'How often the order and replay gauges are read from visibility, ms.',
  ),
  workflowBundlePath: variable(
    'WORKFLOW_BUNDLE_PATH',
    z.string().min(1).optional(),
    'A workflow bundle built ahead of time (images); bundled at start-up when unset.',
  ),
  ensureSearchAttributes: ENSURE_SEARCH_ATTRIBUTES,
});

const VERSIONING = readBy(WORKER, {
  enabled: variable(
    'WORKER_VERSIONING',
    booleanFromEnv.default(false),
    'Poll as one version of a Worker Deployment; orders stay on the version they started on.',
  ),
  deploymentName: variable(
    'WORKER_DEPLOYMENT_NAME',
    z.string().min(1).max(255).default('badge-orders'),
    'Name of the Worker Deployment.',
  ),
  buildId: variable(
    'WORKER_BUILD_ID',
    z
      .string()
      .min(1)
      .max(255)
      .regex(/^[\w.+-]+$/, 'may contain only letters, digits, ".", "_", "+" and "-"')
      .optional(),
    'Build id of this version.',
    { defaultText: 'the package version and the bundle’s content hash' },
  ),
});

const WORKER_LAYOUT = {
  temporal: TEMPORAL_PART,
  platform: { schema: platformConfigSchema, layout: PLATFORM },
  ...DOCUMENTS,
  /** Where documents named by reference are kept. @default the local store under DOCUMENTS_ROOT */
  documentStore: DOCUMENT_STORE,
  ...WORKER_SETTINGS,
  versioning: VERSIONING,
  /** Trace export; off unless an OTLP endpoint is configured. */
  tracing: TRACING_PART,
  webhooks: { secrets: jsonFile(WEBHOOK_SECRETS), ...WEBHOOK_POLICY },
};
/** Everything the worker needs. */
export const workerConfigSchema = z.object(shape(WORKER_LAYOUT));
export type WorkerConfig = z.infer<typeof workerConfigSchema>;

/** The worker's configuration; throws {@link ConfigError} naming each invalid variable. */
export function loadWorkerConfig(env: Env): Readonly<WorkerConfig> {
  return load(workerConfigSchema, env, WORKER_LAYOUT);
}

// ---- The nightly replay's Schedule ----------------------------------------------------------------------

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const REPLAY = readBy(['schedule'], {
  time: variable(
    'REPLAY_SCHEDULE_TIME',
    z
      .string()
      .regex(/^([01]\d|2[0-3]):([0-5]\d)$/, 'must be HH:MM (24-hour clock)')
      .default('02:00')
      .transform((time) => {
        const [hour = '0', minute = '0'] = time.split(':');
        return { hour: Number(hour), minute: Number(minute) };
      }),
    'Time of day the nightly replay of failed uploads starts, HH:MM.',
  ),
  timezone: variable(
    'REPLAY_SCHEDULE_TIMEZONE',
    z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').default('Europe/Berlin'),
    'IANA time zone of REPLAY_SCHEDULE_TIME (daylight saving time is followed).',
  ),
  maxConcurrentSignals: variable(
    'REPLAY_MAX_CONCURRENT_SIGNALS',
    z.coerce.number().int().min(1).max(100).default(10),
    'Signals the replay sends at the same time.',
  ),
});

/** The nightly replay's Schedule (`npm run schedule`, `npm run ops -- replay-now`). */
const REPLAY_LAYOUT = { temporal: TEMPORAL_PART, ...REPLAY };
const replayScheduleConfigSchema = z.object(shape(REPLAY_LAYOUT));
/** Configuration of the replay Schedule's tools; throws {@link ConfigError} naming each invalid variable. */
export function loadReplayScheduleConfig(env: Env) {
  return load(replayScheduleConfigSchema, env, REPLAY_LAYOUT);
}

// ---- The codec server -----------------------------------------------------------------------------------

const CODEC_SERVER = readBy(['codec-server'], {
  payloadKeys: PAYLOAD.payloadKeys,
  port: variable('CODEC_SERVER_PORT', port.default(8888), 'Port of the codec server.'),
  host: variable(
    'CODEC_SERVER_HOST',
    z.string().min(1).default('127.0.0.1'),
    'Interface the codec server listens on.',
  ),
  corsOrigin: variable(
    'CODEC_CORS_ORIGIN',
    z
      .string()
      .url()
      .default('http://127.0.0.1:8233')
      .transform((origin) => new URL(origin).origin),
    'The only browser origin allowed (CORS): the Web UI.',
  ),
  token: variable(
    'CODEC_SERVER_TOKEN',
    z.string().min(16, 'must be at least 16 characters').optional(),
    'Bearer token operators and the CLI send.',
    { required: true, secret: true, defaultText: 'none: required unless UI access tokens are on' },
  ),
  allowUiAccessToken: variable(
    'CODEC_ALLOW_UI_ACCESS_TOKEN',
    booleanFromEnv.default(false),
    'Also accept the Web UI’s access token (a JWT checked against CODEC_UI_JWKS_URL).',
  ),
  uiJwksUrl: variable(
    'CODEC_UI_JWKS_URL',
    z.string().url().optional(),
    'JWKS of the identity provider of the Web UI’s access tokens.',
  ),
  uiTokenIssuer: variable(
    'CODEC_UI_TOKEN_ISSUER',
    z.string().min(1).optional(),
    'Expected `iss` of the Web UI’s access tokens.',
  ),
  uiTokenAudience: variable(
    'CODEC_UI_TOKEN_AUDIENCE',
    z.string().min(1).optional(),
    'Expected `aud` of the Web UI’s access tokens.',
  ),
  tlsCertFile: variable(
    'CODEC_TLS_CERT_FILE',
    z.string().min(1).optional(),
    'PEM certificate: serve HTTPS (with CODEC_TLS_KEY_FILE).',
  ),
  tlsKeyFile: variable('CODEC_TLS_KEY_FILE', z.string().min(1).optional(), 'PEM key of CODEC_TLS_CERT_FILE.'),
  logLevel: LOG_LEVEL,
});

/** The codec server (`npm run codec-server`): decrypts payloads for the Web UI and the CLI. */
const codecServerConfigSchema = z
  .object({
    ...shape(CODEC_SERVER),
    payloadKeys: PAYLOAD.payloadKeys.schema.refine(
      (keys) => keys.encrypts,
      'is required (the keys to decode with)',
    ),
  })
  .superRefine((config, context) => {
    if (config.allowUiAccessToken) {
      for (const field of ['uiJwksUrl', 'uiTokenIssuer', 'uiTokenAudience'] as const) {
        if (!config[field]) {
          context.addIssue({
            code: 'custom',
            path: [field],
            message: 'is required to check UI access tokens',
          });
        }
      }
    }
    if ((config.tlsCertFile === undefined) !== (config.tlsKeyFile === undefined)) {
      context.addIssue({
        code: 'custom',
        path: [config.tlsCertFile === undefined ? 'tlsCertFile' : 'tlsKeyFile'],
        message:
          'is required with the other TLS file (set both CODEC_TLS_CERT_FILE and CODEC_TLS_KEY_FILE, or neither)',
      });
    }
    if (!config.token && !config.allowUiAccessToken) {
      context.addIssue({
        code: 'custom',
        path: ['token'],
        message: 'is required (or CODEC_ALLOW_UI_ACCESS_TOKEN=true with CODEC_UI_JWKS_URL)',
      });
    }
  });
/** The codec server's configuration; throws {@link ConfigError} naming each invalid variable. */
export function loadCodecServerConfig(env: Env) {
  return load(codecServerConfigSchema, env, CODEC_SERVER);
}

// ---- Shared with the HTTP API (src/api/config.ts) --------------------------------------------------------

export { jsonFile, load, port, read as readVariables, readBy, shape as variableShape, variable };
export { wholeNumber, WEBHOOK_POLICY, ENSURE_SEARCH_ATTRIBUTES };
