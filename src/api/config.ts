/**
 * Configuration of the HTTP API (`npm run api`), parsed once at the process edge: where to listen, who may
 * call (the API keys file, optional OIDC), the limits, and Temporal through `src/config.ts`. Nothing else in
 * `src/api` reads `process.env`.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import {
  DOCUMENT_STORE,
  DOCUMENTS,
  ENSURE_SEARCH_ATTRIBUTES,
  load,
  loadTemporalConfig,
  LOG_LEVEL,
  port,
  readBy,
  jsonFile,
  readVariables,
  variable,
  variableShape,
  WEBHOOK_POLICY,
  wholeNumber,
  type TemporalConfig,
} from '../config';
import { CLIENT_ID_PATTERN } from '../contract';
import { DEFAULT_ORDER_OPTIONS } from '../order-options';
import { insecureUrlProblem } from '../url-policy';

/** The scopes a principal may hold. */
export const API_SCOPES = ['orders:write', 'orders:read', 'ops'] as const;
/** One scope: `orders:write` places orders, `orders:read` reads them, `ops` runs the operator actions. */
export type ApiScope = (typeof API_SCOPES)[number];

/** A key's `id` or `client`: a name that appears in logs. */
const keyNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'must be 1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit',
  );

/** One entry of the API keys file: the key itself is never stored, only its SHA-256. */
const apiKeyEntrySchema = z.strictObject({
  /** Names the key in logs; never secret. Unique in the file. */
  id: keyNameSchema,
  /**
   * The client the key belongs to: it owns the orders and documents placed with the key, picks its webhook
   * secret, and its limits count by it. Two keys of one client (while one replaces the other) name the same
   * client. @default the key's `id`
   */
  client: keyNameSchema.optional(),
  /** Lowercase hex SHA-256 of the key (`npm run api -- new-key` prints it). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits'),
  scopes: z.array(z.enum(API_SCOPES)).min(1, 'must name at least one scope'),
});
export type ApiKeyEntry = z.infer<typeof apiKeyEntrySchema>;

/** The API keys file: `{ "keys": [{ "id", "sha256", "scopes" }] }`. */
const apiKeysFileSchema = z.strictObject({
  keys: z.array(apiKeyEntrySchema).superRefine((keys, context) => {
    keys.forEach((key, index) => {
      if (keys.findIndex((other) => other.id === key.id) < index)
        context.addIssue({ code: 'custom', path: [index, 'id'], message: 'is listed twice' });
      // The client named `default` would sign its webhooks with the secret of orders without a client.
      if ((key.client ?? key.id) === 'default') {
        context.addIssue({
          code: 'custom',
          path: [index, key.client === undefined ? 'id' : 'client'],
          message:
            'must not name the client "default" (the webhook secret of orders without a client): give the key another client',
        });
      }
    });
  }),
});

type Env = Readonly<Record<string, string | undefined>>;

const API = ['api'] as const;
const SERVER = readBy(API, { ensureSearchAttributes: ENSURE_SEARCH_ATTRIBUTES, logLevel: LOG_LEVEL });

const LISTEN = readBy(API, {
  host: variable(
    'API_HOST',
    z.string().min(1).default('127.0.0.1'),
    'Interface the API listens on (loopback: put a TLS proxy in front to expose it).',
  ),
  port: variable('API_PORT', port.default(8090), 'Port of the API (the Temporal Web UI’s default is 8080).'),
});

const API_KEYS = readBy(API, {
  apiKeys: variable(
    'API_KEYS_FILE',
    apiKeysFileSchema.transform((file) => file.keys).default([]),
    'JSON file of API keys, `{ "keys": [{ "id", "sha256", "scopes" }] }`.',
    { defaultText: 'none: then OIDC is required' },
  ),
}).apiKeys;

/** A comma-separated list (entries trimmed, empty ones dropped) of `item`. */
const commaSeparated = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (text) =>
      typeof text === 'string'
        ? text
            .split(',')
            .map((entry) => entry.trim())
            .filter((entry) => entry !== '')
        : text,
    z.array(item),
  );

/** A client id as the API names the client of an OIDC token (`tokenClientId` in `auth.ts`). */
const oidcClientIdSchema = z
  .string()
  .regex(CLIENT_ID_PATTERN, 'must be a client id')
  .refine((id) => id.startsWith('oidc:') || id.startsWith('oidc-sub:'), {
    error: (issue) =>
      `"${String(issue.input)}" is not the client id of a token: oidc:<azp or client_id> or oidc-sub:<sub>`,
  });

const OIDC = readBy(API, {
  jwksUrl: variable(
    'API_OIDC_JWKS_URL',
    z.string().superRefine((url, context) => {
      const problem = insecureUrlProblem(url);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    }),
    'JWKS of the identity provider whose bearer tokens the API accepts: https://, or http:// on loopback.',
    { defaultText: 'none: OIDC off' },
  ),
  issuer: variable('API_OIDC_ISSUER', z.string().min(1), 'Expected `iss` of the bearer tokens.'),
  audience: variable('API_OIDC_AUDIENCE', z.string().min(1), 'Expected `aud` of the bearer tokens.'),
  algorithms: variable(
    'API_OIDC_ALGORITHMS',
    commaSeparated(z.string()).pipe(z.array(z.string()).min(1)).default(['RS256', 'ES256', 'PS256', 'EdDSA']),
    'Comma-separated signature algorithms accepted.',
    { defaultText: 'RS256,ES256,PS256,EdDSA' },
  ),
  opsClients: variable(
    'API_OIDC_OPS_CLIENTS',
    commaSeparated(oidcClientIdSchema).optional(),
    'Comma-separated clients (`oidc:<azp>`, `oidc-sub:<sub>`) whose tokens may carry the scope ops.',
    { defaultText: 'none' },
  ),
  opsRoles: variable(
    'API_OIDC_OPS_ROLES',
    commaSeparated(z.string()).optional(),
    'Comma-separated roles (in API_OIDC_ROLES_CLAIM) whose holders’ tokens may carry the scope ops.',
    { defaultText: 'none' },
  ),
  rolesClaim: variable(
    'API_OIDC_ROLES_CLAIM',
    z.string().min(1).optional(),
    'Claim of a token listing its roles; a path through nested claims by `.` (`realm_access.roles`).',
    { defaultText: 'roles' },
  ),
});

/** OIDC bearer tokens: checked against the JWKS, with this issuer and audience, and an expiry (`exp`). */
const oidcConfigSchema = z.object({
  ...variableShape(OIDC),
  /** Clock skew allowed on `exp`/`nbf`. @default 30 */
  clockToleranceSeconds: z.number().int().min(0).max(300).default(30),
});
export type OidcConfig = z.infer<typeof oidcConfigSchema>;

/** An IPv4 or IPv6 address, or a range of them in CIDR notation (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/**
 * The order options API clients may set, each with its ceiling (null: the contract's bound), by default: a
 * client may run its uploads less in parallel and retry for less long than the defaults, and wait for repair or
 * reconciliation up to the contract's 30 days. Raising the parallelism or the retry windows, shortening the
 * heartbeat timeout or the history budget takes more of the workers every client shares: the operators' to allow.
 */
const DEFAULT_ORDER_OPTION_CEILINGS: Readonly<Record<string, number | null>> = {
  maxParallelUploads: DEFAULT_ORDER_OPTIONS.maxParallelUploads,
  uploadRetryWindowMs: DEFAULT_ORDER_OPTIONS.uploadRetryWindowMs,
  platformRetryWindowMs: DEFAULT_ORDER_OPTIONS.platformRetryWindowMs,
  repairWindowMs: null,
  reconciliationWindowMs: null,
  replacementGraceMs: null,
};

/** One entry of API_ORDER_OPTIONS: an option of an order, and its ceiling when one is given. */
const orderOptionEntrySchema = z.string().transform((entry, context): [string, number | null] => {
  const [name = '', max, ...rest] = entry.split('=');
  if (!(name in DEFAULT_ORDER_OPTIONS)) {
    context.addIssue({
      code: 'custom',
      message: `"${name}" is not an order option (${Object.keys(DEFAULT_ORDER_OPTIONS).join(', ')})`,
    });
  } else if (rest.length > 0 || (max !== undefined && !/^\d{1,15}$/.test(max))) {
    context.addIssue({
      code: 'custom',
      message: `"${entry}": the ceiling must be a whole number (${name}=4)`,
    });
  }
  return [name, max === undefined ? null : Number(max)];
});

/** Bounds on what one caller can make the API do, and who one caller is (its address, behind a proxy). */
const LIMITS = readBy(API, {
  bodyLimitBytes: variable(
    'API_BODY_LIMIT_BYTES',
    wholeNumber(1024, 1024 * 1024),
    'Largest JSON request body, bytes.',
  ),
  rateLimitMax: variable('API_RATE_LIMIT_MAX', wholeNumber(1, 120), 'Requests per key per window.'),
  rateLimitWindowMs: variable(
    'API_RATE_LIMIT_WINDOW_MS',
    wholeNumber(1000, 60_000),
    'The rate limits’ window, ms.',
  ),
  authFailureMax: variable(
    'API_AUTH_FAILURE_MAX',
    wholeNumber(1, 20),
    'Failed authentications per address per window; beyond it 429 until the window ends.',
  ),
  trustProxy: variable(
    'API_TRUST_PROXY',
    commaSeparated(
      z.string().refine(isAddressOrRange, {
        error: (issue) => `"${String(issue.input)}" is not an IP address or CIDR (separate them by commas)`,
      }),
    ).optional(),
    'Comma-separated addresses or CIDRs of the proxies in front of the API: limits count the caller X-Forwarded-For names, not the proxy.',
    { defaultText: 'none: the connection’s address' },
  ),
  requestTimeoutMs: variable(
    'API_REQUEST_TIMEOUT_MS',
    wholeNumber(1000, 30_000),
    'Time a caller has to send a whole request, ms.',
  ),
  operationTimeoutMs: variable(
    'API_OPERATION_TIMEOUT_MS',
    wholeNumber(100, 20_000),
    'Time one call to Temporal (then 504) or to the document store (then 503) may take, ms.',
  ),
  orderOptions: variable(
    'API_ORDER_OPTIONS',
    z
      .preprocess((text) => (text === 'none' ? '' : text), commaSeparated(orderOptionEntrySchema))
      .transform((entries) => Object.fromEntries(entries))
      .default(DEFAULT_ORDER_OPTION_CEILINGS),
    'Comma-separated order options API clients may set, each `name` or `name=ceiling` (`none`: no option); others are refused (400).',
    { defaultText: 'the ceilings of docs/api.md (“Options”)' },
  ),
  queryTimeoutMs: variable(
    'API_QUERY_TIMEOUT_MS',
    wholeNumber(100, 5_000),
    'Time the status query may take before the view falls back to search attributes, ms.',
  ),
});
export const apiLimitsSchema = z.object(variableShape(LIMITS));
export type ApiLimits = z.infer<typeof apiLimitsSchema>;

/** What one client may upload through `POST /v1/documents` (429 naming the limit beyond it). */
const UPLOADS = readBy(API, {
  maxConcurrent: variable(
    'API_UPLOAD_MAX_CONCURRENT',
    wholeNumber(1, 4),
    'Uploads of one client at the same time.',
  ),
  quotaBytes: variable(
    'API_UPLOAD_QUOTA_BYTES',
    wholeNumber(1, 10 * 1024 ** 3),
    'Bytes one client may upload per window, stored or not.',
  ),
  quotaWindowMs: variable(
    'API_UPLOAD_QUOTA_WINDOW_MS',
    wholeNumber(1000, 3_600_000),
    'The upload quota’s window, ms.',
  ),
});
export const uploadLimitsSchema = z.object(variableShape(UPLOADS));

/** The document collector: a stored document nothing names for `graceMs` is deleted; it looks every `intervalMs`. */
const COLLECTION = readBy(API, {
  graceMs: variable(
    'DOCUMENT_COLLECTION_GRACE_MS',
    wholeNumber(60_000, 7 * 24 * 3_600_000),
    'A stored document no order named for this long is deleted, ms.',
  ),
  intervalMs: variable(
    'DOCUMENT_COLLECTION_INTERVAL_MS',
    wholeNumber(0, 3_600_000),
    'How often this API collects, ms; 0: never.',
  ),
});

/** What the API reads into each field of its configuration. */
const API_LAYOUT = {
  ...LISTEN,
  apiKeys: jsonFile(API_KEYS),
  oidc: {
    schema: oidcConfigSchema.optional(),
    layout: OIDC,
    read: (env: Env) => {
      const oidc = readVariables(env, OIDC);
      return oidc.jwksUrl || oidc.issuer || oidc.audience ? oidc : undefined;
    },
  },
  limits: { schema: apiLimitsSchema, layout: LIMITS },
  /** `POST /v1/documents` stores uploads here; orders then name them by reference (docs/documents.md). */
  documents: { ...DOCUMENTS, store: DOCUMENT_STORE, uploads: UPLOADS, collection: COLLECTION },
  /** As the workers have it: a `callbackUrl` they would refuse is refused here already (400). */
  webhooks: WEBHOOK_POLICY,
  /** `ensureSearchAttributes`: on a fresh namespace the API may be the first to start. */
  ...SERVER,
};

const apiConfigSchema = z.object(variableShape(API_LAYOUT)).superRefine((config, context) => {
  if (config.apiKeys.length === 0 && config.oidc === undefined) {
    context.addIssue({
      code: 'custom',
      path: ['apiKeys'],
      message:
        'no caller could authenticate: set API_KEYS_FILE, or API_OIDC_JWKS_URL with issuer and audience',
    });
  }
});

export type ApiConfig = z.infer<typeof apiConfigSchema> & { readonly temporal: TemporalConfig };

/** The API's configuration from the environment; throws {@link ConfigError} naming each invalid variable. */
export function loadApiConfig(env: Env): Readonly<ApiConfig> {
  return Object.freeze({ ...load(apiConfigSchema, env, API_LAYOUT), temporal: loadTemporalConfig(env) });
}
