/**
 * Sandbox profiles: each one is a complete set of answers to what the platform specification leaves "not
 * shown" — token fields, the stock list's envelope and paging, the order and document answers, error bodies
 * and whether `Idempotency-Key` is honoured.
 *
 * One sandbox that mirrors the client's own guesses only proves that we agree with ourselves; running the same
 * tests against several profiles shows that the client tolerates what the real platform may choose.
 * `reference` is the sandbox's historical behaviour (see `shapes.ts`); the others differ in many choices at
 * once; `random:<seed>` draws every choice from a seeded PRNG.
 */
import { z } from 'zod';
import { describeZodError, SandboxConfigError } from './config';
import { pick, seededRandom } from './random';
import type { RandomSource } from './random';

/** Whether a repeated `Idempotency-Key` replays the first answer (`honoured`) or is not looked at (`ignored`). */
export const IDEMPOTENCY_MODES = ['honoured', 'ignored'] as const;

/** See {@link IDEMPOTENCY_MODES}. */
export type IdempotencyMode = (typeof IDEMPOTENCY_MODES)[number];

/**
 * Envelope of `GET /badge/v2/api/v1/stocks`, and with it how further pages are announced when `pageSize` is set
 * (pages are requested with `?page=<n>`, 1-based):
 * - `bare`: a JSON array; further pages in a `Link: <url>; rel="next"` header;
 * - `data`: `{ data: [...] }`; when paged, plus `links: { next: <absolute url> | null }`;
 * - `items-page`: `{ items: [...], page, totalPages }` (page numbers only, no link);
 * - `content-links`: `{ content: [...], _links: { self: { href }, next?: { href } } }` with relative hrefs;
 * - `results-next`: `{ count, next: <absolute url> | null, results: [...] }`.
 */
export const STOCK_ENVELOPES = ['bare', 'data', 'items-page', 'content-links', 'results-next'] as const;

/** See {@link STOCK_ENVELOPES}. */
export type StockEnvelope = (typeof STOCK_ENVELOPES)[number];

/** Envelope of the created order: `bare` (the order itself), `{ data: order }` or `{ order: order }`. */
export const ORDER_ENVELOPES = ['bare', 'data', 'order'] as const;

/** See {@link ORDER_ENVELOPES}. */
export type OrderEnvelope = (typeof ORDER_ENVELOPES)[number];

/**
 * Fields of the created order: `id-only` (`{ id }`), `full` (id, stock_id, vehicle, badge, status, created_at)
 * or `extra` (full plus `reference`, `user_id`, `tenant_id`, `updated_at` — numeric ids a careless parser could
 * take for the order id).
 */
export const ORDER_FIELD_SETS = ['id-only', 'full', 'extra'] as const;

/** See {@link ORDER_FIELD_SETS}. */
export type OrderFieldSet = (typeof ORDER_FIELD_SETS)[number];

/**
 * Where the document answer puts its id and the three links:
 * - `links`: `{ id, …, links: { original, thumbnail, download } }` (reference);
 * - `urls`: `{ document: { id, … }, urls: { original, thumbnail, signed } }`;
 * - `hal`: `{ id, …, _links: { self, original, thumbnail, download: { href } } }`;
 * - `flat`: `{ id, …, original_url, thumbnail_url, signed_download_url }`;
 * - `json-api`: `{ data: { type: 'document', id, attributes: { …, links: { original, thumbnail, signed_download } } } }`.
 */
export const DOCUMENT_LINK_STYLES = ['links', 'urls', 'hal', 'flat', 'json-api'] as const;

/** See {@link DOCUMENT_LINK_STYLES}. */
export type DocumentLinkStyle = (typeof DOCUMENT_LINK_STYLES)[number];

/**
 * Form of a document id on the wire: `doc-prefixed` (`"doc-1"`), `number` (`1`, a JSON number), `uuid`
 * (`"00000000-0000-4000-8000-000000000001"`) or `int64` (`18000000000000000001`, a bare JSON number beyond 2^53
 * that `JSON.parse` rounds). The control API always shows it as a string.
 */
export const DOCUMENT_ID_STYLES = ['doc-prefixed', 'number', 'uuid', 'int64'] as const;

