/**
 * The public contract of badge-orders: what backend systems, the operator tools and the workflows exchange, each
 * shape defined once as a zod schema with its type inferred. Inputs are validated with these schemas; results,
 * the status view and webhook events are the types workflow code builds, and the HTTP API (src/http-contract.ts)
 * and the JSON Schemas in `schemas/` are generated from the same schemas. Beside it: the names workflow code needs
 * without zod (src/workflow-contract.ts) and the workflow's messages (src/workflow-messages.ts).
 *
 * Imported by workflow code (lazily, see src/workflows/contract-schemas.ts), so it stays deterministic: no Node
 * built-ins, no I/O.
 */
import { z } from 'zod';
import { isLoopbackHost } from './url-policy';
import { BADGE_ORDER_STATUSES, documentSourceOf, WEBHOOK_EVENT_TYPES } from './workflow-contract';

/** Default task queue of the badge order workers (overridable with `TEMPORAL_TASK_QUEUE`). */
export const DEFAULT_TASK_QUEUE = 'badge-orders';

/** Prefix of every badge order's workflow id. */
export const BADGE_ORDER_WORKFLOW_ID_PREFIX = 'badge-order-';

/**
 * The workflow id of an order: one workflow per `orderRef` of a client, so a second start attaches instead of
 * duplicating, and two clients using the same `orderRef` get two orders. `badge-order-<orderRef>` for an order
 * without a client (as every order had before clients), `badge-order-<orderRef>@<clientId>` for a client's:
 * neither an `orderRef` nor a client id may contain `@`, so no two pairs share an id.
 */
export function badgeOrderWorkflowId(orderRef: string, clientId?: string): string {
  return `${BADGE_ORDER_WORKFLOW_ID_PREFIX}${orderRef}${clientId === undefined ? '' : `@${clientId}`}`;
}

/**
 * The folder under `DOCUMENTS_ROOT` of a client's `path` documents: an order placed through the HTTP API names
 * files only inside it (its input's `documentsFolder`).
 */
export function clientDocumentsFolder(clientId: string): string {
  return `clients/${clientId}`;
}

const ORDER_REF_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
/** Upper bound for the UTF-8 JSON size of vehicle and badge data: they travel in workflow history. */
const MAX_ORDER_DATA_JSON_BYTES = 64 * 1024;
/**
 * Upper bound for the nesting of vehicle and badge data (the object itself is level 1). Deeper data is no real
 * vehicle, and a bound keeps every later `JSON.stringify` (payload converter, size check) far from the stack limit.
 */
const MAX_ORDER_DATA_DEPTH = 16;
const MAX_DOCUMENTS = 500;
const SECOND_MS = 1000;
const HOUR_MS = 60 * 60 * SECOND_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * Whether a document path stays inside the documents root lexically: relative, no `..` segment, no NUL.
 * The worker checks symlinks on disk as well; this check is the part that workflow code can do.
 */
export function isConfinedRelativePath(path: string): boolean {
  if (path.includes('\0')) return false;
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path)) return false;
  return !path.split(/[\\/]+/).some((segment) => segment === '..');
}

/** The segments of a relative path, without empty ones and `.`. */
const segmentsOf = (path: string): string[] =>
  path.split(/[\\/]+/).filter((segment) => segment !== '' && segment !== '.');

/** Whether a confined relative path lies inside `folder` (a confined relative path too), lexically. */
export function isInsideFolder(path: string, folder: string): boolean {
  const inner = segmentsOf(path);
  const outer = segmentsOf(folder);
  return inner.length > outer.length && outer.every((segment, index) => inner[index] === segment);
}

/**
 * The platform's order id: its digits, as many as it sends (the specification calls it a "numeric identifier";
 * platforms number orders with 64-bit integers, beyond what a JavaScript number holds), up to 64.
 */
export const ORDER_ID_PATTERN = /^\d{1,64}$/;

/**
 * The numeric form of an id that callers of earlier releases send: a non-negative integer up to 2^53 − 1. A
 * larger number has lost its last digits in `JSON.parse` before any check could see it, so it is refused.
 */
const numericIdSchema = z
  .number()
  .nonnegative('must not be negative')
  .max(
    Number.MAX_SAFE_INTEGER,
    'is beyond 2^53 and cannot arrive intact as a JSON number: send it as a string',
  )
  .refine(Number.isInteger, 'must be an integer')
  .meta({ type: 'integer' });

/** An id given as a string (checked by `text`) or as a number (taken as its digits), always a string after. */
const idSchema = (text: z.ZodString, error: string, description: string) =>
  z.union([text, numericIdSchema], { error }).transform(String).meta({ description });

/**
 * A platform identifier (a stock, a document owner): opaque, kept exactly as given. A number is taken as its
 * digits, so `1001` and `"1001"` are the same id.
 */
