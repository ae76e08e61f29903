/**
 * Probe a real platform before trusting it: authenticate, list stocks and, only when allowed, create one test
 * order twice with one idempotency key and upload a tiny document twice with one key. The report says what
 * was seen (field structure, status codes, the token's claim names, whether the key was honoured) and which
 * configuration to use (`BADGE_IDEMPOTENCY_KEYS`, `BADGE_USER_ID_CLAIM`, the response map). It never contains
 * values from the answers: signed links and tokens are credentials.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { isPlatformError } from './errors';
import type { CallOutcome } from '../failure-types';
import { describeShape, numericId } from './extract';
import type { ResponseMap } from './extract';
import type { ClaimsReport } from './owner';
import type { CreateOrderInput, PlatformClient, UploadSource } from './types';

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
  /** HTTP status, when the platform answered. */
  readonly status: number | null;
  /** What the failed call may have done. */
  readonly outcome: CallOutcome | null;
  /** The secret-free message. */
  readonly message: string;
}

/** One call of the probe. */
interface ProbeCall {
  /** HTTP status of the answer, or `null` when there was none. */
  readonly status: number | null;
  /** Key structure of the answer (`path:type`), never values. */
  readonly shape: readonly string[];
  /** What went wrong, when it did. */
  readonly failure?: ProbeFailure;
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
  /** Order creation twice with one key; absent without `allowTestOrders`. */
  readonly orders?: {
    readonly first: ProbeCall & { readonly orderId: string | null };
    readonly second: ProbeCall & { readonly orderId: string | null };
    /** `true` when both answers named the same order, `false` when two orders were created, else `null`. */
    readonly keyHonoured: boolean | null;
  };
  /** Upload twice with one key; absent without `allowTestOrders` or without a created order. */
  readonly documents?: {
    readonly first: ProbeCall & {
      readonly documentId: string | null;
      readonly linksFound: readonly string[];
    };
    readonly second: ProbeCall & {
      readonly documentId: string | null;
      readonly linksFound: readonly string[];
    };
    /** `true` when both answers named the same document, `false` when they named two, else `null`. */
    readonly keyHonoured: boolean | null;
  };
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

function failureOf(error: unknown): ProbeFailure {
  if (isPlatformError(error)) {
    return { code: error.code, status: error.status ?? null, outcome: error.outcome, message: error.message };
  }
  return {
    code: 'UNEXPECTED_ERROR',
    status: null,
    outcome: null,
    message: error instanceof Error ? error.name : 'non-error thrown',
  };
}

function escapeToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
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
        queue.push({ value: item, pointer: `${pointer}/${escapeToken(key)}` });
    }
  }
  return undefined;
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

function sameIds<T>(a: T | null, b: T | null): boolean | null {
  return a === null || b === null ? null : a === b;
}

/**
 * Probe the platform the client is configured for. Never throws on a platform failure (it is reported);
 * rethrows only the caller's abort.
 * @param input the client, whether test orders may be created, and an abort signal
 */
