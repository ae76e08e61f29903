/**
 * Configuration of the service's processes, parsed once at the process edge from the environment. Nothing
 * else reads `process.env`. Secrets may come from files (`*_FILE`), as container secrets do.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadClientConfigProfile, type ClientConfigProfile } from '@temporalio/envconfig';
import { z } from 'zod';
import { PayloadKeyRing, parsePayloadKeys } from './codec/key-ring';
import { responseMapSchema, type ResponseMap } from './platform/extract';
import { DEFAULT_TASK_QUEUE, formatIssues } from './contract';
import { bareHostname, insecureUrlProblem } from './url-policy';

/** Thrown when the environment is invalid; the message names every variable concerned. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads `NAME`, or the file named by `NAME_FILE` (trailing newline removed). An empty file is no secret, like
 * an empty variable: compose mounts a file for every secret, and an optional one (an API key) is left empty.
 */
function secretFrom(env: Env, name: string): string | undefined {
  const direct = env[name];
  if (direct !== undefined && direct !== '') return direct;
  const file = env[`${name}_FILE`];
  if (file === undefined || file === '') return undefined;
  try {
    const text = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    return text === '' ? undefined : text;
  } catch (error) {
    throw new ConfigError(
      `${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
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

/**
 * Payload keys and whether encryption is on. Personal data must not reach Temporal in clear by omission: no
 * keys is refused unless `PAYLOAD_ENCRYPTION=off` says so; keys with `off` are a contradiction, refused too.
 */
const payloadCodecSchema = z
  .object({
    payloadKeys: payloadKeysSchema,
    /** `PAYLOAD_ENCRYPTION`: `off` only for local experiments. @default on */
    encryption: z.enum(['on', 'off']).default('on'),
  })
  .superRefine((codec, context) => {
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

/** `true`/`false` (also `1`/`0`, `yes`/`no`) from the environment. */
export const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/**
 * How to reach Temporal, read the way the Temporal CLI and SDKs read it (`@temporalio/envconfig`): a TOML
 * profile (`TEMPORAL_CONFIG_FILE`, `TEMPORAL_PROFILE`) overlaid with the standard variables (`TEMPORAL_ADDRESS`,
 * `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS_CLIENT_CERT_PATH`, …). Only what Temporal's own
 * configuration has no name for is ours: the task queue, the Web UI address and the payload keys.
 */
export const temporalConfigSchema = z.object({
  /** The connection profile (TLS files are read when connecting). @default none: plain text, no API key */
  profile: z.custom<ClientConfigProfile>((value) => typeof value === 'object' && value !== null).default({}),
  /** gRPC address. @default 127.0.0.1:7233 */
  address: z.string().min(1).default('127.0.0.1:7233'),
  /** @default default */
  namespace: z.string().min(1).default('default'),
  /** @default badge-orders */
  taskQueue: z.string().min(1).default(DEFAULT_TASK_QUEUE),
  /** Base URL of the Web UI, for links printed to people. @default http://127.0.0.1:8233 */
  webUiUrl: z.string().url().default('http://127.0.0.1:8233'),
  /**
   * Payload encryption (docs/security.md): the key ring from `PAYLOAD_KEYS` / `PAYLOAD_KEYS_FILE`, required
   * unless `PAYLOAD_ENCRYPTION=off` says explicitly that payloads are stored unencrypted.
   */
  codec: payloadCodecSchema,
});
/** Parsed Temporal connection settings. */
export type TemporalConfig = z.infer<typeof temporalConfigSchema>;

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

/** The platform settings' fields; {@link platformConfigSchema} adds the checks across them. */
const platformConfigFields = z.object({
  /**
   * `https://`, or `http://` on loopback; `http://` to another host only with `allowInsecureHttp`.
   * @default http://127.0.0.1:4010 (the sandbox's default port)
   */
  baseUrl: z.string().url().default('http://127.0.0.1:4010'),
  /** `BADGE_ALLOW_INSECURE_HTTP`: allow `http://` to a host other than this one. @default false */
  allowInsecureHttp: booleanFromEnv.default(false),
  username: z.string().min(1, 'is required'),
  password: z.string().min(1, 'is required'),
  /** @default 30000 */
  requestTimeoutMs: z.coerce.number().int().positive().default(30_000),
  /** @default 1800000 (30 minutes: large uploads) */
  uploadTimeoutMs: z.coerce
    .number()
    .int()
    .positive()
    .default(30 * 60_000),
  /**
   * Whether the platform is known to honour `Idempotency-Key` (see `npm run ops -- probe`). `honoured`: an
   * order creation whose outcome is unknown is sent again with the same key; `unknown`: such an order waits
   * in AwaitingReconciliation for an operator. @default unknown
   */
  idempotencyKeys: z.enum(['honoured', 'unknown']).default('unknown'),
  /**
   * What an upload does after an attempt that may have stored the file: `retry` (flagged possibleDuplicate)
   * or `hold` (the document waits for repair). @default retry
   */
  uploadUnknownOutcome: z.enum(['retry', 'hold']).default('retry'),
  /** An upload is aborted and retried when no byte moved for this long. @default 30000 */
  uploadStallMs: z.coerce.number().int().positive().optional(),
  /** Slowest upload rate allowed for: an upload's deadline grows with the file's size. @default 65536 */
  minUploadBytesPerSecond: z.coerce.number().int().positive().optional(),
  /**
   * JSON pointers to the platform's response fields, once known (`npm run ops -- probe` suggests them); they
   * win over the client's guesses. Example: `{"orderId":"/data/id","links":{"original":"/urls/original"}}`.
   */
  responseMap: z
    .string()
    .optional()
    .transform((text, context): ResponseMap | undefined => {
      if (text === undefined || text.trim() === '') return undefined;
      let json: unknown;
      try {
        json = JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'must be a JSON object of JSON pointers' });
        return z.NEVER;
      }
      const parsed = responseMapSchema.safeParse(json);
      if (parsed.success) return parsed.data;
      context.addIssue({ code: 'custom', message: formatIssues(parsed.error).join('; ') });
      return z.NEVER;
    }),
  /**
   * `BADGE_DOCUMENT_OWNER`: the platform user id sent as every upload's `document_owner` (one platform user for
   * every order), unless an order names its own `documentOwner`. @default read from the token (see userIdClaim)
   */
  documentOwner: z.string().trim().min(1).max(64).optional(),
  /**
   * `BADGE_USER_ID_CLAIM`: the token claim that holds the platform user id for `document_owner` (e.g. `user_id`
   * when `sub` is a UUID; `npm run ops -- probe` names it). @default the default chain: `user_id`, `userId`,
   * `uid`, `sub`, `preferred_username`, the first numeric one (docs/platform-client.md)
   */
  userIdClaim: z
    .string()
    .trim()
    .regex(/^[\w.:-]{1,100}$/, 'must be a claim name such as user_id')
    .optional(),
});

