/**
 * The request profile: every name the client sends where the specification shows none, or where a platform
 * may choose otherwise, in one place (`BADGE_REQUEST_PROFILE`, docs/platform-client.md "Request profile").
 *
 * The defaults are today's guesses: the create payload's `vehicle`, `badge` and `stock_id`, the spec's document
 * parts and a file part named `file`. An operator changes any of them without a code change, adds headers to
 * every call or to one API (a tenant header, an API version, `User-Agent`), a query to the stock list, and a
 * path prefix; `{tenant}` in any value stands for `BADGE_TENANT_ID`. No module of the client spells one of these
 * names itself.
 */
import { z } from 'zod';

/** The three APIs of the specification, as profile sections name them. */
/** Paths of the platform endpoints, relative to the base URL (from the specification). */
export const PLATFORM_PATHS = Object.freeze({
  token: '/iam/api/v1/auth/jwt',
  stocks: '/badge/v2/api/v1/stocks',
  orders: '/badge/v2/api/v1/orders',
  documents: '/document/api/v1/documents',
} as const);

const PLATFORM_APIS = ['identity', 'badge', 'document'] as const;
export type PlatformApi = (typeof PLATFORM_APIS)[number];

/** A JSON object member name, or a JSON pointer (`/order/vehicle`) placing the value inside nested objects. */
const placement = z
  .string()
  .min(1)
  .max(200)
  .refine((name) => !name.startsWith('/') || /^(\/[^/]+)+$/.test(name), {
    error: 'must be a name or a JSON pointer such as /order/vehicle',
  });