/** See {@link DOCUMENT_ID_STYLES}. */
export type DocumentIdStyle = (typeof DOCUMENT_ID_STYLES)[number];

/**
 * Body of every error answer of the platform routes (the control API always uses `reference`):
 * - `reference`: `{ error: { status, code, message, field?, scope? } }`;
 * - `message`: `{ message }`;
 * - `problem`: RFC 9457 `application/problem+json` `{ type, title, status, detail, invalid_params? }`;
 * - `text`: `text/plain` `"<status> <reason>: <message>"`;
 * - `empty`: no body at all.
 */
export const ERROR_STYLES = ['reference', 'message', 'problem', 'text', 'empty'] as const;

/** See {@link ERROR_STYLES}. */
export type ErrorStyle = (typeof ERROR_STYLES)[number];

/**
 * Where the token names the user: `null` puts the numeric user id in `sub` (reference); otherwise `sub` is a
 * UUID (as Keycloak and many identity servers issue) and the user id is in the claim `name`, as a JSON number or
 * a digit string. The document API expects that user id as `document_owner`.
 */
const userIdClaimSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z_][\w]{0,63}$/),
    type: z.enum(['number', 'string']),
  })
  .nullable();

/**
 * How the `bare` envelope's `Link` header (RFC 8288) names further pages: `next` (one absolute `rel="next"`
 * link) or `rels` (relative `first`, `prev`, `next` and `last` links in one header, as GitLab and GitHub do).
 */
export const STOCK_LINK_STYLES = ['next', 'rels'] as const;

/** The total-count header of a paged stock list: none, `X-Total-Count` or `X-Total` (with `X-Total-Pages`). */
export const STOCK_TOTAL_HEADERS = ['none', 'x-total-count', 'x-total'] as const;

const successStatus = z.union([z.literal(200), z.literal(201)]);

/** An order id the sandbox counts up from: a positive integer's digits, up to 40 (it may pass 2^53). */
export const firstOrderIdSchema = z
  .string()
  .regex(/^[1-9]\d{0,39}$/, 'must be a positive integer of up to 40 digits');

/** Zod schema of a profile; custom profiles passed to `startSandbox` are validated with it. */
export const sandboxProfileSchema = z.strictObject({
  /** Name shown by `GET /_sandbox/profile`. */
  name: z.string().min(1),
  /** One line saying what platform the profile plays. */
  description: z.string(),
  token: z.strictObject({
    /** `token_type` value, or null to leave the field out. */
    tokenType: z.enum(['Bearer', 'bearer']).nullable(),
    /** Whether `expires_in` (seconds) is present. */
    expiresIn: z.boolean(),
    /** Whether and how `expires_at` is present. */
    expiresAt: z.enum(['none', 'epoch-seconds', 'iso-8601']),
    /** Whether an (opaque, never redeemable) `refresh_token` is present. */
    refreshToken: z.boolean(),
    userIdClaim: userIdClaimSchema,
    /** Whether the JWT carries `iat` (it always carries `exp`). */
    issuedAt: z.boolean(),
    /**
     * How far the identity API's clock runs ahead of the sandbox's (negative: behind), in seconds. Its tokens'
     * `iat`, `exp` and `expires_at` are in its time, and it checks expiry in its time, so a token still lives
     * the configured lifetime.
     */
    clockOffsetSeconds: z.number().int(),
    /**
     * At most `count` token calls (all users, any outcome) in any `perSeconds`; beyond, 429 `rate_limited` with
     * `Retry-After`. Null: no limit.
     */
    signInLimit: z
      .strictObject({ count: z.number().int().min(1), perSeconds: z.number().int().min(1) })
      .nullable(),
    /**
     * The credentials the token call takes: the spec's JSON `username` and `password` (`password`, the default
     * when absent), or only the OAuth 2.0 client credentials grant (`client_credentials`, RFC 6749 §4.4: a form,
     * the client in HTTP Basic or the body), whose tokens name the client, not a user.
     */
    grant: z.enum(['password', 'client_credentials']).optional(),
  }),
  stocks: z.strictObject({
    envelope: z.enum(STOCK_ENVELOPES),
    /** Stocks per page; null lists every stock in one answer. */
    pageSize: z.number().int().min(1).nullable(),
    /** `stock_id` as a JSON number or as a numeric string (orders accept both either way). */
    stockIdType: z.enum(['number', 'string']),
    /** See {@link STOCK_LINK_STYLES}; only the `bare` envelope sends a `Link` header. */
    link: z.enum(STOCK_LINK_STYLES),
    /** See {@link STOCK_TOTAL_HEADERS}; sent on every stocks answer when not `none`. */
    totalHeader: z.enum(STOCK_TOTAL_HEADERS),
  }),
  orders: z.strictObject({
    status: successStatus,
    /** The order `id` as a JSON number (written digit for digit, however large) or a numeric string. */
    idType: z.enum(['number', 'string']),
    envelope: z.enum(ORDER_ENVELOPES),
    fields: z.enum(ORDER_FIELD_SETS),
    /** Id of the first order (and again after a reset), as digits: it may pass 2^53. Ids increase by one. */
    firstOrderId: firstOrderIdSchema,
  }),
  documents: z.strictObject({
    status: successStatus,
    links: z.enum(DOCUMENT_LINK_STYLES),
    idStyle: z.enum(DOCUMENT_ID_STYLES),
    /** The name the file part must have, or `any`: one file part under any name. */
    filePart: z.string().regex(/^[\x21-\x7e]{1,100}$/),
    /**
     * Whether `document_owner` must be the token's user (else 422 naming `document_owner`) or is recorded as
     * sent.
     */
    ownerChecked: z.boolean(),
  }),
  errors: z.enum(ERROR_STYLES),
  idempotency: z.enum(IDEMPOTENCY_MODES),
  /** What the platform wants requests to carry: where the spec shows no name, another platform may choose others. */
  requests: z.strictObject({
    /** The create payload's members for the vehicle data, the badge data and the stock id (else 422 naming it). */
    orderFields: z.strictObject({ vehicle: z.string(), badge: z.string(), stockId: z.string() }),
    /** A header that must carry {@link SANDBOX_TENANT_ID} on every call (else 400 naming it), or null. */
    tenantHeader: z.string().nullable(),
  }),
});