/** Settings of the platform the worker talks to. */
export const platformConfigSchema = platformConfigFields.superRefine((platform, context) => {
  const reason = insecureBaseUrlReason(platform.baseUrl, platform.allowInsecureHttp);
  if (reason !== undefined) context.addIssue({ code: 'custom', path: ['baseUrl'], message: reason });
  if (platform.documentOwner !== undefined && platform.userIdClaim !== undefined) {
    context.addIssue({
      code: 'custom',
      path: ['userIdClaim'],
      message: 'must not be set together with BADGE_DOCUMENT_OWNER: set one of them',
    });
  }
});
/** Parsed platform settings. */
export type PlatformConfig = z.infer<typeof platformConfigSchema>;

/**
 * Trace export over OTLP (docs/observability.md), read from the standard OpenTelemetry variables. Off unless an
 * endpoint is configured, and then nothing is traced and nothing is loaded.
 */
export const tracingConfigSchema = z.object({
  /**
   * Where spans are sent: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, or `OTEL_EXPORTER_OTLP_ENDPOINT` +
   * `/v1/traces`. Tracing is off when absent, or when `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
   */
  endpoint: z.string().url().optional(),
  /** `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`; gRPC is not supported. @default http/protobuf */
  protocol: z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
  /** `OTEL_EXPORTER_OTLP_(TRACES_)HEADERS` (or `_FILE`): `key=value,…`, e.g. a collector's API key. Never logged. */
  headers: z.record(z.string(), z.string()).default({}),
  /** `OTEL_SERVICE_NAME`. @default the process's own name (badge-orders-worker, badge-orders-starter) */
  serviceName: z.string().min(1).optional(),
  /** `OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT`: deadline of one export, ms. @default 10000 */
  exportTimeoutMs: z.coerce.number().int().positive().default(10_000),
  /** `OTEL_BSP_SCHEDULE_DELAY`: longest time a finished span waits in the batch, ms. @default 5000 */
  scheduleDelayMs: z.coerce.number().int().positive().default(5_000),
});
/** Parsed trace export settings; `endpoint` undefined means off. */
export type TracingConfig = z.infer<typeof tracingConfigSchema>;

/** Shortest webhook secret accepted: an HMAC key guessable by brute force signs nothing. */
const MIN_WEBHOOK_SECRET_LENGTH = 16;

/** `WEBHOOK_ALLOW_HTTP_LOOPBACK`: deliver to this machine, `http://` too (tests, local receivers). */
const allowHttpLoopbackSchema = booleanFromEnv.default(false);

/** One entry of `WEBHOOK_ALLOWED_HOSTS`: a host name, `*.` and a domain, an IPv4 or an IPv6 address. */
const CALLBACK_HOST_PATTERN = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$|^[0-9a-f:.]*:[0-9a-f:.]*$/;