const partName = z
  .string()
  .regex(/^[\x21-\x7e]{1,100}$/, 'must be printable ASCII without spaces')
  .refine((name) => !/["\\]/.test(name), { error: 'must not contain a quote or a backslash' });
const headerName = z.string().regex(/^[!#$%&'*+.^`|~\w-]{1,100}$/, 'must be an HTTP header name');
const headerValue = z
  .string()
  .max(1000)
  .refine((value) => ![...value].some((character) => character < ' ' || character === '\x7f'), {
    error: 'must not contain control characters',
  });
const headers = z.record(headerName, headerValue);
const queryName = z.string().min(1).max(100);

/** What `BADGE_REQUEST_PROFILE` may hold; every member optional, defaults below. */
export const requestProfileSchema = z.strictObject({
  /** Where the create payload carries each of the caller's parts (spec: "vehicle data", "badge data", stock_id). */
  orderFields: z
    .strictObject({ vehicle: placement, badge: placement, stockId: placement })
    .partial()
    .prefault({}),
  /** `stock_id` in the create payload: `auto` (an integer's digits as a JSON number, else a string) or `string`. */
  stockIdAs: z.enum(['auto', 'string']).default('auto'),
  /** The document upload's multipart part names (spec: document_type, document_type_id, document_owner, "the file itself"). */
  documentParts: z
    .strictObject({ type: partName, typeId: partName, owner: partName, file: partName })
    .partial()
    .prefault({}),
  /** Headers sent on every call. */
  headers: headers.default({}),
  /** Headers sent on the calls of one API only (they win over `headers`). */
  apiHeaders: z
    .strictObject(
      Object.fromEntries(PLATFORM_APIS.map((api) => [api, headers])) as Record<PlatformApi, typeof headers>,
    )
    .partial()
    .prefault({}),
  /** Fields added to the token request's body (e.g. a tenant id). */
  tokenFields: z.record(z.string().min(1).max(100), z.string().max(1000)).default({}),
  /** Query parameters of the stock list (paging adds its own). */
  stockQuery: z.record(queryName, z.string().max(1000)).default({}),
  /** Put before every API path, e.g. `/tenants/{tenant}`. */
  pathPrefix: z
    .string()
    .regex(/^(\/[\w.~{}-]+)*$/, 'must be empty or /segments of letters, digits, -._~ and {tenant}')
    .default(''),
});

/** The profile with its defaults, `{tenant}` replaced. */
export interface RequestProfile {
  readonly orderFields: Readonly<Record<'vehicle' | 'badge' | 'stockId', string>>;
  readonly stockIdAs: 'auto' | 'string';
  readonly documentParts: Readonly<Record<'type' | 'typeId' | 'owner' | 'file', string>>;
  readonly headers: Readonly<Record<PlatformApi, Readonly<Record<string, string>>>>;
  readonly tokenFields: Readonly<Record<string, string>>;
  readonly stockQuery: Readonly<Record<string, string>>;
  readonly pathPrefix: string;
}

const DEFAULT_NAMES = {
  orderFields: { vehicle: 'vehicle', badge: 'badge', stockId: 'stock_id' },
  documentParts: {
    type: 'document_type',
    typeId: 'document_type_id',
    owner: 'document_owner',
    file: 'file',
  },
} as const;

/** The profile's settings as read (before defaults); what {@link resolveRequestProfile} takes. */
export type RequestProfileSettings = z.input<typeof requestProfileSchema>;

/**
 * What is wrong with where the tenant id goes, naming the setting to change: `{tenant}` used without a tenant id,
 * or a tenant id the profile places nowhere (it would be sent nowhere, silently); `undefined` when nothing is.
 */
export function tenantProblem(
  settings: RequestProfileSettings | undefined,
  tenantId: string | undefined,
): { readonly setting: 'tenantId' | 'requestProfile'; readonly message: string } | undefined {
  const placed = JSON.stringify(settings ?? {}).includes('{tenant}');
  if (tenantId === undefined && placed) {
    return { setting: 'tenantId', message: 'is required: BADGE_REQUEST_PROFILE uses {tenant}' };
  }
  if (tenantId !== undefined && !placed) {
    return {
      setting: 'requestProfile',
      message:
        'places BADGE_TENANT_ID nowhere: say where it goes, e.g. { "headers": { "X-Tenant-ID": "{tenant}" } }',
    };
  }
  return undefined;
}

/**
 * The profile to send with: defaults filled in, `{tenant}` replaced by the tenant id.
 * @throws Error when the settings are invalid or {@link tenantProblem} finds a problem
 */
export function resolveRequestProfile(
  settings: RequestProfileSettings | undefined,
  tenantId: string | undefined,
): RequestProfile {
  const parsed = requestProfileSchema.parse(settings ?? {});
  const problem = tenantProblem(settings, tenantId);
  if (problem !== undefined) throw new Error(`${problem.setting} ${problem.message}`);
  const withTenant = (value: unknown): unknown =>
    typeof value === 'string'
      ? value.replaceAll('{tenant}', tenantId ?? '')
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([name, member]) => [name, withTenant(member)]))
        : value;
  const resolved = withTenant(parsed) as typeof parsed;
  return {
    orderFields: { ...DEFAULT_NAMES.orderFields, ...resolved.orderFields },
    stockIdAs: resolved.stockIdAs,
    documentParts: { ...DEFAULT_NAMES.documentParts, ...resolved.documentParts },
    headers: Object.fromEntries(
      PLATFORM_APIS.map((api) => [api, { ...resolved.headers, ...resolved.apiHeaders[api] }]),
    ) as RequestProfile['headers'],
    tokenFields: resolved.tokenFields,
    stockQuery: resolved.stockQuery,
    pathPrefix: resolved.pathPrefix,
  };
}

/**
 * Puts `value` into `body` where `placement` says: a member name, or a JSON pointer (RFC 6901) into nested
 * objects, created as needed.
 */
export function place(body: Record<string, unknown>, placement: string, value: unknown): void {
  if (!placement.startsWith('/')) {
    body[placement] = value;
    return;
  }
  const names = placement
    .slice(1)
    .split('/')
    .map((name) => name.replaceAll('~1', '/').replaceAll('~0', '~'));
  let target = body;
  for (const name of names.slice(0, -1)) {
    const next = target[name];
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) {
      target = next as Record<string, unknown>;
    } else {
      const created: Record<string, unknown> = {};
      target[name] = created;
      target = created;
    }
  }
  target[names.at(-1) ?? ''] = value;
}