export async function probePlatform(input: ProbeInput): Promise<ProbeReport> {
  const { client, signal } = input;
  const notes: string[] = [];
  // Only the caller's abort leaves the probe; every platform failure is reported.
  const guard = (): void => {
    if (signal?.aborted) throw signal.reason;
  };

  let owner: string | null = null;
  let authentication: ProbeReport['authentication'];
  try {
    const session = await client.authenticate({ ...(signal && { signal }) });
    owner = session.documentOwner?.id ?? null;
    authentication = {
      ok: true,
      userId: session.userId,
      claims: session.claims,
      documentOwnerSource: session.documentOwner?.source ?? null,
    };
    notes.push(...ownerNotes(session.claims));
  } catch (error) {
    guard();
    authentication = {
      ok: false,
      userId: null,
      claims: { names: [], userIdClaim: null, subNumeric: null },
      documentOwnerSource: null,
      failure: failureOf(error),
    };
  }

  let stocks: ProbeReport['stocks'];
  try {
    const list = await client.listStocks({ ...(signal && { signal }) });
    stocks = { status: list.status, shape: describeShape(list.raw), stockCount: list.stocks.length };
  } catch (error) {
    guard();
    const failure = failureOf(error);
    stocks = { status: failure.status, shape: [], stockCount: null, failure };
  }

  const map: { orderId?: string; documentId?: string; links?: Record<string, string> } = {};
  let orders: ProbeReport['orders'];
  let documents: ProbeReport['documents'];
  if (input.allowTestOrders !== true) {
    notes.push(
      'no test order created (allowTestOrders is off): whether the platform honours keys is unknown',
    );
  } else {
    const key = `probe-${randomUUID()}`;
    const order = async (): Promise<ProbeCall & { orderId: string | null; raw?: unknown }> => {
      try {
        const created = await client.createOrder({
          payload: input.testOrder ?? DEFAULT_TEST_ORDER,
          idempotencyKey: key,
          ...(signal && { signal }),
        });
        return {
          status: created.status,
          shape: describeShape(created.raw),
          orderId: created.orderId,
          raw: created.raw,
        };
      } catch (error) {
        guard();
        const failure = failureOf(error);
        return { status: failure.status, shape: [], orderId: null, failure };
      }
    };
    const { raw: firstOrderBody, ...first } = await order();
    const { raw: _secondOrderBody, ...second } = await order();
    orders = { first, second, keyHonoured: sameIds(first.orderId, second.orderId) };
    if (first.orderId !== null) {
      const orderId = first.orderId;
      map.orderId = pointerTo(firstOrderBody, (value) => numericId(value) === orderId);
    }
    if (orders.keyHonoured === false)
      notes.push('the same key created two orders: the platform ignores Idempotency-Key');

    if (first.orderId !== null && owner !== null) {
      const documentOwner = owner;
      const orderId = first.orderId;
      const docKey = `probe-doc-${randomUUID()}`;
      const source: UploadSource = {
        sizeBytes: TINY_PDF.length,
        openStream: () => Readable.from([TINY_PDF]),
      };
      const upload = async (): Promise<
        ProbeCall & {
          documentId: string | null;
          linksFound: readonly string[];
          raw?: unknown;
          links?: Record<string, string | null>;
        }
      > => {
        try {
          const uploaded = await client.uploadDocument({
            source,
            filename: 'probe.pdf',
            contentType: 'application/pdf',
            orderId,
            documentOwner,
            idempotencyKey: docKey,
            ...(signal && { signal }),
          });
          return {
            status: uploaded.status,
            shape: describeShape(uploaded.raw),
            documentId: uploaded.documentId,
            linksFound: Object.entries(uploaded.links)
              .filter(([, link]) => link !== null)
              .map(([name]) => name),
            raw: uploaded.raw,
            links: { ...uploaded.links },
          };
        } catch (error) {
          guard();
          const failure = failureOf(error);
          return { status: failure.status, shape: [], documentId: null, linksFound: [], failure };
        }
      };
      const { raw: firstDocBody, links: firstLinks, ...firstDoc } = await upload();
      const { raw: _secondDocBody, links: _secondLinks, ...secondDoc } = await upload();
      documents = {
        first: firstDoc,
        second: secondDoc,
        keyHonoured: sameIds(firstDoc.documentId, secondDoc.documentId),
      };
      if (firstDoc.documentId !== null) {
        const id = firstDoc.documentId;
        map.documentId = pointerTo(
          firstDocBody,
          (value) => value === id || (typeof value === 'number' && String(value) === id),
        );
      }
      const links: Record<string, string> = {};
      for (const [name, link] of Object.entries(firstLinks ?? {})) {
        if (link === null) continue;
        const pointer = pointerTo(
          firstDocBody,
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
      if (firstDoc.failure?.status === 422 && /document[_ ]?owner/i.test(firstDoc.failure.message))
        notes.push(
          'the platform refused the document owner: set BADGE_DOCUMENT_OWNER to the platform user id, or BADGE_USER_ID_CLAIM to the claim holding it',
        );
    } else {
      notes.push('no upload tried: the test order has no id, or the token names no user');
    }
  }

  const honoured = orders?.keyHonoured === true && documents?.keyHonoured === true;
  const responseMap: ResponseMap | null =
    map.orderId === undefined && map.documentId === undefined && map.links === undefined
      ? null
      : {
          ...(map.orderId !== undefined && { orderId: map.orderId }),
          ...(map.documentId !== undefined && { documentId: map.documentId }),
          ...(map.links !== undefined && { links: map.links }),
        };
  return {
    authentication,
    stocks,
    ...(orders && { orders }),
    ...(documents && { documents }),
    recommended: {
      BADGE_IDEMPOTENCY_KEYS: honoured ? 'honoured' : null,
      responseMap,
      BADGE_USER_ID_CLAIM: authentication.claims.userIdClaim,
    },
    notes,
  };
}