/** `WEBHOOK_ALLOWED_HOSTS=*`: any host, said on purpose (docker-compose.yml requires the variable). */
const ANY_CALLBACK_HOST = '*';

/**
 * `WEBHOOK_ALLOWED_HOSTS`: the comma-separated hosts that callback URLs may name (`hooks.example.com`,
 * `*.partner.example`, `10.0.0.7`); listed hosts may be internal. Empty or `*`: any host with public
 * addresses (`*` says so on purpose: docker-compose.yml requires the variable).
 */
const allowedCallbackHostsSchema = z
  .string()
  .transform((list, ctx) => {
    const entries = list
      .split(',')
      .map((entry) => bareHostname(entry.trim()))
      .filter((entry) => entry !== '');
    if (entries.includes(ANY_CALLBACK_HOST)) {
      if (entries.length > 1) {
        ctx.addIssue({ code: 'custom', message: '"*" allows any host: give it alone, or list the hosts' });
      }
      return [];
    }
    for (const entry of entries.filter((candidate) => !CALLBACK_HOST_PATTERN.test(candidate))) {
      ctx.addIssue({
        code: 'custom',
        message: `"${entry}" is not a host name, *.domain or IP address (hosts are separated by commas)`,
      });
    }
    return entries;
  })
  .default([]);

/**
 * Where webhooks may go (`CallbackUrlPolicy`), read the same way by the worker and the HTTP API: the API refuses
 * at once a `callbackUrl` the workers would refuse.
 */
export const callbackUrlPolicySchema = z.object({
  /** `WEBHOOK_ALLOW_HTTP_LOOPBACK`. @default false */
  allowHttpLoopback: allowHttpLoopbackSchema,
  /** `WEBHOOK_ALLOWED_HOSTS`: deliver only to these hosts. @default any host with public addresses */
  allowedHosts: allowedCallbackHostsSchema,
});

/** The policy's variables, by field of a configuration's `webhooks` (worker and API alike). */
export const WEBHOOK_POLICY_ENV_NAMES: Readonly<Record<string, string>> = {
  'webhooks.allowHttpLoopback': 'WEBHOOK_ALLOW_HTTP_LOOPBACK',
  'webhooks.allowedHosts': 'WEBHOOK_ALLOWED_HOSTS',
};

/** The policy's raw values from the environment (unset and empty alike take the defaults). */
export function callbackUrlPolicyFromEnv(env: Env): Readonly<Record<string, string | undefined>> {
  return {
    allowHttpLoopback: env.WEBHOOK_ALLOW_HTTP_LOOPBACK || undefined,
    allowedHosts: env.WEBHOOK_ALLOWED_HOSTS || undefined,
  };
}

/**
 * Webhook signing (docs/webhooks.md): one secret per API client (`clientId`) and a `default` one, from the JSON
 * file `WEBHOOK_SECRETS_FILE` (`{ "<clientId>": "<secret>", "default": "<secret>" }`), with the delivery
 * policy. Secrets stay in the worker: they never enter workflow history, logs or errors (messages name client
 * ids only).
 */
export const webhookConfigSchema = callbackUrlPolicySchema.extend({
  /** Secret by client id. @default none: orders with a `callbackUrl` get a failed delivery in their status */
  secrets: z
    .record(
      z.string().min(1).max(64),
      z
        .string({ error: 'must be a string' })
        .min(MIN_WEBHOOK_SECRET_LENGTH, `must be at least ${MIN_WEBHOOK_SECRET_LENGTH} characters`),
      { error: 'must be a JSON object of client id to secret' },
    )
    .default({}),
});
/** Parsed webhook settings. */
export type WebhookConfig = z.infer<typeof webhookConfigSchema>;

