/**
 * Probe a real platform before trusting it: authenticate, list stocks and, only when allowed, create one test
 * order twice with one idempotency key and upload a tiny document twice with one key. The report says what
 * was seen (field structure, status codes, the token's claim names, whether the key was honoured) and which
 * configuration to use (`BADGE_IDEMPOTENCY_KEYS`, `BADGE_USER_ID_CLAIM`, the response map). It never contains
 * values from the answers: signed links and tokens are credentials.
 *
 * Without side effects it also asks what the platform wants sent: once the token works, a create with an empty
 * object and an upload without a file, which every platform must refuse; a refusal naming a name the request did
 * not send (a header, an order field, the file part, the client credentials grant) becomes a suggested setting.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { isPlatformError } from './errors';
import type { CallOutcome } from '../failure-types';
import { describeShape, numericId } from './extract';
import type { ResponseMap } from './extract';
import type { ClaimsReport } from './owner';
import type { RequestProfileSettings } from './request-profile';
import type { CreateOrderInput, PlatformClient } from './types';

/** Input of {@link probePlatform}. */
interface ProbeInput {
  /** A client built from the same configuration as the worker's. */
  readonly client: PlatformClient;
  /**
   * Whether the probe may create a test order and upload a tiny document (twice each, with one key). Without
   * it the probe creates nothing.
   * @default false
   */
  readonly allowTestOrders?: boolean;
  /** The test order's payload. @default a clearly marked test vehicle and badge */
  readonly testOrder?: CreateOrderInput['payload'];
  /** Aborts the probe with its reason. */
  readonly signal?: AbortSignal;
}

/** A failed step, without secrets. */
interface ProbeFailure {
  /** The platform error code, or `UNEXPECTED_ERROR`. */
  readonly code: string;
  readonly status: number | null;
  readonly outcome: CallOutcome | null;
  /** The secret-free message. */
  readonly message: string;
  /** A name the platform asked for that the request did not send (see `PlatformError.unsent`). */
  readonly unsent?: string;
}

/** One call of the probe. */
export interface ProbeCall {
  /** HTTP status of the answer, or `null` when there was none. */
  readonly status: number | null;
  /** Key structure of the answer (`path:type`), never values. */
  readonly shape: readonly string[];
  /** The path a followed redirect took the call to. */
  readonly redirectedTo?: string;
  readonly failure?: ProbeFailure;
}

/**
 * One call made twice with one idempotency key; `keyHonoured` is `true` when both answers named the same
 * order or document, `false` when they named two, else `null`.
 */
interface Twice<Facts> {
  readonly first: ProbeCall & Facts;
  readonly second: ProbeCall & Facts;
  readonly keyHonoured: boolean | null;
}

/** What {@link probePlatform} saw and recommends. */
export interface ProbeReport {
  /** The token call. */
  readonly authentication: {
    readonly ok: boolean;
    readonly userId: string | null;
    /** The token's claim names (never values) and which one looks like the numeric user id. */
    readonly claims: ClaimsReport;
    /** Where the worker's configuration and this token take the document owner from; `null`: nowhere. */
    readonly documentOwnerSource: string | null;
    readonly failure?: ProbeFailure;
  };
  /** The stock list. */
  readonly stocks: ProbeCall & { readonly stockCount: number | null };
  /**
   * The questions every platform must refuse, sent once the token works: a create with `{}` and an upload
   * without a file part (to the test order, else to order `0`). Absent when the token call failed.
   */
  readonly refusals?: { readonly order: ProbeCall; readonly upload?: ProbeCall };
  /** Order creation twice with one key; absent without `allowTestOrders`. */
  readonly orders?: Twice<{ readonly orderId: string | null }>;
  /** Upload twice with one key; absent without `allowTestOrders` or without a created order. */
  readonly documents?: Twice<{ readonly documentId: string | null; readonly linksFound: readonly string[] }>;
  /** Configuration to use. */
  readonly recommended: {
    /**
     * `honoured` only when the probe saw both order creation and upload honour the key; otherwise `null`:
     * leave `BADGE_IDEMPOTENCY_KEYS` unset so that orders of unknown outcome are held for reconciliation.
     */
    readonly BADGE_IDEMPOTENCY_KEYS: 'honoured' | null;
    /** Pointers to where the probe found the ids and links, or `null` when it found nothing to pin. */
    readonly responseMap: ResponseMap | null;
    /**
     * The claim that holds the platform user id (`document_owner`), to pin it; `null` when no claim looks
     * like one (then set `BADGE_DOCUMENT_OWNER`, see the notes).
     */
    readonly BADGE_USER_ID_CLAIM: string | null;
    /**
     * Members to add to `BADGE_REQUEST_PROFILE`, from refusals that named a header, a token field, an order field
     * or the file part the request did not send; absent when none did.
     */
    readonly requestProfile?: RequestProfileSettings;
    /** Present when the profile places `{tenant}`: the probe cannot know the tenant id, only that one is needed. */
    readonly BADGE_TENANT_ID?: typeof TENANT_PLACEHOLDER;
    /** Present when the token call asked for the OAuth 2.0 client credentials grant. */
    readonly clientCredentials?: true;
  };
  /** Human-readable notes (what could not be determined, and why). */
  readonly notes: readonly string[];
}