const identifierSchema = idSchema(
  z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
  'must be a non-empty string or a non-negative integer',
  'A platform id, kept exactly as given. A number (up to 2^53 − 1) is taken as its digits; send larger ids as strings.',
);

/** The platform's order id, as an operator names it: its digits as a string (or a number up to 2^53 − 1). */
const orderIdSchema = idSchema(
  z.string().trim().regex(ORDER_ID_PATTERN, "must be the platform's order id: 1 to 64 digits"),
  "must be the platform's order id as a string of digits",
  "The platform's order id, its digits as a string, every digit kept (a number is accepted up to 2^53 − 1).",
);

/** UTF-8 bytes of a string as `JSON.stringify` writes it (escapes, and `\uXXXX` for a lone surrogate). */
function jsonStringBytes(text: string): number {
  return new TextEncoder().encode(JSON.stringify(text)).length;
}

/** Why a value cannot travel as vehicle or badge data, or null when it can. */
function nonJsonReason(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : 'must hold only finite numbers';
    case 'object':
      if (value === null || Array.isArray(value)) return null;
      // Dates, Maps, class instances… would change shape in JSON; only plain data is order data.
      return Object.prototype.toString.call(value) === '[object Object]' ? null : 'must hold only JSON data';
    default:
      return 'must hold only JSON data';
  }
}

/** UTF-8 bytes of a JSON scalar, or of the brackets of an array or object (its content counted apart). */
function jsonOwnBytes(value: unknown): number {
  if (typeof value === 'string') return jsonStringBytes(value);
  if (typeof value === 'number') return String(value).length;
  if (typeof value === 'boolean') return value ? 4 : 5;
  return value === null ? 4 : 2;
}

/**
 * Checks vehicle or badge data without recursion and without `JSON.stringify`, so that no input (6,000 levels
 * deep, megabytes wide, cyclic) can overflow the stack or take long: the walk stops at the first level beyond
 * {@link MAX_ORDER_DATA_DEPTH} and as soon as the running UTF-8 size passes {@link MAX_ORDER_DATA_JSON_BYTES},
 * so it visits at most about that many values. The size is exactly `JSON.stringify`'s output in UTF-8 bytes.
 *
 * @returns the problem (a message without the field name), or null when the data may travel.
 */
function orderDataProblem(data: unknown): string | null {
  const tooDeep = `nesting deeper than ${MAX_ORDER_DATA_DEPTH} levels`;
  const tooBig = `must be at most ${MAX_ORDER_DATA_JSON_BYTES} bytes as UTF-8 JSON`;
  const pending: { readonly value: unknown; readonly depth: number }[] = [{ value: data, depth: 1 }];
  let bytes = 0;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth } = next;
    const reason = nonJsonReason(value);
    if (reason !== null) return reason;
    bytes += jsonOwnBytes(value);
    if (typeof value === 'object' && value !== null) {
      if (depth > MAX_ORDER_DATA_DEPTH) return tooDeep;
      if (Array.isArray(value)) {
        const items: readonly unknown[] = value;
        bytes += Math.max(items.length - 1, 0); // commas
        if (bytes > MAX_ORDER_DATA_JSON_BYTES) return tooBig;
        for (let index = 0; index < items.length; index += 1) {
          pending.push({ value: items[index], depth: depth + 1 });
        }
      } else {
        let members = 0;
        for (const key in value) {
          if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
          const member: unknown = (value as Record<string, unknown>)[key];
          // JSON leaves out members whose value is undefined; so does the size.
          if (member === undefined) continue;
          bytes += jsonStringBytes(key) + 1 + (members > 0 ? 1 : 0); // "key": and a comma
          members += 1;
          if (bytes > MAX_ORDER_DATA_JSON_BYTES) return tooBig;
          pending.push({ value: member, depth: depth + 1 });
        }
      }
    }
    if (bytes > MAX_ORDER_DATA_JSON_BYTES) return tooBig;
  }
  return null;
}

const orderDataSchema = z
  .record(z.string(), z.unknown(), { error: 'must be an object' })
  .refine((value) => Object.keys(value).length > 0, 'must not be empty')
  .superRefine((value, ctx) => {
    const problem = orderDataProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  })
  // What the refinement requires, for JSON Schema (which cannot state the size and nesting bounds).
  .meta({ minProperties: 1 });

/**
 * Pattern of a content-addressed document reference: `sha256:` and the 64 lowercase hex digits of the stored
 * bytes' SHA-256 (see `src/documents/store.ts`).
 */
export const DOCUMENT_REFERENCE_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** Whether a string is a document reference (`sha256:<64 hex>`) rather than a path. */
export function isDocumentReference(value: string): boolean {
  return DOCUMENT_REFERENCE_PATTERN.test(value);
}