/** The secrets file's JSON, read at start; its content never appears in a message. */
function webhookSecretsFromEnv(env: Env): unknown {
  const file = env.WEBHOOK_SECRETS_FILE;
  if (file === undefined || file === '') return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `WEBHOOK_SECRETS_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ConfigError(`WEBHOOK_SECRETS_FILE: ${file} is not valid JSON`);
  }
}

const s3DocumentStoreConfigSchema = z
  .object({
    kind: z.literal('s3'),
    /** `DOCUMENT_STORE_S3_BUCKET`: the bucket (it must exist; the worker checks at start-up). */
    bucket: z
      .string({ error: 'is required with DOCUMENT_STORE=s3' })
      .min(3, 'must be a bucket name (3 to 63 characters)')
      .max(63, 'must be a bucket name (3 to 63 characters)'),
    /** `DOCUMENT_STORE_S3_PREFIX`: prefix of every key, e.g. `badge-orders/`. @default none */
    prefix: z.string().max(512).optional(),
    /** `DOCUMENT_STORE_S3_ENDPOINT`: an S3-compatible server's URL. @default AWS */
    endpoint: z.string().optional(),
    /** `DOCUMENT_STORE_S3_REGION`. @default the SDK's (`AWS_REGION`, shared config); `us-east-1` with an endpoint */
    region: z.string().min(1).optional(),
    /** `DOCUMENT_STORE_S3_FORCE_PATH_STYLE`. @default true with an endpoint, else false */
    forcePathStyle: booleanFromEnv.optional(),
    /** `DOCUMENT_STORE_S3_ALLOW_INSECURE_HTTP`: an http:// endpoint off loopback. @default false */
    allowInsecureHttp: booleanFromEnv.default(false),
    /**
     * `DOCUMENT_STORE_S3_ACCESS_KEY_ID` and `DOCUMENT_STORE_S3_SECRET_ACCESS_KEY` (and `…_SESSION_TOKEN`), each
     * also as `*_FILE`. @default the SDK's standard chain: `AWS_ACCESS_KEY_ID`…, shared files, roles
     */
    credentials: z
      .object({
        accessKeyId: z.string().min(1).optional(),
        secretAccessKey: z.string().min(1).optional(),
        sessionToken: z.string().min(1).optional(),
      })
      .optional(),
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

/**
 * Where documents named by reference are kept (docs/documents.md): `DOCUMENT_STORE=local` (the default; a
 * folder, `DOCUMENT_STORE_LOCAL_ROOT`, by default `.document-store` under DOCUMENTS_ROOT) or `s3`.
 */
export const documentStoreConfigSchema = z
  .discriminatedUnion(
    'kind',
    [
      z.object({
        kind: z.literal('local'),
        /** `DOCUMENT_STORE_LOCAL_ROOT`. @default `.document-store` under DOCUMENTS_ROOT */
        root: z.string().min(1).optional(),
      }),
      s3DocumentStoreConfigSchema,
    ],
    { error: 'must be local or s3' },
  )
  .default({ kind: 'local' });
/** Parsed document store settings. */
export type DocumentStoreConfig = z.infer<typeof documentStoreConfigSchema>;

/** The document store's raw settings from the environment (for {@link documentStoreConfigSchema}). */
export function documentStoreFromEnv(env: Env): Record<string, unknown> | undefined {
  const kind = env.DOCUMENT_STORE || undefined;
  if (kind === undefined) return undefined;
  if (kind !== 's3') return { kind, root: env.DOCUMENT_STORE_LOCAL_ROOT || undefined };
  const accessKeyId = secretFrom(env, 'DOCUMENT_STORE_S3_ACCESS_KEY_ID');
  const secretAccessKey = secretFrom(env, 'DOCUMENT_STORE_S3_SECRET_ACCESS_KEY');
  const sessionToken = secretFrom(env, 'DOCUMENT_STORE_S3_SESSION_TOKEN');
  return {
    kind,
    bucket: env.DOCUMENT_STORE_S3_BUCKET || undefined,
    prefix: env.DOCUMENT_STORE_S3_PREFIX || undefined,
    endpoint: env.DOCUMENT_STORE_S3_ENDPOINT || undefined,
    region: env.DOCUMENT_STORE_S3_REGION || undefined,
    forcePathStyle: env.DOCUMENT_STORE_S3_FORCE_PATH_STYLE || undefined,
    allowInsecureHttp: env.DOCUMENT_STORE_S3_ALLOW_INSECURE_HTTP || undefined,
    ...((accessKeyId ?? secretAccessKey ?? sessionToken) !== undefined && {
      credentials: { accessKeyId, secretAccessKey, sessionToken },
    }),
  };
}

/** Environment variable behind each document store field, for error messages. */
export const DOCUMENT_STORE_ENV_NAMES: Readonly<Record<string, string>> = {
  documentStore: 'DOCUMENT_STORE',
  'documentStore.kind': 'DOCUMENT_STORE',
  'documentStore.root': 'DOCUMENT_STORE_LOCAL_ROOT',
  'documentStore.bucket': 'DOCUMENT_STORE_S3_BUCKET',
  'documentStore.prefix': 'DOCUMENT_STORE_S3_PREFIX',
  'documentStore.endpoint': 'DOCUMENT_STORE_S3_ENDPOINT',
  'documentStore.region': 'DOCUMENT_STORE_S3_REGION',
  'documentStore.forcePathStyle': 'DOCUMENT_STORE_S3_FORCE_PATH_STYLE',
  'documentStore.allowInsecureHttp': 'DOCUMENT_STORE_S3_ALLOW_INSECURE_HTTP',
  'documentStore.credentials.accessKeyId': 'DOCUMENT_STORE_S3_ACCESS_KEY_ID',
  'documentStore.credentials.secretAccessKey': 'DOCUMENT_STORE_S3_SECRET_ACCESS_KEY',
  'documentStore.credentials.sessionToken': 'DOCUMENT_STORE_S3_SESSION_TOKEN',
};

/**
 * The document store's settings alone (the HTTP API, which stores uploads); throws {@link ConfigError} naming
 * each variable.
 */
export function loadDocumentStoreConfig(env: Env = process.env): Readonly<DocumentStoreConfig> {
  const parsed = parse(
    z.object({ documentStore: documentStoreConfigSchema }),
    { documentStore: documentStoreFromEnv(env) },
    DOCUMENT_STORE_ENV_NAMES,
  );
  return Object.freeze(parsed.documentStore);
}

/** `DOCUMENTS_ROOT`: the folder document paths are relative to (worker), and the local store's default home. */
export const documentsRootSchema = z
  .string()
  .min(1)
  .default('./documents')
  .transform((path) => resolve(path));

/** `MAX_DOCUMENT_BYTES`: the largest document uploaded (worker) or stored (HTTP API). @default 1 GiB */
export const maxDocumentBytesSchema = z.coerce
  .number()
  .int()
  .positive()
  .default(1024 * 1024 * 1024);

/** Everything the worker needs. */
export const workerConfigSchema = z.object({
  temporal: temporalConfigSchema,
  platform: platformConfigSchema,
  /** Folder that document paths are relative to. @default ./documents */
  documentsRoot: documentsRootSchema,
  /** Largest document accepted for upload. @default 1 GiB */
  maxDocumentBytes: maxDocumentBytesSchema,
  /** Where documents named by reference are kept. @default the local store under DOCUMENTS_ROOT */
  documentStore: documentStoreConfigSchema,
  /** Activities run at once by this worker. @default 50 */
  maxConcurrentActivities: z.coerce.number().int().positive().default(50),
  /** @default info */
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  /** Port of the Prometheus metrics endpoint; off when absent. */
  metricsPort: z.coerce.number().int().min(0).max(65535).optional(),
  /**
   * Interface the metrics endpoint listens on: loopback, so nothing outside the host reads it unless asked
   * (a container sets `0.0.0.0` for its scraper). @default 127.0.0.1
   */
  metricsHost: z.string().min(1).default('127.0.0.1'),
  /**
   * With a metrics endpoint: how often the worker reads the order and replay gauges from Temporal visibility
   * (`badge_orders_in_status`, …; docs/observability.md). @default 60000
   */
  statusMetricsIntervalMs: z.coerce.number().int().min(1000).default(60_000),
  /** A workflow bundle built ahead of time (container images); bundled at start-up when absent. */
  workflowBundlePath: z.string().min(1).optional(),
  /** Make sure the search attributes exist at start-up. @default true */
  ensureSearchAttributes: booleanFromEnv.default(true),
  /**
   * Worker Deployment Versioning (docs/runbook.md, "Deploying a new version"): the worker polls as one version
   * of a Worker Deployment; orders stay PINNED to the version they started on. @default false
   */
  versioning: z
    .object({
      enabled: booleanFromEnv.default(false),
      /** @default badge-orders */
      deploymentName: z.string().min(1).max(255).default('badge-orders'),
      /** @default the package version and the workflow bundle's content hash */
      buildId: z
        .string()
        .min(1)
        .max(255)
        .regex(/^[\w.+-]+$/, 'may contain only letters, digits, ".", "_", "+" and "-"')
        .optional(),
    })
    .default({ enabled: false, deploymentName: 'badge-orders' }),
  /** Trace export; off unless an OTLP endpoint is configured. */
  tracing: tracingConfigSchema.default({
    protocol: 'http/protobuf',
    headers: {},
    exportTimeoutMs: 10_000,
    scheduleDelayMs: 5_000,
  }),

  /** Webhook signing and delivery. */
  webhooks: webhookConfigSchema.prefault({}),
});
/** Parsed worker configuration. */
export type WorkerConfig = z.infer<typeof workerConfigSchema>;

function parse<T extends z.ZodType>(schema: T, raw: unknown, names: Record<string, string>): z.output<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = formatIssues(parsed.error).map((issue) => {
    const [field = '', ...rest] = issue.split(': ');
    return `${names[field] ?? field}: ${rest.join(': ')}`;
  });
  throw new ConfigError(`Invalid configuration: ${issues.join('; ')}`);
}

/** Environment variable behind each config field, for error messages. */
const ENV_NAMES: Record<string, string> = {
  'temporal.address': 'TEMPORAL_ADDRESS',
  'temporal.namespace': 'TEMPORAL_NAMESPACE',
  'temporal.taskQueue': 'TEMPORAL_TASK_QUEUE',
  'temporal.webUiUrl': 'TEMPORAL_WEB_UI_URL',
  'temporal.codec.payloadKeys': 'PAYLOAD_KEYS',
  'temporal.codec.encryption': 'PAYLOAD_ENCRYPTION',
  'platform.baseUrl': 'BADGE_BASE_URL',
  'platform.allowInsecureHttp': 'BADGE_ALLOW_INSECURE_HTTP',
  'platform.username': 'BADGE_USERNAME',
  'platform.password': 'BADGE_PASSWORD',
  'platform.requestTimeoutMs': 'BADGE_REQUEST_TIMEOUT_MS',
  'platform.uploadTimeoutMs': 'BADGE_UPLOAD_TIMEOUT_MS',
  'platform.idempotencyKeys': 'BADGE_IDEMPOTENCY_KEYS',
  'platform.uploadUnknownOutcome': 'BADGE_UPLOAD_UNKNOWN_OUTCOME',
  'platform.responseMap': 'BADGE_RESPONSE_MAP',
  'platform.documentOwner': 'BADGE_DOCUMENT_OWNER',
  'platform.userIdClaim': 'BADGE_USER_ID_CLAIM',
  'platform.uploadStallMs': 'BADGE_UPLOAD_STALL_MS',
  'platform.minUploadBytesPerSecond': 'BADGE_MIN_UPLOAD_BYTES_PER_SECOND',
  documentsRoot: 'DOCUMENTS_ROOT',
  maxDocumentBytes: 'MAX_DOCUMENT_BYTES',
  ...DOCUMENT_STORE_ENV_NAMES,
  maxConcurrentActivities: 'WORKER_MAX_CONCURRENT_ACTIVITIES',
  logLevel: 'LOG_LEVEL',
  metricsPort: 'METRICS_PORT',
  metricsHost: 'METRICS_HOST',
  statusMetricsIntervalMs: 'STATUS_METRICS_INTERVAL_MS',
  ensureSearchAttributes: 'ENSURE_SEARCH_ATTRIBUTES',
  workflowBundlePath: 'WORKFLOW_BUNDLE_PATH',
  'versioning.enabled': 'WORKER_VERSIONING',
  'versioning.deploymentName': 'WORKER_DEPLOYMENT_NAME',
  'versioning.buildId': 'WORKER_BUILD_ID',
  'tracing.endpoint': 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'tracing.protocol': 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'tracing.headers': 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'tracing.serviceName': 'OTEL_SERVICE_NAME',
  'tracing.exportTimeoutMs': 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
  'tracing.scheduleDelayMs': 'OTEL_BSP_SCHEDULE_DELAY',

  'webhooks.secrets': 'WEBHOOK_SECRETS_FILE',
  ...WEBHOOK_POLICY_ENV_NAMES,
};

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
      `Invalid configuration: TEMPORAL_CONFIG_FILE / TEMPORAL_PROFILE: ${(error as Error).message}`,
    );
  }
}

function platformFromEnv(env: Env): Record<string, unknown> {
  return {
    baseUrl: env.BADGE_BASE_URL || undefined,
    allowInsecureHttp: env.BADGE_ALLOW_INSECURE_HTTP || undefined,
    username: env.BADGE_USERNAME ?? '',
    password: secretFrom(env, 'BADGE_PASSWORD') ?? '',
    requestTimeoutMs: env.BADGE_REQUEST_TIMEOUT_MS || undefined,
    uploadTimeoutMs: env.BADGE_UPLOAD_TIMEOUT_MS || undefined,
    uploadStallMs: env.BADGE_UPLOAD_STALL_MS || undefined,
    minUploadBytesPerSecond: env.BADGE_MIN_UPLOAD_BYTES_PER_SECOND || undefined,
    idempotencyKeys: env.BADGE_IDEMPOTENCY_KEYS || undefined,
    uploadUnknownOutcome: env.BADGE_UPLOAD_UNKNOWN_OUTCOME || undefined,
    responseMap: env.BADGE_RESPONSE_MAP || undefined,
    documentOwner: env.BADGE_DOCUMENT_OWNER || undefined,
    userIdClaim: env.BADGE_USER_ID_CLAIM || undefined,
  };
}

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
function tracingFromEnv(env: Env): Record<string, unknown> {
  const pick = (name: string): string | undefined =>
    env[`OTEL_EXPORTER_OTLP_TRACES_${name}`] || env[`OTEL_EXPORTER_OTLP_${name}`] || undefined;
  const disabled =
    /^true$/i.test(env.OTEL_SDK_DISABLED ?? '') || (env.OTEL_TRACES_EXPORTER ?? '').trim() === 'none';
  const exporter = (env.OTEL_TRACES_EXPORTER ?? 'otlp').trim();
  if (!disabled && exporter !== 'otlp' && exporter !== '') {
    throw new ConfigError(
      `Invalid configuration: OTEL_TRACES_EXPORTER: must be otlp or none, not ${exporter}`,
    );
  }
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  const endpoint =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`);
  const headersText =
    secretFrom(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') ?? secretFrom(env, 'OTEL_EXPORTER_OTLP_HEADERS');
  const headers = otlpHeaders(headersText);
  if (typeof headers === 'string') {
    throw new ConfigError(`Invalid configuration: OTEL_EXPORTER_OTLP_HEADERS: ${headers}`);
  }
  return {
    endpoint: disabled ? undefined : endpoint,
    protocol: pick('PROTOCOL'),
    headers,
    serviceName: env.OTEL_SERVICE_NAME || undefined,
    exportTimeoutMs: pick('TIMEOUT'),
    scheduleDelayMs: env.OTEL_BSP_SCHEDULE_DELAY || undefined,
  };
}