/** A minimal valid PDF: small enough to upload twice without cost. */
const TINY_PDF = Buffer.from(
  '%PDF-1.1\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
  'latin1',
);

const DEFAULT_TEST_ORDER: CreateOrderInput['payload'] = {
  vehicle: { licence_plate: 'PROBE-TEST', note: 'connectivity probe, please ignore' },
  badge: { note: 'connectivity probe, please ignore' },
};

/** What the report puts where only the operator knows the value. */
const TENANT_PLACEHOLDER = '<the tenant id the platform gave you>';
const VALUE_PLACEHOLDER = '<the value the platform expects>';

function failureOf(error: unknown): ProbeFailure {
  if (isPlatformError(error)) {
    return {
      code: error.code,
      status: error.status ?? null,
      outcome: error.outcome,
      message: error.message,
      ...(error.unsent !== undefined && { unsent: error.unsent }),
    };
  }
  return {
    code: 'UNEXPECTED_ERROR',
    status: null,
    outcome: null,
    message: error instanceof Error ? error.name : 'non-error thrown',
  };
}

/** The JSON pointer of the first value (parents first) that `matches`, or `undefined`. */
function pointerTo(body: unknown, matches: (value: unknown) => boolean): string | undefined {
  const queue: { value: unknown; pointer: string }[] = [{ value: body, pointer: '' }];
  for (let index = 0; index < queue.length && index < 5_000; index += 1) {
    const { value, pointer } = queue[index] as { value: unknown; pointer: string };
    if (pointer !== '' && matches(value)) return pointer;
    if (Array.isArray(value))
      value.forEach((item, i) => queue.push({ value: item, pointer: `${pointer}/${i}` }));
    else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value))
        queue.push({ value: item, pointer: `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` });
    }
  }
  return undefined;
}

/** The probe's calls as the suggestions name them. */
type Asked = 'token' | 'stocks' | 'order' | 'upload';

/** What refusals taught: profile members to add, and whether a tenant id or client credentials are needed. */
interface Learned {
  readonly profile: {
    headers?: Record<string, string>;
    tokenFields?: Record<string, string>;
    orderFields?: Record<string, string>;
    documentParts?: Record<string, string>;
  };
  tenant: boolean;
  clientCredentials: boolean;
}

/**
 * The one decision what a refusal asks the operator to set: a header, a token field, an order field, the file part
 * or the client credentials grant, from the name the platform asked for that the request did not send. A header
 * or token field for a tenant gets `{tenant}` (and BADGE_TENANT_ID is needed), any other a placeholder value.
 */