/** A path relative to DOCUMENTS_ROOT, inside it, of at most `max` characters. */
const relativePathSchema = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine(
      isConfinedRelativePath,
      'must be a relative path inside DOCUMENTS_ROOT (no absolute path, no "..")',
    );

/**
 * A path under DOCUMENTS_ROOT. A string shaped like a reference is refused as a path, so a document's source
 * (a path or a reference, see {@link documentSourceOf}) is never ambiguous.
 */
const documentPathSchema = relativePathSchema(1024).refine(
  (path) => !isDocumentReference(path),
  'is a document reference: name it with "ref", not "path"',
);

const documentReferenceSchema = z
  .string({ error: 'must be a string' })
  .regex(DOCUMENT_REFERENCE_PATTERN, 'must be a document reference: "sha256:" and 64 lowercase hex digits');

/**
 * A file name sent to the platform (the `filename` of the file part's `Content-Disposition`): no control
 * character, quote, slash or backslash, so it is safe in that header as written, not only through the
 * encoder's escaping.
 */
const FILENAME_PATTERN = /^[^\p{Cc}"\\/]*$/u;
const filenameSchema = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters')
  .regex(FILENAME_PATTERN, 'must be a file name: no control characters, quotes, slashes or backslashes')
  .refine((name) => name !== '.' && name !== '..', 'must be a file name, not "." or ".."');

/** MIME type of a document. */
const contentTypeSchema = z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as image/jpeg');

/**
 * One document to upload, as the caller names it: exactly one of `path` (a file under the worker's
 * `DOCUMENTS_ROOT`) and `ref` (a document in the document store, as `POST /v1/documents` answered it).
 */
const documentInputSchema = z
  .object({
    /** Path relative to the worker's `DOCUMENTS_ROOT`. */
    path: documentPathSchema.optional(),
    /** A document in the document store: `sha256:<64 hex>` of its bytes. */
    ref: documentReferenceSchema.optional(),
    /** MIME type; from the store (`ref`) or the file name (`path`) when absent. */
    contentType: contentTypeSchema.optional(),
    /** File name sent to the platform; the path's last segment (or a name made from the reference) when absent. */
    filename: filenameSchema.optional(),
  })
  .superRefine((document, ctx) => {
    if (document.path === undefined && document.ref === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['path'],
        message: 'is required (or "ref"): name the document once',
      });
    } else if (document.path !== undefined && document.ref !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['ref'], message: 'must not be given together with "path"' });
    }
  });

/**
 * A duration option in whole milliseconds between `min` and `max`: the workflow adds it to `Date.now()` and
 * prints the deadline, so it must stay far inside the range of a date.
 */
function durationMsSchema(max: { readonly ms: number; readonly text: string }): z.ZodNumber {
  return z
    .number({ error: 'must be a number of milliseconds' })
    .int('must be whole milliseconds')
    .min(SECOND_MS, `must be at least ${SECOND_MS} ms (1 second)`)
    .max(max.ms, `must be at most ${max.ms} ms (${max.text})`);
}

/**
 * Why `url` cannot be an order's `callbackUrl` whatever the workers allow, or null when its shape is right: an
 * absolute `https://` URL without credentials or fragment, or `http://` to this machine (127.0.0.0/8, `::1`,
 * `localhost`). Where it may lead (no internal address, the workers' host list) is decided by
 * `callbackUrlProblem` in `src/webhook-destination.ts`, which the HTTP API and the workers apply.
 */
export function callbackUrlShapeProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.username !== '' || parsed.password !== '')
    return 'must not contain credentials (user:password@)';
  if (parsed.hash !== '') return 'must not contain a fragment (#…)';
  if (parsed.protocol === 'http:') {
    if (!isLoopbackHost(parsed.hostname)) return 'must be an https:// URL (http:// only to this machine)';
  } else if (parsed.protocol !== 'https:') {
    return 'must be an https:// URL';
  }
  return null;
}

/**
 * An order's `clientId`: the client (API key's client, `oidc:…` or `oidc-sub:…`) that owns it. No `@` (see the
 * workflow id).
 */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** Bounds of the retry and waiting windows: at least a second, at most 30 days. */
const windowMsSchema = durationMsSchema({ ms: 30 * DAY_MS, text: '30 days' });
/** A heartbeat timeout beyond an hour would leave a dead worker's upload unnoticed for that long. */
const heartbeatMsSchema = durationMsSchema({ ms: HOUR_MS, text: '1 hour' });