/** The tenant id a sandbox with a tenant header wants (`requests.tenantHeader`). */
export const SANDBOX_TENANT_ID = 'tenant-4711';

/** A complete profile; see the field comments of {@link sandboxProfileSchema}. */
export type SandboxProfile = Readonly<{
  [K in keyof z.output<typeof sandboxProfileSchema>]: Readonly<z.output<typeof sandboxProfileSchema>[K]>;
}>;

/** The sandbox's historical behaviour: exactly what `shapes.ts` and `docs/sandbox.md` describe. */
const REFERENCE: SandboxProfile = {
  name: 'reference',
  description: "the sandbox's original choices; the default",
  token: {
    tokenType: 'Bearer',
    expiresIn: true,
    expiresAt: 'none',
    refreshToken: false,
    userIdClaim: null,
    issuedAt: true,
    clockOffsetSeconds: 0,
    signInLimit: null,
  },
  stocks: { envelope: 'data', pageSize: null, stockIdType: 'number', link: 'next', totalHeader: 'none' },
  orders: { status: 201, idType: 'number', envelope: 'bare', fields: 'full', firstOrderId: '5001' },
  documents: {
    status: 201,
    links: 'links',
    idStyle: 'doc-prefixed',
    filePart: 'file',
    ownerChecked: false,
  },
  errors: 'reference',
  idempotency: 'honoured',
  requests: { orderFields: { vehicle: 'vehicle', badge: 'badge', stockId: 'stock_id' }, tenantHeader: null },
};

/** Names of the named profiles, `reference` first; loop over them to run a test against every one. */
export const SANDBOX_PROFILE_NAMES = [
  'reference',
  'urls',
  'hal',
  'legacy',
  'json-api',
  'minimal',
  'keycloak',
  'link-pages',
  'int64',
  'strict-clock',
  'strict-names',
] as const;

/** One of {@link SANDBOX_PROFILE_NAMES}. */
export type SandboxProfileName = (typeof SANDBOX_PROFILE_NAMES)[number];

/**
 * Profiles that refuse what the client sends by default: each runs only with the settings docs/platform-client.md
 * names for it, so they are not among {@link SANDBOX_PROFILE_NAMES}, which the default configuration meets.
 */