function learnFrom(asked: Asked, failure: ProbeFailure | undefined, learned: Learned, notes: string[]): void {
  if (failure?.code === 'REDIRECTED') {
    notes.push(`the ${asked} call was redirected and not followed: ${failure.message}`);
    return;
  }
  const name = failure?.unsent;
  if (failure === undefined || name === undefined) return;
  const said = `the ${asked} call was refused naming ${name}, which it did not send`;
  const valueFor = (setting: string): string => {
    if (/tenant/i.test(name)) {
      learned.tenant = true;
      return '{tenant}';
    }
    notes.push(`${said}: the probe cannot know its value, replace ${VALUE_PLACEHOLDER} in ${setting}`);
    return VALUE_PLACEHOLDER;
  };
  if (/\bheader\b/i.test(failure.message) || /^x-/i.test(name)) {
    learned.profile.headers = { ...learned.profile.headers, [name]: valueFor(`headers.${name}`) };
  } else if (
    asked === 'token' &&
    /grant|client[ _-]?(credentials|id|secret)/i.test(`${name} ${failure.message}`)
  ) {
    learned.clientCredentials = true;
    notes.push(
      `${said}: the platform wants the OAuth 2.0 client credentials grant; set BADGE_CLIENT_ID and BADGE_CLIENT_SECRET (if they are set, BADGE_CLIENT_AUTH=body puts the client in the form instead of HTTP Basic)`,
    );
  } else if (asked === 'token') {
    learned.profile.tokenFields = { ...learned.profile.tokenFields, [name]: valueFor(`tokenFields.${name}`) };
  } else if (asked === 'order' && /vehicle|badge/i.test(name)) {
    const member = /vehicle/i.test(name) ? 'vehicle' : 'badge';
    learned.profile.orderFields = { ...learned.profile.orderFields, [member]: name };
    notes.push(
      `${said}: orderFields.${member} set to it; the platform may name one field at a time, so probe again after setting it`,
    );
  } else if (asked === 'upload' && failure.status === 422) {
    learned.profile.documentParts = { ...learned.profile.documentParts, file: name };
  } else {
    notes.push(`${said}: place it with BADGE_REQUEST_PROFILE (docs/platform-client.md, "Request profile")`);
  }
}

/** What the token's claims say about the document owner, by claim name only. */
function ownerNotes(claims: ClaimsReport): string[] {
  const notes: string[] = [];
  if (claims.userIdClaim === null) {
    notes.push(
      `no claim of the token (${claims.names.join(', ') || 'none'}) looks like a numeric user id: set BADGE_DOCUMENT_OWNER to the platform user id, or BADGE_USER_ID_CLAIM to the claim that holds it`,
    );
  } else if (claims.subNumeric === false) {
    notes.push(`sub is not numeric; the user id looks like claim ${claims.userIdClaim}`);
  }
  return notes;
}

/**
 * Make one call of the probe: what its answer showed (`facts` of it), or its failure with `none`. Only the
 * caller's abort leaves; every platform failure is reported.
 */
async function observe<
  R extends { readonly status: number; readonly raw: unknown; readonly redirectedTo?: string },
  Facts,
>(
  call: () => Promise<R>,
  facts: (result: R) => Facts,
  none: Facts,
  signal: AbortSignal | undefined,
): Promise<{ readonly report: ProbeCall & Facts; readonly result?: R }> {
  try {
    const result = await call();
    const redirected = result.redirectedTo === undefined ? {} : { redirectedTo: result.redirectedTo };
    return {
      report: { status: result.status, shape: describeShape(result.raw), ...redirected, ...facts(result) },
      result,
    };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const failure = failureOf(error);
    return { report: { status: failure.status, shape: [], ...none, failure } };
  }
}

/** Make one call twice with one key (see {@link Twice}); `result` is the first answer, when there was one. */
async function observeTwice<
  R extends { readonly status: number; readonly raw: unknown; readonly redirectedTo?: string },
  Facts,
>(
  call: () => Promise<R>,
  facts: (result: R) => Facts,
  none: Facts,
  idOf: (facts: Facts) => string | null,
  signal: AbortSignal | undefined,
): Promise<{ readonly twice: Twice<Facts>; readonly result?: R }> {
  const { report: first, result } = await observe(call, facts, none, signal);
  const { report: second } = await observe(call, facts, none, signal);
  const [a, b] = [idOf(first), idOf(second)];
  const keyHonoured = a === null || b === null ? null : a === b;
  return { twice: { first, second, keyHonoured }, ...(result !== undefined && { result }) };
}

/**
 * Probe the platform the client is configured for. Never throws on a platform failure (it is reported);
 * rethrows only the caller's abort.
 * @param input the client, whether test orders may be created, and an abort signal
 */