/** Tuning of one order's run; every field has a default that suits production. */
const badgeOrderOptionsSchema = z.object({
  /** Documents uploaded at the same time. @default 4 */
  maxParallelUploads: z.number().int().min(1).max(32).optional(),
  /**
   * How long one document is retried (network, 5xx, 429) before it counts as failed; 1 second to 30 days.
   * @default 30 minutes
   */
  uploadRetryWindowMs: windowMsSchema.optional(),
  /**
   * How long an upload may go without a heartbeat before it is retried (a worker died, say); 1 second to 1 hour.
   * @default 1 minute
   */
  uploadHeartbeatTimeoutMs: heartbeatMsSchema.optional(),
  /**
   * How long authentication, stock lookup and order creation are retried before the run fails; 1 second to 30
   * days. @default 1 day
   */
  platformRetryWindowMs: windowMsSchema.optional(),
  /** How long an order waits in AwaitingRepair before it ends as Failed; 1 second to 30 days. @default 7 days */
  repairWindowMs: windowMsSchema.optional(),
  /**
   * How long an order waits in AwaitingReconciliation before it ends as Failed; 1 second to 30 days.
   * @default 7 days
   */
  reconciliationWindowMs: windowMsSchema.optional(),
  /**
   * How far an accepted `replaceDocument` pushes the repair deadline out (never in): the operator who just
   * fixed a file gets time to see it through; 1 second to 30 days. @default 1 day
   */
  replacementGraceMs: windowMsSchema.optional(),
  /**
   * History events after which a run waiting for repair continues as new, carrying the order's state. Only
   * lower than the default for tests; 100 to 20,000. @default 2,000
   */
  historyBudgetEvents: z
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(100, 'must be at least 100')
    .max(20_000, 'must be at most 20000')
    .optional(),
});

/** Input of the `badgeOrder` workflow. */
export const badgeOrderInputSchema = z
  .object(
    {
      orderRef: z
        .string({ error: 'must be a string' })
        .min(1, 'must not be empty')
        .max(100, 'must be at most 100 characters')
        .regex(ORDER_REF_PATTERN, 'may contain only letters, digits, ".", "_", ":" and "-"'),
      stockId: identifierSchema.optional(),
      vehicle: orderDataSchema,
      badge: orderDataSchema,
      documentOwner: identifierSchema.optional(),
      documents: z
        .array(documentInputSchema, { error: 'must be an array' })
        .max(MAX_DOCUMENTS, `must hold at most ${MAX_DOCUMENTS} documents`),
      options: badgeOrderOptionsSchema.optional(),
      /**
       * Where the order's webhooks go (docs/webhooks.md): an `https://` URL, or `http://` to this machine when
       * the worker allows it. No webhooks when absent.
       */
      callbackUrl: z
        .string({ error: 'must be a string' })
        .max(2048, 'must be at most 2048 characters')
        .superRefine((url, ctx) => {
          const problem = callbackUrlShapeProblem(url);
          if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
      /**
       * The client that owns the order (the HTTP API sets its caller's client id): it alone sees the order, its
       * `orderRef` is unique within it, and it picks the secret the order's webhooks are signed with (the
       * `default` secret signs when absent).
       */
      clientId: z
        .string({ error: 'must be a string' })
        .regex(CLIENT_ID_PATTERN, 'must be 1 to 64 letters, digits, ".", "_", ":" or "-"')
        .optional(),
      /**
       * The folder under `DOCUMENTS_ROOT` that the order's `path` documents (and their replacements) must be
       * in: the worker opens them only there, whatever links lie inside. Set by the HTTP API to the client's
       * folder ({@link clientDocumentsFolder}); absent: anywhere under the root (the starter, trusted backends).
       */
      documentsFolder: relativePathSchema(200).optional(),
    },
    { error: 'must be an object' },
  )
  .superRefine((input, ctx) => {
    const folder = input.documentsFolder;
    if (folder !== undefined) {
      input.documents.forEach((document, index) => {
        if (document.path !== undefined && !isInsideFolder(document.path, folder)) {
          ctx.addIssue({
            code: 'custom',
            path: ['documents', index, 'path'],
            message: `must be inside ${folder}/ (this client's folder under DOCUMENTS_ROOT)`,
          });
        }
      });
    }
    const seen = new Set<string>();
    input.documents.forEach((document, index) => {
      if (document.path === undefined && document.ref === undefined) return;
      const source = documentSourceOf(document);
      const field = document.ref === undefined ? 'path' : 'ref';
      if (seen.has(source)) {
        ctx.addIssue({ code: 'custom', path: ['documents', index, field], message: 'is listed twice' });
      }
      seen.add(source);
    });
  });

/** A document of a {@link BadgeOrderInput}. */
export type DocumentInput = z.infer<typeof documentInputSchema>;
/** Input of the `badgeOrder` workflow (what callers send; optional fields may be absent). */
export type BadgeOrderInput = z.input<typeof badgeOrderInputSchema>;
/** A validated {@link BadgeOrderInput}. */
export type ValidBadgeOrderInput = z.output<typeof badgeOrderInputSchema>;
/** Tuning options of one order. */
export type BadgeOrderOptions = z.infer<typeof badgeOrderOptionsSchema>;

/** Every tuning option of one order, as resolved when it started (defaults filled in). */
const resolvedOptionsSchema = badgeOrderOptionsSchema.required();
export type ResolvedBadgeOrderOptions = z.output<typeof resolvedOptionsSchema>;

/** Thrown by {@link parseBadgeOrderInput}: the message names every invalid field. */
export class InvalidOrderInputError extends Error {
  override readonly name = 'InvalidOrderInputError';
  constructor(readonly issues: readonly string[]) {
    super(`Invalid badge order input: ${issues.join('; ')}`);
  }
}

/** Each zod issue as the field it names (its dotted path, `(input)` for the whole value) and its message. */
export function issueFields(error: z.ZodError): { readonly field: string; readonly message: string }[] {
  return error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.map(String).join('.') : '(input)',
    message: issue.message,
  }));
}

