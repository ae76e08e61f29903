/**
 * Configuration of the service's processes, parsed once at the process edge from the environment. Nothing
 * else reads `process.env`. Secrets may come from files (`*_FILE`), as container secrets do.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_TASK_QUEUE, formatIssues } from './contract';

/** Thrown when the environment is invalid; the message names every variable concerned. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

/** Reads `NAME`, or the file named by `NAME_FILE` (trailing newline removed). */
function secretFrom(env: Env, name: string): string | undefined {
  const direct = env[name];
  if (direct !== undefined && direct !== '') return direct;
  const file = env[`${name}_FILE`];
  if (file === undefined || file === '') return undefined;
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new ConfigError(
      `${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** How to reach Temporal: a local dev server by default, or a secured cluster / Temporal Cloud. */
export const temporalConfigSchema = z.object({
  /** gRPC address. @default 127.0.0.1:7233 */
  address: z.string().min(1).default('127.0.0.1:7233'),
  /** @default default */
  namespace: z.string().min(1).default('default'),
  /** @default badge-orders */
  taskQueue: z.string().min(1).default(DEFAULT_TASK_QUEUE),
  /** Mutual TLS with a client certificate (self-hosted clusters, Temporal Cloud with mTLS). */
  tls: z
    .object({
      clientCertPath: z.string().min(1),
      clientKeyPath: z.string().min(1),
      serverRootCaPath: z.string().min(1).optional(),
      serverName: z.string().min(1).optional(),
    })
    .optional(),
  /** API key (Temporal Cloud); implies TLS. */
  apiKey: z.string().min(1).optional(),
  /** Base URL of the Web UI, for links printed to people. @default http://127.0.0.1:8233 */
  webUiUrl: z.string().url().default('http://127.0.0.1:8233'),
});
/** Parsed Temporal connection settings. */
export type TemporalConfig = z.infer<typeof temporalConfigSchema>;

/** Settings of the platform the worker talks to. */
export const platformConfigSchema = z.object({
  /** @default http://127.0.0.1:4010 (the sandbox's default port) */
  baseUrl: z.string().url().default('http://127.0.0.1:4010'),
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
});

/** Everything the worker needs. */
export const workerConfigSchema = z.object({
  temporal: temporalConfigSchema,
  platform: platformConfigSchema,
  /** Folder that document paths are relative to. @default ./documents */
  documentsRoot: z
    .string()
    .min(1)
    .default('./documents')
    .transform((path) => resolve(path)),
  /** Largest document accepted for upload. @default 1 GiB */
  maxDocumentBytes: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024 * 1024),
  /** Activities run at once by this worker. @default 50 */
  maxConcurrentActivities: z.coerce.number().int().positive().default(50),
  /** @default info */
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  /** Port of the Prometheus metrics endpoint; off when absent. */
  metricsPort: z.coerce.number().int().min(0).max(65535).optional(),
  /** A workflow bundle built ahead of time (container images); bundled at start-up when absent. */
  workflowBundlePath: z.string().min(1).optional(),
  /** Make sure the search attributes exist at start-up. @default true */
  ensureSearchAttributes: booleanFromEnv.default(true),
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
  'temporal.tls.clientCertPath': 'TEMPORAL_TLS_CERT_PATH',
  'temporal.tls.clientKeyPath': 'TEMPORAL_TLS_KEY_PATH',
  'temporal.tls.serverRootCaPath': 'TEMPORAL_TLS_CA_PATH',
  'temporal.tls.serverName': 'TEMPORAL_TLS_SERVER_NAME',
  'temporal.apiKey': 'TEMPORAL_API_KEY',
  'temporal.webUiUrl': 'TEMPORAL_WEB_UI_URL',
  'platform.baseUrl': 'BADGE_BASE_URL',
  'platform.username': 'BADGE_USERNAME',
  'platform.password': 'BADGE_PASSWORD',
  'platform.requestTimeoutMs': 'BADGE_REQUEST_TIMEOUT_MS',
  'platform.uploadTimeoutMs': 'BADGE_UPLOAD_TIMEOUT_MS',
  documentsRoot: 'DOCUMENTS_ROOT',
  maxDocumentBytes: 'MAX_DOCUMENT_BYTES',
  maxConcurrentActivities: 'WORKER_MAX_CONCURRENT_ACTIVITIES',
  logLevel: 'LOG_LEVEL',
  metricsPort: 'METRICS_PORT',
  ensureSearchAttributes: 'ENSURE_SEARCH_ATTRIBUTES',
  workflowBundlePath: 'WORKFLOW_BUNDLE_PATH',
};

function temporalFromEnv(env: Env): Record<string, unknown> {
  const certPath = env.TEMPORAL_TLS_CERT_PATH;
  const keyPath = env.TEMPORAL_TLS_KEY_PATH;
  return {
    address: env.TEMPORAL_ADDRESS || undefined,
    namespace: env.TEMPORAL_NAMESPACE || undefined,
    taskQueue: env.TEMPORAL_TASK_QUEUE || undefined,
    tls:
      certPath || keyPath
        ? {
            clientCertPath: certPath,
            clientKeyPath: keyPath,
            serverRootCaPath: env.TEMPORAL_TLS_CA_PATH || undefined,
            serverName: env.TEMPORAL_TLS_SERVER_NAME || undefined,
          }
        : undefined,
    apiKey: secretFrom(env, 'TEMPORAL_API_KEY'),
    webUiUrl: env.TEMPORAL_WEB_UI_URL || undefined,
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
    platform: {
      baseUrl: env.BADGE_BASE_URL || undefined,
      username: env.BADGE_USERNAME ?? '',
      password: secretFrom(env, 'BADGE_PASSWORD') ?? '',
      requestTimeoutMs: env.BADGE_REQUEST_TIMEOUT_MS || undefined,
      uploadTimeoutMs: env.BADGE_UPLOAD_TIMEOUT_MS || undefined,
    },
    documentsRoot: env.DOCUMENTS_ROOT || undefined,
    maxDocumentBytes: env.MAX_DOCUMENT_BYTES || undefined,
    maxConcurrentActivities: env.WORKER_MAX_CONCURRENT_ACTIVITIES || undefined,
    logLevel: env.LOG_LEVEL || undefined,
    metricsPort: env.METRICS_PORT || undefined,
    ensureSearchAttributes: env.ENSURE_SEARCH_ATTRIBUTES || undefined,
    workflowBundlePath: env.WORKFLOW_BUNDLE_PATH || undefined,
  };
  return Object.freeze(parse(workerConfigSchema, raw, ENV_NAMES));
}
