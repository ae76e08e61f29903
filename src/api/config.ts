/**
 * Configuration of the HTTP API (`npm run api`), parsed once at the process edge: where to listen, who may
 * call (the API keys file, optional OIDC), the limits, and Temporal through `src/config.ts`. Nothing else in
 * `src/api` reads `process.env`.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  booleanFromEnv,
  callbackUrlPolicyFromEnv,
  callbackUrlPolicySchema,
  ConfigError,
  DOCUMENT_STORE_ENV_NAMES,
  documentStoreConfigSchema,
  documentStoreFromEnv,
  documentsRootSchema,
  loadTemporalConfig,
  maxDocumentBytesSchema,
  WEBHOOK_POLICY_ENV_NAMES,
  type TemporalConfig,
} from '../config';
import { insecureUrlProblem } from '../url-policy';
import { formatIssues } from '../contract';

/** The scopes a principal may hold. */
export const API_SCOPES = ['orders:write', 'orders:read', 'ops'] as const;
/** One scope: `orders:write` places orders, `orders:read` reads them, `ops` runs the operator actions. */
export type ApiScope = (typeof API_SCOPES)[number];

/** One entry of the API keys file: the key itself is never stored, only its SHA-256. */
export const apiKeyEntrySchema = z.strictObject({
  /** Names the key in logs; never secret. Unique in the file. */
  id: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
      'must be 1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit',
    ),
  /**
   * The client the key belongs to: it owns the orders and documents placed with the key, picks its webhook
   * secret, and its limits count by it. Two keys of one client (while one replaces the other) name the same
   * client. @default the key's `id`
   */
  client: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
      'must be 1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit',
    )
    .optional(),
  /** Lowercase hex SHA-256 of the key (`npm run api -- new-key` prints it). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits'),
  scopes: z.array(z.enum(API_SCOPES)).min(1, 'must name at least one scope'),
});
/** One API key as configured. */
export type ApiKeyEntry = z.infer<typeof apiKeyEntrySchema>;

/** The API keys file: `{ "keys": [{ "id", "sha256", "scopes" }] }`. */
export const apiKeysFileSchema = z.strictObject({
  keys: z.array(apiKeyEntrySchema).superRefine((keys, context) => {
    const seen = new Set<string>();
    keys.forEach((key, index) => {
      if (seen.has(key.id))
        context.addIssue({ code: 'custom', path: [index, 'id'], message: 'is listed twice' });
      seen.add(key.id);
    });
  }),
});

/** Parses the keys file's text; throws {@link ConfigError} naming the file and each invalid field. */
export function parseApiKeysFile(text: string, source: string): readonly ApiKeyEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`API_KEYS_FILE ${source}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = apiKeysFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(`API_KEYS_FILE ${source}: ${formatIssues(parsed.error).join('; ')}`);
  }
  return parsed.data.keys;
}

/** OIDC bearer tokens: checked against the JWKS, with this issuer and audience, and an expiry (`exp`). */
export const oidcConfigSchema = z.object({
  /** `https://`, or `http://` on loopback only (keys fetched in clear could be swapped on the way). */
  jwksUrl: z.string().superRefine((url, context) => {
    const problem = insecureUrlProblem(url);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  }),
  issuer: z.string().min(1),
  audience: z.string().min(1),
  /** @default RS256, ES256, PS256, EdDSA */
  algorithms: z.array(z.string().min(1)).min(1).default(['RS256', 'ES256', 'PS256', 'EdDSA']),
  /** Clock skew allowed on `exp`/`nbf`. @default 30 */
  clockToleranceSeconds: z.number().int().min(0).max(300).default(30),
});
/** OIDC settings. */
export type OidcConfig = z.infer<typeof oidcConfigSchema>;

/** Bounds on what one caller can make the API do. */
export const apiLimitsSchema = z.object({
  /** Largest JSON request body. @default 1 MiB */
  bodyLimitBytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** Requests per key per window (`rateLimitWindowMs`). @default 120 */
  rateLimitMax: z.number().int().min(1).default(120),
  /** @default 60 000 (one minute) */
  rateLimitWindowMs: z.number().int().min(1000).default(60_000),
  /**
   * Failed authentications per address per window (`rateLimitWindowMs`); beyond it the address is answered 429
   * without its credentials being looked at, until the window ends. @default 20
   */
  authFailureMax: z.number().int().min(1).default(20),
  /** Time a caller has to send a whole request. @default 30 000 */
  requestTimeoutMs: z.number().int().min(1000).default(30_000),
  /**
   * Time one call to Temporal (start, describe, signal, update) may take before the API answers 504; the
   * outcome of a start is then unknown, and repeating the PUT (idempotent) finds out. @default 20 000
   */
  operationTimeoutMs: z.number().int().min(100).default(20_000),
  /** Time the `status` query may take; after it the view falls back to the search attributes. @default 5 000 */
  queryTimeoutMs: z.number().int().min(100).default(5_000),
});
/** The API's limits. */
export type ApiLimits = z.infer<typeof apiLimitsSchema>;