/** Formats zod issues as `field.path: message` lines. */
export function formatIssues(error: z.ZodError): string[] {
  return issueFields(error).map(({ field, message }) => `${field}: ${message}`);
}

/** Validates an order input; used by the starter and again by the workflow. */
export function parseBadgeOrderInput(input: unknown): ValidBadgeOrderInput {
  const parsed = badgeOrderInputSchema.safeParse(input);
  if (!parsed.success) throw new InvalidOrderInputError(formatIssues(parsed.error));
  return parsed.data;
}

/** A platform id in an answer: always a string, its digits exactly as the platform sent them. */
const platformIdSchema = z.string().meta({
  description: "The platform's id as a string, exactly as the platform sent it (every digit kept).",
});

/**
 * Links to an uploaded document, as the platform returned them. The signed download link is a credential and
 * is never kept: fetch it from the platform by the document id when needed.
 */
const documentLinksSchema = z.object({
  original: z.string().nullable(),
  thumbnail: z.string().nullable(),
});
export type DocumentLinks = z.infer<typeof documentLinksSchema>;

const documentStatusSchema = z.enum(['pending', 'uploading', 'uploaded', 'failed']);
/** Lifecycle of one document inside an order. */
export type DocumentStatus = z.infer<typeof documentStatusSchema>;

/** One document's state in the `status` query, and the answer of the `replaceDocument` update. */
export const documentStateSchema = z.object({
  /** The document as the order named it: its `path`, or its `ref` (see {@link documentSourceOf}). */
  path: z.string(),
  status: documentStatusSchema,
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  /** The platform's id of the stored document, when its answer named one. */
  documentId: z.string().nullable(),
  links: documentLinksSchema.nullable(),
  /**
   * An earlier attempt may have stored this document (it failed after the file was sent): the platform may
   * hold a copy besides the one linked here.
   */
  possibleDuplicate: z.boolean(),
  /**
   * The source currently used for this document: `path` (a path or a reference), or the replacement given by
   * `replaceDocument`.
   */
  sourcePath: z.string(),
  /**
   * Failed after an attempt that may have stored the file, and not sent again (`BADGE_UPLOAD_UNKNOWN_OUTCOME=hold`,
   * or an answer the same call would get again): a person checks the platform and answers `reconcileDocument`.
   * The nightly replay leaves it alone; `retryUploads` and `replaceDocument` still send it.
   */
  held: z.boolean(),
  /**
   * The `Idempotency-Key` its uploads are sent with (a replacement or an owner correction gives it a new one):
   * for a held document, the key to ask the platform about. Absent in answers of workers before 0.6.0.
   */
  idempotencyKey: z.string().optional(),
});
export type DocumentState = z.infer<typeof documentStateSchema>;

const badgeOrderPhaseSchema = z.enum([
  'authenticating',
  'checking-stock',
  'creating-order',
  'awaiting-reconciliation',
  'uploading',
  'awaiting-repair',
  'completed',
  'failed',
  'cancelled',
]);
/** Phases of a badge order, as the `status` query reports them. */
export type BadgeOrderPhase = z.infer<typeof badgeOrderPhaseSchema>;

/**
 * What the stock lookup said about the requested stock: advice for people, never a decision. The order is sent
 * with the stock whatever it says; only order creation's 404 leaves the stock out.
 */
const stockAdviceSchema = z.object({
  /**
   * `listed`: a page of the user's stocks lists it; `unlisted`: a list the client read to its end lacks it
   * (the platform may still accept it, or the list was misread); `unknown`: the list could not be read.
   */
  verdict: z.enum(['listed', 'unlisted', 'unknown']),
  /** How many stocks the user has, when the list said. */
  stockCount: z.number().int().nullable(),
});
export type StockAdvice = z.infer<typeof stockAdviceSchema>;