export const STRICT_PROFILE_NAMES = ['strict-client'] as const;

/** One of {@link STRICT_PROFILE_NAMES}. */
export type StrictProfileName = (typeof STRICT_PROFILE_NAMES)[number];

/** What a named profile changes in `reference`: whole top-level choices, or single fields of a section. */
type ProfileChanges = Pick<SandboxProfile, 'name' | 'description'> & {
  readonly [K in Exclude<keyof SandboxProfile, 'name' | 'description'>]?: SandboxProfile[K] extends object
    ? Partial<SandboxProfile[K]>
    : SandboxProfile[K];
};

/** `reference` with `changes` applied. */
function variant(changes: ProfileChanges): SandboxProfile {
  return {
    ...REFERENCE,
    ...changes,
    token: { ...REFERENCE.token, ...changes.token },
    stocks: { ...REFERENCE.stocks, ...changes.stocks },
    orders: { ...REFERENCE.orders, ...changes.orders },
    documents: { ...REFERENCE.documents, ...changes.documents },
    requests: { ...REFERENCE.requests, ...changes.requests },
  };
}

/** The named profiles, by name. Each differs from `reference` in many choices at once. */
const NAMED: Readonly<Record<SandboxProfileName | StrictProfileName, SandboxProfile>> = {
  reference: REFERENCE,
  urls: variant({
    name: 'urls',
    description:
      'the independent implementation of issue 15: urls.{original,thumbnail,signed} and document.id',
    token: { tokenType: null, expiresIn: false, expiresAt: 'epoch-seconds' },
    stocks: { envelope: 'bare', pageSize: 1 },
    orders: { envelope: 'data', fields: 'extra', firstOrderId: '70001' },
    documents: { links: 'urls', idStyle: 'number' },
    errors: 'message',
  }),
  hal: variant({
    name: 'hal',
    description: 'a Spring HATEOAS style platform: _links with href, content pages, problem+json errors',
    token: { tokenType: 'bearer', refreshToken: true },
    stocks: { envelope: 'content-links', pageSize: 2, stockIdType: 'string' },
    orders: { status: 200, idType: 'string', fields: 'extra', firstOrderId: '900001' },
    documents: { status: 200, links: 'hal', idStyle: 'uuid', filePart: 'any' },
    errors: 'problem',
  }),
  legacy: variant({
    name: 'legacy',
    description:
      'an older platform that ignores Idempotency-Key: page numbers, flat link fields, text errors',
    token: { tokenType: null, expiresAt: 'iso-8601', refreshToken: true },
    stocks: { envelope: 'items-page', pageSize: 1, stockIdType: 'string' },
    orders: { status: 200, idType: 'string', envelope: 'order', firstOrderId: '31337' },
    documents: { status: 200, links: 'flat', idStyle: 'number', filePart: 'any' },
    errors: 'text',
    idempotency: 'ignored',
  }),
  'json-api': variant({
    name: 'json-api',
    description: 'a JSON:API style platform that ignores Idempotency-Key and answers errors without a body',
    token: { expiresAt: 'epoch-seconds' },
    stocks: { pageSize: 2 },
    orders: { idType: 'string', envelope: 'data', fields: 'extra', firstOrderId: '12001' },
    documents: { links: 'json-api' },
    errors: 'empty',
    idempotency: 'ignored',
  }),
  minimal: variant({
    name: 'minimal',
    description: 'as little as the specification allows: access_token only, { id } only, results pages',
    token: { tokenType: null, expiresIn: false },
    stocks: { envelope: 'results-next', pageSize: 2 },
    orders: { fields: 'id-only', firstOrderId: '1' },
    documents: { links: 'urls', idStyle: 'uuid', filePart: 'any' },
    errors: 'message',
  }),
  keycloak: variant({
    name: 'keycloak',
    description:
      'the independent implementation of issue 27: a UUID sub with the user id in user_id, stock pages only in Link and X-Total-Count headers, the owner checked',
    token: { refreshToken: true, userIdClaim: { name: 'user_id', type: 'number' } },
    stocks: { envelope: 'bare', pageSize: 1, totalHeader: 'x-total-count' },
    orders: { firstOrderId: '880001' },
    documents: { links: 'flat', idStyle: 'uuid', ownerChecked: true },
    errors: 'problem',
  }),
  'link-pages': variant({
    name: 'link-pages',
    description:
      'a GitLab style API that ignores Idempotency-Key: relative Link rels and X-Total headers, a UUID sub with the user id in uid, the owner checked',
    token: { tokenType: null, expiresAt: 'epoch-seconds', userIdClaim: { name: 'uid', type: 'string' } },
    stocks: { envelope: 'bare', pageSize: 1, stockIdType: 'string', link: 'rels', totalHeader: 'x-total' },
    orders: { status: 200, idType: 'string', envelope: 'data', fields: 'extra', firstOrderId: '640001' },
    documents: { status: 200, links: 'urls', idStyle: 'number', filePart: 'any', ownerChecked: true },
    errors: 'message',
    idempotency: 'ignored',
  }),
  int64: variant({
    name: 'int64',
    description:
      'a platform numbering orders and documents with 64-bit integers beyond 2^53, sent as bare JSON numbers',
    token: { tokenType: 'bearer', expiresAt: 'epoch-seconds' },
    stocks: { pageSize: 2 },
    // Near 2^63, doubles lie 1,024 apart: read through JSON.parse, consecutive orders would share one id.
    orders: { envelope: 'data', fields: 'extra', firstOrderId: '9223372036854770001' },
    documents: { status: 200, links: 'hal', idStyle: 'int64' },
    errors: 'problem',
    idempotency: 'ignored',
  }),
  'strict-names': variant({
    name: 'strict-names',
    description:
      'a platform that names what the spec leaves open otherwise: the tenant id in X-Tenant-ID on every call, vehicle_data and badge_data, the file part attachment',
    documents: { filePart: 'attachment' },
    requests: {
      orderFields: { vehicle: 'vehicle_data', badge: 'badge_data', stockId: 'stock_id' },
      tenantHeader: 'X-Tenant-ID',
    },
  }),
  'strict-clock': variant({
    name: 'strict-clock',
    description:
      'the platform of issue 57: its clock 10 minutes behind, JWTs with exp but no iat nor expires_in, and sign-ins rate-limited',
    token: {
      tokenType: 'bearer',
      expiresIn: false,
      expiresAt: 'epoch-seconds',
      refreshToken: true,
      issuedAt: false,
      clockOffsetSeconds: -600,
      signInLimit: { count: 20, perSeconds: 60 },
    },
    stocks: { pageSize: 2 },
    orders: { firstOrderId: '570001' },
    errors: 'problem',
  }),
  'strict-client': variant({
    name: 'strict-client',
    description:
      'an OAuth 2.0 identity API: the client credentials grant only (demo-client, HTTP Basic or in the body), tokens naming the client and no user, the owner checked',
    token: { grant: 'client_credentials' },
    documents: { ownerChecked: true },
  }),
};