/** What one client may upload through `POST /v1/documents` (429 naming the limit beyond it). */
export const uploadLimitsSchema = z.object({
  /** Uploads of one client at the same time (`API_UPLOAD_MAX_CONCURRENT`). @default 4 */
  maxConcurrent: z.number().int().min(1).default(4),
  /** Bytes one client may send per window, stored or not (`API_UPLOAD_QUOTA_BYTES`). @default 10 GiB */
  quotaBytes: z
    .number()
    .int()
    .min(1)
    .default(10 * 1024 ** 3),
  /** The quota's window (`API_UPLOAD_QUOTA_WINDOW_MS`). @default 3 600 000 (one hour) */
  quotaWindowMs: z.number().int().min(1000).default(3_600_000),
});

/**
 * The document collector (`src/api/document-collector.ts`): a stored document that no running order names, and
 * that nobody stored or named in an order for `graceMs`, is deleted; the API looks every `intervalMs`.
 */
export const documentCollectionSchema = z.object({
  /** `DOCUMENT_COLLECTION_GRACE_MS`. @default 604 800 000 (7 days) */
  graceMs: z
    .number()
    .int()
    .min(60_000)
    .default(7 * 24 * 3_600_000),
  /** `DOCUMENT_COLLECTION_INTERVAL_MS`; 0: this API never collects. @default 3 600 000 (one hour) */
  intervalMs: z.number().int().min(0).default(3_600_000),
});

const apiConfigSchema = z
  .object({
    /** Interface to listen on. @default 127.0.0.1 (loopback: put a TLS proxy in front to expose it) */
    host: z.string().min(1).default('127.0.0.1'),
    /** @default 8090 (the Temporal Web UI's default is 8080) */
    port: z.coerce.number().int().min(0).max(65535).default(8090),
    /** The API keys, read from `API_KEYS_FILE` once at start. */
    apiKeys: z.array(apiKeyEntrySchema).default([]),
    oidc: oidcConfigSchema.optional(),
    limits: apiLimitsSchema,
    /** `POST /v1/documents` stores uploads here; orders then name them by reference (docs/documents.md). */
    documents: z.object({
      /** The local store lives under it unless `DOCUMENT_STORE_LOCAL_ROOT` says otherwise. */
      documentsRoot: documentsRootSchema,
      /** Largest upload stored (413 above it); the worker's `MAX_DOCUMENT_BYTES` should be the same. */
      maxDocumentBytes: maxDocumentBytesSchema,
      store: documentStoreConfigSchema,
      uploads: uploadLimitsSchema.prefault({}),
      collection: documentCollectionSchema.prefault({}),
    }),
    /**
     * `WEBHOOK_ALLOW_HTTP_LOOPBACK` and `WEBHOOK_ALLOWED_HOSTS`, as the workers have them: a `callbackUrl` they
     * would refuse is refused here already (400), not discovered at the first delivery.
     */
    webhooks: callbackUrlPolicySchema.prefault({}),
    /**
     * Make sure the search attributes exist at start-up, as the worker does: on a fresh namespace the API may
     * be the first to start. @default true
     */
    ensureSearchAttributes: booleanFromEnv.default(true),
    /** @default info */
    logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  })
  .superRefine((config, context) => {
    if (config.apiKeys.length === 0 && config.oidc === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['apiKeys'],
        message:
          'no caller could authenticate: set API_KEYS_FILE, or API_OIDC_JWKS_URL with issuer and audience',
      });
    }
  });

/** The API's configuration. */
export type ApiConfig = z.infer<typeof apiConfigSchema> & { readonly temporal: TemporalConfig };