/** Whose documents these are: the `document_owner` the order's uploads are sent with. */
const documentOwnerViewSchema = z.object({
  /** The platform user id, as sent. */
  id: z.string(),
  /**
   * Where it came from: `input` (the order's `documentOwner`), `operator` (`setDocumentOwner`), or what the
   * worker read: `BADGE_DOCUMENT_OWNER`, `claim user_id (BADGE_USER_ID_CLAIM)`, `claim uid (default chain)`, ….
   */
  source: z.string(),
  /** Set once the platform refused an upload naming `document_owner` (422): what to set, and how. */
  refused: z.string().nullable(),
});

/**
 * Why an order waits in `AwaitingReconciliation`: its creation was sent, and whether the platform created it
 * cannot be known from here (a timeout, a 5xx, an answer without an id, a worker that died mid-call).
 */
const reconciliationViewSchema = z.object({
  /** What happened to the last creation attempt. */
  reason: z.string(),
  /** The `Idempotency-Key` the creation was sent with: ask the platform about this key. */
  idempotencyKey: z.string(),
  /** The stock the creation was sent with, or null. */
  stockId: platformIdSchema.nullable(),
  /** ISO time the order started waiting. */
  since: z.string(),
});
export type ReconciliationView = z.infer<typeof reconciliationViewSchema>;

/**
 * Set while a creation the platform refused because of a setting waits for that setting to be fixed: once it is,
 * `retryUploads` (ops retry, the API's retry, the nightly replay) sends the creation again, with a new key.
 */
const creationRefusalViewSchema = z.object({
  /** The setting to fix on the workers, e.g. `BADGE_REQUEST_PROFILE`. */
  setting: z.string(),
  /** What the platform answered. */
  reason: z.string(),
  /** ISO time the order started waiting. */
  since: z.string(),
});
export type CreationRefusalView = z.infer<typeof creationRefusalViewSchema>;

/** The `type` of a webhook event. */
const webhookEventTypeSchema = z.enum(Object.values(WEBHOOK_EVENT_TYPES));

/**
 * A webhook whose delivery finally failed (every retry used, refused by the receiver, or a destination the
 * workers do not deliver to). Why is not shown here: the receiver's answer would tell whoever placed the order
 * what is behind its URL. Operators find it in the `deliverWebhook` activity's failures in history.
 */
const failedWebhookDeliverySchema = z.object({
  id: z.string(),
  type: webhookEventTypeSchema,
  /** Delivery attempts made (at least 1). */
  attempts: z.number().int().min(1),
});
export type FailedWebhookDelivery = z.infer<typeof failedWebhookDeliverySchema>;

/** Webhook deliveries of an order, in the `status` query. */
const webhookDeliveriesViewSchema = z.object({
  delivered: z.number().int(),
  pending: z.number().int(),
  failed: z.array(failedWebhookDeliverySchema).readonly(),
});
export type WebhookDeliveriesView = z.infer<typeof webhookDeliveriesViewSchema>;

/** Answer of the `status` query (and of the `reconcileOrder` and `setDocumentOwner` updates). */
export const badgeOrderStatusViewSchema = z.object({
  orderRef: z.string(),
  phase: badgeOrderPhaseSchema,
  searchStatus: z.enum(BADGE_ORDER_STATUSES),
  /** The platform's order id (its digits), once created. */
  orderId: platformIdSchema.nullable(),
  stockFallback: z.boolean(),
  stockFallbackReason: z.string().nullable(),
  /**
   * What the stock lookup advised, once it ran (orders since 0.4.0 that asked for a stock); null otherwise.
   * Absent in answers of earlier releases.
   */
  stockAdvice: stockAdviceSchema.nullable().optional(),
  /** Whose documents these are, once the order signed in; absent in answers of releases before 0.4.0. */
  documentOwner: documentOwnerViewSchema.nullable().optional(),
  documents: z.array(documentStateSchema).readonly(),
  /** ISO time after which an order awaiting repair ends as `Failed`. */
  repairDeadline: z.string().nullable(),
  /** Set while the order awaits reconciliation: what is unknown, and what to check. */
  reconciliation: reconciliationViewSchema.nullable(),
  /** ISO time after which an order awaiting reconciliation ends as `Failed`. */
  reconciliationDeadline: z.string().nullable(),
  /** Set while a creation refused because of a setting waits for it (until `repairDeadline`); absent before 0.7. */
  creationRefusal: creationRefusalViewSchema.nullable().optional(),
  failure: z.string().nullable(),
  /** Set when the order has a `callbackUrl`: how its webhook deliveries went. */
  webhooks: webhookDeliveriesViewSchema.optional(),
  /**
   * The options the order runs with, resolved once when it started: a later release's defaults do not change
   * them. Absent only in answers of releases before 0.2.0.
   */
  options: resolvedOptionsSchema.optional(),
});
export type BadgeOrderStatusView = z.infer<typeof badgeOrderStatusViewSchema>;