/** The profile a sandbox runs when none is chosen. */
export const DEFAULT_PROFILE_NAME: SandboxProfileName = 'reference';

function isProfileName(name: string): name is SandboxProfileName | StrictProfileName {
  return ([...SANDBOX_PROFILE_NAMES, ...STRICT_PROFILE_NAMES] as readonly string[]).includes(name);
}

/** The named profile `name`; undefined for unknown names. */
export function namedProfile(name: string): SandboxProfile | undefined {
  return isProfileName(name) ? NAMED[name] : undefined;
}

/** Draws every choice of a profile from `random`. */
function drawProfile(name: string, random: RandomSource): SandboxProfile {
  const bool = (): boolean => random() < 0.5;
  const drawn = drawChoices(name, random, bool);
  // Choices added later are drawn after the others, so every seed keeps the choices it always had.
  const userIdClaim = pick(random, [
    null,
    { name: 'user_id', type: 'number' },
    { name: 'uid', type: 'string' },
  ] as const);
  const { issuedAt, clockOffsetSeconds, signInLimit } = REFERENCE.token;
  return {
    ...drawn,
    // The clock and the sign-in limit are not drawn: every random profile keeps the reference clock.
    token: { ...drawn.token, userIdClaim, issuedAt, clockOffsetSeconds, signInLimit },
    stocks: {
      ...drawn.stocks,
      link: pick(random, STOCK_LINK_STYLES),
      totalHeader: pick(random, STOCK_TOTAL_HEADERS),
    },
    documents: { ...drawn.documents, ownerChecked: bool() },
    requests: REFERENCE.requests,
  };
}