/** Trace settings for clients (the starter, backend code); throws {@link ConfigError} naming each variable. */
export function loadTracingConfig(env: Env = process.env): Readonly<TracingConfig> {
  const parsed = parse(
    z.object({ tracing: tracingConfigSchema }),
    { tracing: tracingFromEnv(env) },
    ENV_NAMES,
  );
  return Object.freeze(parsed.tracing);
}

/** The platform settings alone (`npm run ops -- probe`); throws {@link ConfigError} naming each variable. */
export function loadPlatformConfig(env: Env = process.env): Readonly<PlatformConfig> {
  const parsed = parse(
    z.object({ platform: platformConfigSchema }),
    { platform: platformFromEnv(env) },
    ENV_NAMES,
  );
  return Object.freeze(parsed.platform);
}

function temporalFromEnv(env: Env): Record<string, unknown> {
  const profile = temporalProfileFromEnv(env);
  return {
    profile,
    address: profile.address,
    namespace: profile.namespace,
    taskQueue: env.TEMPORAL_TASK_QUEUE || undefined,
    webUiUrl: env.TEMPORAL_WEB_UI_URL || undefined,
    codec: {
      payloadKeys: secretFrom(env, 'PAYLOAD_KEYS'),
      encryption: env.PAYLOAD_ENCRYPTION || undefined,
    },
  };
}