/** Result of a completed `badgeOrder` workflow. */
export const badgeOrderResultSchema = z.object({
  orderRef: badgeOrderStatusViewSchema.shape.orderRef,
  /** The platform's order id, its digits exactly as the platform sent them. */
  orderId: platformIdSchema,
  /** The stock the order was placed with, or null when ordered without one. */
  stockId: platformIdSchema.nullable(),
  stockFallback: badgeOrderStatusViewSchema.shape.stockFallback,
  stockFallbackReason: badgeOrderStatusViewSchema.shape.stockFallbackReason,
  /** Each document as its state said once uploaded (`possibleDuplicate`: the platform may hold another copy). */
  documents: z
    .array(
      documentStateSchema
        .pick({ path: true, status: true, documentId: true, links: true, possibleDuplicate: true })
        .extend({ status: z.literal('uploaded'), links: documentLinksSchema }),
    )
    .readonly(),
});
export type BadgeOrderResult = z.infer<typeof badgeOrderResultSchema>;

/**
 * The signature of the `badgeOrder` workflow as clients start it (the workflow takes a second argument only
 * when it continues itself as new), for typed handles without importing workflow code.
 */
export type BadgeOrderWorkflow = (input: BadgeOrderInput) => Promise<BadgeOrderResult>;

/**
 * The JSON body of a webhook: what happened to the order, never personal data (no vehicle or badge data, no
 * document paths) and no links. `id` is the same on every delivery of one event: receivers drop repeats by it.
 */
export const webhookEventSchema = z.object({
  id: z.string(),
  type: webhookEventTypeSchema,
  orderRef: badgeOrderStatusViewSchema.shape.orderRef,
  /** ISO time of the transition (workflow time). */
  occurredAt: z.string(),
  status: badgeOrderStatusViewSchema.shape.searchStatus,
  orderId: badgeOrderStatusViewSchema.shape.orderId,
  documents: z.object({ total: z.number().int(), uploaded: z.number().int(), failed: z.number().int() }),
  /** The failure's code (e.g. `REPAIR_DEADLINE_PASSED`) for `order.failed`, else null. */
  failureType: z.string().nullable(),
  /** The deadlines while the order waits for repair or reconciliation, else null. */
  repairDeadline: badgeOrderStatusViewSchema.shape.repairDeadline,
  reconciliationDeadline: badgeOrderStatusViewSchema.shape.reconciliationDeadline,
});
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

/**
 * Argument of the `replaceDocument` update: `path` names the document as the order input did (its `path`, or its
 * `ref` for a document named by reference); `newPath` is the new file, relative to `DOCUMENTS_ROOT`, or a
 * document reference (`sha256:<64 hex>`) in the store. The workflow also checks that the document exists and
 * failed.
 */
export const replaceDocumentInputSchema = z.object({
  path: z.string().min(1, 'must not be empty'),
  newPath: z.union([documentReferenceSchema, documentPathSchema], {
    error: 'must be a relative path inside DOCUMENTS_ROOT or a document reference (sha256:<64 hex>)',
  }),
  contentType: contentTypeSchema.optional(),
});
export type ReplaceDocumentInput = z.input<typeof replaceDocumentInputSchema>;

/**
 * Validation of the `reconcileOrder` update's argument, the operator's answer after checking the platform:
 * `{ orderId }`, the order was created with this id (its digits as a string; a number up to 2^53 − 1 is taken as
 * its digits), continue with the uploads; `{ notCreated: true }`, the platform holds no such order, create it now.
 */
export const reconcileOrderInputSchema = z.union(
  [
    z.strictObject({ orderId: orderIdSchema }),
    z.strictObject({ notCreated: z.literal(true, { error: 'must be true' }) }),
  ],
  { error: 'must be { "orderId": "<digits>" } or { "notCreated": true }' },
);
/** Argument of the `reconcileOrder` update, as a caller sends it; see {@link reconcileOrderInputSchema}. */
export type ReconcileOrderInput = z.input<typeof reconcileOrderInputSchema>;
/** A validated {@link ReconcileOrderInput}: the order id as its digits. */
export type ReconcileOrderAnswer = z.output<typeof reconcileOrderInputSchema>;

/**
 * The operator's answer about a held document after checking the platform: `{ documentId }`, the platform holds
 * it under this id (the document counts as uploaded); `{ notStored: true }`, it does not (sent again now). `shape`
 * adds what names the document (the update's `path`; the HTTP API takes the index from the URL).
 */