const API_ENV_NAMES: Readonly<Record<string, string>> = {
  host: 'API_HOST',
  port: 'API_PORT',
  apiKeys: 'API_KEYS_FILE',
  'oidc.jwksUrl': 'API_OIDC_JWKS_URL',
  'oidc.issuer': 'API_OIDC_ISSUER',
  'oidc.audience': 'API_OIDC_AUDIENCE',
  'oidc.algorithms': 'API_OIDC_ALGORITHMS',
  'limits.bodyLimitBytes': 'API_BODY_LIMIT_BYTES',
  'limits.rateLimitMax': 'API_RATE_LIMIT_MAX',
  'limits.rateLimitWindowMs': 'API_RATE_LIMIT_WINDOW_MS',
  'limits.authFailureMax': 'API_AUTH_FAILURE_MAX',
  'limits.requestTimeoutMs': 'API_REQUEST_TIMEOUT_MS',
  'limits.operationTimeoutMs': 'API_OPERATION_TIMEOUT_MS',
  'limits.queryTimeoutMs': 'API_QUERY_TIMEOUT_MS',
  'documents.documentsRoot': 'DOCUMENTS_ROOT',
  'documents.maxDocumentBytes': 'MAX_DOCUMENT_BYTES',
  'documents.uploads.maxConcurrent': 'API_UPLOAD_MAX_CONCURRENT',
  'documents.uploads.quotaBytes': 'API_UPLOAD_QUOTA_BYTES',
  'documents.uploads.quotaWindowMs': 'API_UPLOAD_QUOTA_WINDOW_MS',
  'documents.collection.graceMs': 'DOCUMENT_COLLECTION_GRACE_MS',
  'documents.collection.intervalMs': 'DOCUMENT_COLLECTION_INTERVAL_MS',
  // The store's fields, named as the worker names them (`documentStore.bucket` → `documents.store.bucket`).
  ...Object.fromEntries(
    Object.entries(DOCUMENT_STORE_ENV_NAMES).map(([field, name]) => [
      field.replace(/^documentStore/, 'documents.store'),
      name,
    ]),
  ),
  ...WEBHOOK_POLICY_ENV_NAMES,
  ensureSearchAttributes: 'ENSURE_SEARCH_ATTRIBUTES',
  logLevel: 'LOG_LEVEL',
};

type Env = Readonly<Record<string, string | undefined>>;

const number = (text: string | undefined): number | string | undefined =>
  text === undefined || text === '' ? undefined : /^\d+$/.test(text) ? Number(text) : text;

function readKeysFile(path: string | undefined): readonly ApiKeyEntry[] | undefined {
  if (path === undefined || path === '') return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `API_KEYS_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  return parseApiKeysFile(text, path);
}

/** The API's configuration from the environment; throws {@link ConfigError} naming each invalid variable. */
export function loadApiConfig(env: Env = process.env): Readonly<ApiConfig> {
  const oidcSet = Boolean(env.API_OIDC_JWKS_URL || env.API_OIDC_ISSUER || env.API_OIDC_AUDIENCE);
  const raw = {
    host: env.API_HOST || undefined,
    port: env.API_PORT || undefined,
    apiKeys: readKeysFile(env.API_KEYS_FILE),
    oidc: oidcSet
      ? {
          jwksUrl: env.API_OIDC_JWKS_URL,
          issuer: env.API_OIDC_ISSUER,
          audience: env.API_OIDC_AUDIENCE,
          algorithms: env.API_OIDC_ALGORITHMS
            ? env.API_OIDC_ALGORITHMS.split(',').map((a) => a.trim())
            : undefined,
        }
      : undefined,
    limits: {
      bodyLimitBytes: number(env.API_BODY_LIMIT_BYTES),
      rateLimitMax: number(env.API_RATE_LIMIT_MAX),
      rateLimitWindowMs: number(env.API_RATE_LIMIT_WINDOW_MS),
      authFailureMax: number(env.API_AUTH_FAILURE_MAX),
      requestTimeoutMs: number(env.API_REQUEST_TIMEOUT_MS),
      operationTimeoutMs: number(env.API_OPERATION_TIMEOUT_MS),
      queryTimeoutMs: number(env.API_QUERY_TIMEOUT_MS),
    },
    documents: {
      documentsRoot: env.DOCUMENTS_ROOT || undefined,
      maxDocumentBytes: env.MAX_DOCUMENT_BYTES || undefined,
      store: documentStoreFromEnv(env),
      uploads: {
        maxConcurrent: number(env.API_UPLOAD_MAX_CONCURRENT),
        quotaBytes: number(env.API_UPLOAD_QUOTA_BYTES),
        quotaWindowMs: number(env.API_UPLOAD_QUOTA_WINDOW_MS),
      },
      collection: {
        graceMs: number(env.DOCUMENT_COLLECTION_GRACE_MS),
        intervalMs: number(env.DOCUMENT_COLLECTION_INTERVAL_MS),
      },
    },
    webhooks: callbackUrlPolicyFromEnv(env),
    ensureSearchAttributes: env.ENSURE_SEARCH_ATTRIBUTES || undefined,
    logLevel: env.LOG_LEVEL || undefined,
  };
  const parsed = apiConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error).map((issue) => {
      const [field = '', ...rest] = issue.split(': ');
      return `${API_ENV_NAMES[field] ?? field}: ${rest.join(': ')}`;
    });
    throw new ConfigError(`Invalid configuration: ${issues.join('; ')}`);
  }
  return Object.freeze({ ...parsed.data, temporal: loadTemporalConfig(env) });
}