type Drawn = {
  readonly [K in Exclude<keyof SandboxProfile, 'requests'>]: SandboxProfile[K] extends object
    ? Omit<
        SandboxProfile[K],
        | 'userIdClaim'
        | 'issuedAt'
        | 'clockOffsetSeconds'
        | 'signInLimit'
        | 'link'
        | 'totalHeader'
        | 'ownerChecked'
      >
    : SandboxProfile[K];
};

/** The choices every profile had from the start, drawn in their original order. */
function drawChoices(name: string, random: RandomSource, bool: () => boolean): Drawn {
  return {
    name,
    description: 'every choice drawn with a seeded PRNG',
    token: {
      tokenType: pick(random, ['Bearer', 'bearer', null] as const),
      expiresIn: bool(),
      expiresAt: pick(random, ['none', 'epoch-seconds', 'iso-8601'] as const),
      refreshToken: bool(),
    },
    stocks: {
      envelope: pick(random, STOCK_ENVELOPES),
      pageSize: pick(random, [null, 1, 2] as const),
      stockIdType: pick(random, ['number', 'string'] as const),
    },
    orders: {
      status: pick(random, [200, 201] as const),
      idType: pick(random, ['number', 'string'] as const),
      envelope: pick(random, ORDER_ENVELOPES),
      fields: pick(random, ORDER_FIELD_SETS),
      firstOrderId: String(1 + Math.floor(random() * 999_999)),
    },
    documents: {
      status: pick(random, [200, 201] as const),
      links: pick(random, DOCUMENT_LINK_STYLES),
      idStyle: pick(random, DOCUMENT_ID_STYLES),
      filePart: pick(random, ['file', 'any'] as const),
    },
    errors: pick(random, ERROR_STYLES),
    idempotency: pick(random, IDEMPOTENCY_MODES),
  };
}

/**
 * What selects a profile: a named profile, `random:<seed>` (seed an integer from 0 to 2^32 − 1), or a whole
 * profile (validated with {@link sandboxProfileSchema}). Plain strings are accepted for CLI and environment input.
 */
export type SandboxProfileSelection = string | SandboxProfile;

/**
 * Resolves a selection to a complete profile, applying the `idempotency` override. Throws
 * {@link SandboxConfigError} (field `profile`) for unknown names, bad seeds or invalid custom profiles.
 */
export function resolveProfile(
  selection: SandboxProfileSelection = DEFAULT_PROFILE_NAME,
  idempotency?: IdempotencyMode,
): SandboxProfile {
  const base = typeof selection === 'string' ? profileByName(selection) : validated(selection);
  if (idempotency !== undefined && !(IDEMPOTENCY_MODES as readonly string[]).includes(idempotency)) {
    throw new SandboxConfigError(
      `unknown idempotency mode "${String(idempotency)}" (modes: ${IDEMPOTENCY_MODES.join(', ')})`,
      'idempotency',
    );
  }
  return deepFreeze(structuredClone({ ...base, ...(idempotency !== undefined ? { idempotency } : {}) }));
}

function profileByName(selection: string): SandboxProfile {
  const named = namedProfile(selection);
  if (named) return named;
  const seed = /^random:(\d{1,10})$/.exec(selection)?.[1];
  if (seed !== undefined && Number(seed) <= 0xffffffff) {
    return drawProfile(`random:${Number(seed)}`, seededRandom(Number(seed)));
  }
  throw new SandboxConfigError(
    `unknown profile "${selection}" (profiles: ${[...SANDBOX_PROFILE_NAMES, ...STRICT_PROFILE_NAMES].join(', ')}, random:<seed>)`,
    'profile',
  );
}

function validated(profile: SandboxProfile): SandboxProfile {
  const result = sandboxProfileSchema.safeParse(profile);
  if (!result.success) {
    throw new SandboxConfigError(`invalid profile: ${describeZodError(result.error)}`, 'profile');
  }
  return result.data;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const entry of Object.values(value)) deepFreeze(entry);
    Object.freeze(value);
  }
  return value;
}