export const documentReconciliationSchema = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.union(
    [
      z.strictObject({ ...shape, documentId: identifierSchema }),
      z.strictObject({ ...shape, notStored: z.literal(true, { error: 'must be true' }) }),
    ],
    { error: 'must be { "documentId": "<the platform\'s document id>" } or { "notStored": true }' },
  );

/** Argument of the `reconcileDocument` update: which document (as `replaceDocument` names it) and the answer. */
export const reconcileDocumentInputSchema = documentReconciliationSchema({
  path: z.string().min(1, 'must not be empty'),
});
export type ReconcileDocumentInput = z.input<typeof reconcileDocumentInputSchema>;

/**
 * Argument of the `setDocumentOwner` update: the platform user id the order's documents belong to, when the
 * platform refused the one the order used (422 naming `document_owner`). The failed documents are sent again
 * with it; documents already stored stay as they are.
 */
export const setDocumentOwnerInputSchema = z.strictObject(
  {
    /** The platform user id, an opaque string (e.g. `"4711"`). */
    documentOwner: z
      .string({ error: 'must be a string (the platform user id)' })
      .trim()
      .min(1, 'must not be empty')
      .max(64, 'must be at most 64 characters'),
  },
  { error: 'must be { "documentOwner": "<platform user id>" }' },
);
export type SetDocumentOwnerInput = z.input<typeof setDocumentOwnerInputSchema>;

/** A run's execution status as Temporal names it, without its enum prefix (`CANCELLED` as the SDK spells it). */
export const RUN_STATUS_NAMES = [
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
  'PAUSED',
  'UNKNOWN',
] as const;
/** A run's execution status, one of {@link RUN_STATUS_NAMES}. */
export type RunStatusName = (typeof RUN_STATUS_NAMES)[number];

/**
 * One order as a listing shows it (`BadgeOrdersClient.listOrders`, `GET /v1/orders`): its search attributes and
 * its run's times, from Temporal visibility, which may lag behind the order by a moment.
 */
export const listedOrderSchema = z.object({
  orderRef: z.string(),
  workflowId: z.string(),
  runId: z.string(),
  runStatus: z.enum(RUN_STATUS_NAMES),
  /** `BadgeOrderStatus` as last recorded; null for a run that recorded none (or one this version does not know). */
  status: z.enum(BADGE_ORDER_STATUSES).nullable(),
  /** `BadgeOrderId`, the platform's order id, once created. */
  orderId: platformIdSchema.nullable(),
  /** `BadgeOrderClient`, the client that owns the order; null for an order placed without one. */
  clientId: z.string().nullable(),
  startedAt: z.string().nullable(),
  closedAt: z.string().nullable(),
});
export type ListedOrder = z.infer<typeof listedOrderSchema>;

/** Id of the Temporal Schedule that starts the `replayFailedUploads` workflow every night. */
export const REPLAY_SCHEDULE_ID = 'badge-nightly-upload-replay';

/**
 * Counts of one nightly replay, summed over its continue-as-new runs. The nightly replay's input and result stay
 * TypeScript interfaces: only the Schedule and the workflow exchange them, and nothing validates or documents them.
 */
export interface ReplayFailedUploadsCounts {
  /** Orders the visibility query listed as awaiting repair. */
  readonly found: number;
  /** Orders that were sent `retryUploads`. */
  readonly signalled: number;
  /** Listed orders that no longer await repair when checked (visibility lags behind), so were left alone. */
  readonly skipped: number;
  /** Orders that could not be signalled; `errorSamples` names some of them. */
  readonly errors: number;
}

/** One order the replay could not signal, and why. */
export interface ReplayErrorSample {
  readonly workflowId: string;
  readonly message: string;
}

/** Input of the `replayFailedUploads` workflow; every field has a default. */
export interface ReplayFailedUploadsInput {
  /** Orders listed per visibility page. @default 100 */
  readonly pageSize?: number;
  /** Signals sent at the same time. @default 10 */
  readonly maxConcurrentSignals?: number;
  /** Orders handled by one run before it continues as new (keeps history short). @default 1000 */
  readonly maxOrdersPerRun?: number;
  /** Set by the workflow itself when it continues as new: where the listing stands and the counts so far. */
  readonly continuation?: {
    readonly nextPageToken: string;
    readonly counts: ReplayFailedUploadsCounts;
    readonly errorSamples: readonly ReplayErrorSample[];
  };
}

/** Result of the `replayFailedUploads` workflow. */
export interface ReplayFailedUploadsResult extends ReplayFailedUploadsCounts {
  /** Up to 20 of the orders counted in `errors`. */
  readonly errorSamples: readonly ReplayErrorSample[];
}

/** The signature of the `replayFailedUploads` workflow, for clients that start it by name (the Schedule). */
export type ReplayFailedUploadsWorkflow = (
  input?: ReplayFailedUploadsInput,
) => Promise<ReplayFailedUploadsResult>;