export async function probePlatform(input: ProbeInput): Promise<ProbeReport> {
  const { client, signal } = input;
  const options = { ...(signal && { signal }) };
  const notes: string[] = [];

  let owner: string | null = null;
  let authentication: ProbeReport['authentication'];
  try {
    const session = await client.authenticate(options);
    owner = session.documentOwner?.id ?? null;
    authentication = {
      ok: true,
      userId: session.userId,
      claims: session.claims,
      documentOwnerSource: session.documentOwner?.source ?? null,
    };
    notes.push(...ownerNotes(session.claims));
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    authentication = {
      ok: false,
      userId: null,
      claims: { names: [], userIdClaim: null, subNumeric: null },
      documentOwnerSource: null,
      failure: failureOf(error),
    };
  }

  const learned: Learned = { profile: {}, tenant: false, clientCredentials: false };
  learnFrom('token', authentication.failure, learned, notes);
  const { report: stocks } = await observe(
    () => client.listStocks(options),
    (list): { stockCount: number | null } => ({ stockCount: list.stocks.length }),
    { stockCount: null },
    signal,
  );
  learnFrom('stocks', stocks.failure, learned, notes);
  if (stocks.redirectedTo !== undefined) {
    notes.push(
      `the platform redirected the stock list to ${stocks.redirectedTo} on its own origin: the client follows such redirects itself (one more round trip per call); nothing to set`,
    );
  }

  /** An upload without a file: to the test order when there is one, else to order 0. */
  const askUpload = async (orderId: string | null): Promise<ProbeCall> => {
    const { report } = await observe(
      () =>
        client.uploadDocument({
          withoutFile: true,
          orderId: orderId ?? '0',
          documentOwner: owner ?? '0',
          idempotencyKey: `probe-no-file-${randomUUID()}`,
          ...options,
        }),
      () => ({}),
      {},
      signal,
    );
    learnFrom('upload', report.failure, learned, notes);
    if (report.failure === undefined) {
      notes.push(
        `the platform accepted an upload without a file (${report.status}): it may have stored an empty document`,
      );
    } else if (orderId === null && report.failure.unsent === undefined) {
      notes.push(
        'the upload without a file named no part the profile lacks, but it named order 0, which a platform may refuse before it looks for the file: whether the file part is right is known only with allowTestOrders',
      );
    }
    return report;
  };

  const map: { orderId?: string; documentId?: string; links?: Record<string, string> } = {};
  let refusals: ProbeReport['refusals'];
  let orders: ProbeReport['orders'];
  let documents: ProbeReport['documents'];
  // Asked only with a working token: without one every question is refused 401 and teaches nothing.
  if (authentication.ok) {
    const { report: order } = await observe(
      () =>
        client.createOrder({
          // Neither vehicle nor badge: the body is `{}` (or the profile's placements, empty). Why this body:
          // docs/platform-client.md "Probing a platform".
          payload: {} as CreateOrderInput['payload'],
          idempotencyKey: `probe-empty-${randomUUID()}`,
          ...options,
        }),
      () => ({}),
      {},
      signal,
    );
    learnFrom('order', order.failure, learned, notes);
    refusals = { order };
  }
  const acceptedEmpty =
    refusals !== undefined && (refusals.order.status ?? 0) >= 200 && (refusals.order.status ?? 0) < 300;
  if (acceptedEmpty) {
    notes.push(
      `the platform accepted an order without vehicle and badge (${refusals?.order.status}): an order may have been created; nothing else was sent, cancel it on the platform`,
    );
  } else if (input.allowTestOrders !== true) {
    if (refusals !== undefined) {
      if (refusals.order.failure?.unsent === undefined) {
        notes.push(
          'the order without vehicle and badge was refused without naming a field the profile lacks; a platform may name one missing field at a time, so whether the other order fields are right is known only with allowTestOrders',
        );
      }
      refusals = { ...refusals, upload: await askUpload(null) };
    }
    notes.push(
      'no test order created (allowTestOrders is off): whether the platform honours keys is unknown',
    );
  } else {
    const key = `probe-${randomUUID()}`;
    const created = await observeTwice(
      () =>
        client.createOrder({
          payload: input.testOrder ?? DEFAULT_TEST_ORDER,
          idempotencyKey: key,
          ...options,
        }),
      (order): { orderId: string | null } => ({ orderId: order.orderId }),
      { orderId: null },
      (facts) => facts.orderId,
      signal,
    );
    orders = created.twice;
    const orderId = orders.first.orderId;
    const orderPointer = pointerTo(
      created.result?.raw,
      (value) => orderId !== null && numericId(value) === orderId,
    );
    if (orderPointer !== undefined) map.orderId = orderPointer;
    if (orders.keyHonoured === false)
      notes.push('the same key created two orders: the platform ignores Idempotency-Key');

    if (refusals !== undefined && orderId !== null)
      refusals = { ...refusals, upload: await askUpload(orderId) };

    if (orderId !== null && owner !== null) {
      const upload = {
        source: { sizeBytes: TINY_PDF.length, openStream: () => Readable.from([TINY_PDF]) },
        filename: 'probe.pdf',
        contentType: 'application/pdf',
        orderId,
        documentOwner: owner,
        idempotencyKey: `probe-doc-${randomUUID()}`,
        ...options,
      };
      const stored = await observeTwice(
        () => client.uploadDocument(upload),
        (uploaded): { documentId: string | null; linksFound: readonly string[] } => ({
          documentId: uploaded.documentId,
          linksFound: Object.entries(uploaded.links)
            .filter(([, link]) => link !== null)
            .map(([name]) => name),
        }),
        { documentId: null, linksFound: [] },
        (facts) => facts.documentId,
        signal,
      );
      documents = stored.twice;
      const body = stored.result?.raw;
      const id = documents.first.documentId;
      const idPointer = pointerTo(
        body,
        (value) => id !== null && (value === id || (typeof value === 'number' && String(value) === id)),
      );
      if (idPointer !== undefined) map.documentId = idPointer;
      const links: Record<string, string> = {};
      for (const [name, link] of Object.entries(stored.result?.links ?? {})) {
        if (link === null) continue;
        const pointer = pointerTo(
          body,
          (value) =>
            value === link ||
            (typeof value === 'object' && value !== null && (value as { href?: unknown }).href === link),
        );
        if (pointer !== undefined) links[name] = pointer;
      }
      if (Object.keys(links).length > 0) map.links = links;
      if (documents.keyHonoured === null)
        notes.push('no document id in the upload answers: whether uploads honour the key is unknown');
      if (documents.keyHonoured === false)
        notes.push('the same key stored two documents: the platform ignores Idempotency-Key on uploads');
      const failure = documents.first.failure;
      learnFrom('upload', failure, learned, notes);
      if (failure?.status === 422 && /document[_ ]?owner/i.test(failure.message))
        notes.push(
          'the platform refused the document owner: set BADGE_DOCUMENT_OWNER to the platform user id, or BADGE_USER_ID_CLAIM to the claim holding it',
        );
    } else {
      notes.push('no upload tried: the test order has no id, or the token names no user');
    }
  }

  if (orders !== undefined) learnFrom('order', orders.first.failure, learned, notes);
  if (learned.tenant) {
    notes.push(
      `BADGE_TENANT_ID: the probe cannot know your tenant id; set the one the platform gave you in place of ${TENANT_PLACEHOLDER}`,
    );
  }

  const honoured = orders?.keyHonoured === true && documents?.keyHonoured === true;
  const profile = Object.keys(learned.profile).length === 0 ? undefined : learned.profile;
  return {
    authentication,
    stocks,
    ...(refusals && { refusals }),
    ...(orders && { orders }),
    ...(documents && { documents }),
    recommended: {
      BADGE_IDEMPOTENCY_KEYS: honoured ? 'honoured' : null,
      responseMap: Object.keys(map).length === 0 ? null : map,
      BADGE_USER_ID_CLAIM: authentication.claims.userIdClaim,
      ...(profile && { requestProfile: profile }),
      ...(learned.tenant && { BADGE_TENANT_ID: TENANT_PLACEHOLDER }),
      ...(learned.clientCredentials && { clientCredentials: true }),
    },
    // The same refusal seen twice (the empty create and the test order) is said once.
    notes: [...new Set(notes)],
  };
}