/** Temporal settings for clients (starter, operator CLI). */
export function loadTemporalConfig(env: Env = process.env): Readonly<TemporalConfig> {
  const temporal = parse(
    z.object({ temporal: temporalConfigSchema }),
    { temporal: temporalFromEnv(env) },
    ENV_NAMES,
  );
  return Object.freeze(temporal.temporal);
}

/** The worker's configuration; throws {@link ConfigError} naming each invalid variable. */
export function loadWorkerConfig(env: Env = process.env): Readonly<WorkerConfig> {
  const raw = {
    temporal: temporalFromEnv(env),
    platform: platformFromEnv(env),
    documentsRoot: env.DOCUMENTS_ROOT || undefined,
    maxDocumentBytes: env.MAX_DOCUMENT_BYTES || undefined,
    documentStore: documentStoreFromEnv(env),
    maxConcurrentActivities: env.WORKER_MAX_CONCURRENT_ACTIVITIES || undefined,
    logLevel: env.LOG_LEVEL || undefined,
    metricsPort: env.METRICS_PORT || undefined,
    metricsHost: env.METRICS_HOST || undefined,
    statusMetricsIntervalMs: env.STATUS_METRICS_INTERVAL_MS || undefined,
    ensureSearchAttributes: env.ENSURE_SEARCH_ATTRIBUTES || undefined,
    workflowBundlePath: env.WORKFLOW_BUNDLE_PATH || undefined,
    versioning: {
      enabled: env.WORKER_VERSIONING || undefined,
      deploymentName: env.WORKER_DEPLOYMENT_NAME || undefined,
      buildId: env.WORKER_BUILD_ID || undefined,
    },
    tracing: tracingFromEnv(env),

    webhooks: { secrets: webhookSecretsFromEnv(env), ...callbackUrlPolicyFromEnv(env) },
  };
  return Object.freeze(parse(workerConfigSchema, raw, ENV_NAMES));
}

/** `HH:MM` on a 24-hour clock. */
const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The nightly replay's Schedule (`npm run schedule`, `npm run ops -- replay-now`). */
export const replayScheduleConfigSchema = z.object({
  temporal: temporalConfigSchema,
  /** Time of day the replay starts, `HH:MM`. @default 02:00 */
  time: z
    .string()
    .regex(TIME_OF_DAY, 'must be HH:MM (24-hour clock)')
    .default('02:00')
    .transform((time) => {
      const [hour = '0', minute = '0'] = time.split(':');
      return { hour: Number(hour), minute: Number(minute) };
    }),
  /** IANA time zone of `time` (daylight saving time is followed). @default Europe/Berlin */
  timezone: z
    .string()
    .refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin')
    .default('Europe/Berlin'),
  /** Signals the replay sends at the same time. @default 10 */
  maxConcurrentSignals: z.coerce.number().int().min(1).max(100).default(10),
});
/** Parsed replay Schedule configuration. */
export type ReplayScheduleConfig = z.infer<typeof replayScheduleConfigSchema>;

const REPLAY_ENV_NAMES: Record<string, string> = {
  time: 'REPLAY_SCHEDULE_TIME',
  timezone: 'REPLAY_SCHEDULE_TIMEZONE',
  maxConcurrentSignals: 'REPLAY_MAX_CONCURRENT_SIGNALS',
};

/** Configuration of the replay Schedule's tools; throws {@link ConfigError} naming each invalid variable. */
export function loadReplayScheduleConfig(env: Env = process.env): Readonly<ReplayScheduleConfig> {
  const raw = {
    temporal: temporalFromEnv(env),
    time: env.REPLAY_SCHEDULE_TIME || undefined,
    timezone: env.REPLAY_SCHEDULE_TIMEZONE || undefined,
    maxConcurrentSignals: env.REPLAY_MAX_CONCURRENT_SIGNALS || undefined,
  };
  return Object.freeze(parse(replayScheduleConfigSchema, raw, { ...ENV_NAMES, ...REPLAY_ENV_NAMES }));
}

/** The codec server (`npm run codec-server`): decrypts payloads for the Web UI and the CLI. */
export const codecServerConfigSchema = z
  .object({
    /** The same keys as the workers; at least one. */
    payloadKeys: payloadKeysSchema.refine((keys) => keys.encrypts, 'is required (the keys to decode with)'),
    /** @default 8888 */
    port: z.coerce.number().int().min(0).max(65535).default(8888),
    /** Interface to listen on. @default 127.0.0.1 */
    host: z.string().min(1).default('127.0.0.1'),
    /** The only browser origin allowed (CORS): the Web UI. @default http://127.0.0.1:8233 */
    corsOrigin: z
      .string()
      .url()
      .default('http://127.0.0.1:8233')
      .transform((origin) => new URL(origin).origin),
    /** Bearer token operators and the CLI send (`--codec-auth 'Bearer …'`). */
    token: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Also accept the Web UI's passed access token (a JWT checked against `uiJwksUrl`). @default false */
    allowUiAccessToken: booleanFromEnv.default(false),
    /** JWKS of the identity provider that issues the Web UI's access tokens. */
    uiJwksUrl: z.string().url().optional(),
    /** Expected `iss` of the Web UI's access tokens. */
    uiTokenIssuer: z.string().min(1).optional(),
    /** Expected `aud` of the Web UI's access tokens. */
    uiTokenAudience: z.string().min(1).optional(),
    /**
     * PEM certificate and key files: serve HTTPS. The Web UI passes the operator's access token only to an
     * `https://` codec endpoint. Both or neither.
     */
    tlsCertFile: z.string().min(1).optional(),
    tlsKeyFile: z.string().min(1).optional(),
    /** @default info */
    logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
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
/** Parsed codec server configuration. */
export type CodecServerConfig = z.infer<typeof codecServerConfigSchema>;

const CODEC_ENV_NAMES: Record<string, string> = {
  payloadKeys: 'PAYLOAD_KEYS',
  port: 'CODEC_SERVER_PORT',
  host: 'CODEC_SERVER_HOST',
  corsOrigin: 'CODEC_CORS_ORIGIN',
  token: 'CODEC_SERVER_TOKEN',
  allowUiAccessToken: 'CODEC_ALLOW_UI_ACCESS_TOKEN',
  uiJwksUrl: 'CODEC_UI_JWKS_URL',
  uiTokenIssuer: 'CODEC_UI_TOKEN_ISSUER',
  uiTokenAudience: 'CODEC_UI_TOKEN_AUDIENCE',
  tlsCertFile: 'CODEC_TLS_CERT_FILE',
  tlsKeyFile: 'CODEC_TLS_KEY_FILE',
  logLevel: 'LOG_LEVEL',
};

/** The codec server's configuration; throws {@link ConfigError} naming each invalid variable. */
export function loadCodecServerConfig(env: Env = process.env): Readonly<CodecServerConfig> {
  const raw = {
    payloadKeys: secretFrom(env, 'PAYLOAD_KEYS'),
    port: env.CODEC_SERVER_PORT || undefined,
    host: env.CODEC_SERVER_HOST || undefined,
    corsOrigin: env.CODEC_CORS_ORIGIN || undefined,
    token: secretFrom(env, 'CODEC_SERVER_TOKEN'),
    allowUiAccessToken: env.CODEC_ALLOW_UI_ACCESS_TOKEN || undefined,
    uiJwksUrl: env.CODEC_UI_JWKS_URL || undefined,
    uiTokenIssuer: env.CODEC_UI_TOKEN_ISSUER || undefined,
    uiTokenAudience: env.CODEC_UI_TOKEN_AUDIENCE || undefined,
    tlsCertFile: env.CODEC_TLS_CERT_FILE || undefined,
    tlsKeyFile: env.CODEC_TLS_KEY_FILE || undefined,
    logLevel: env.LOG_LEVEL || undefined,
  };
  return Object.freeze(parse(codecServerConfigSchema, raw, CODEC_ENV_NAMES));
}
