/**
 * In-memory state of one sandbox: orders, documents and remembered idempotent responses.
 * Nothing here touches the network; the routes decide what to store and when.
 */
import type { DocumentResponse, OrderResponse, SandboxRoute } from './shapes';

/**
 * An order as the sandbox keeps it: the `reference` profile's response body plus the owning user, the
 * `Idempotency-Key` it was sent with and its place in the creation order. The same whatever the profile.
 */
export interface StoredOrder extends OrderResponse {
  user_id: string;
  /** The `Idempotency-Key` header of the request that created it (recorded even when keys are ignored). */
  idempotency_key: string | null;
  /** Position in the creation order of all orders and documents, from 1; restarts at a reset. */
  sequence: number;
}

/**
 * A document as the sandbox keeps it: the `reference` profile's response body plus owner, time, storage
 * location, the `Idempotency-Key` it was sent with and its place in the creation order. `id` is the platform id
 * as a string (the wire form may be a number, see the profile's `documents.idStyle`).
 */
export interface StoredDocument extends DocumentResponse {
  user_id: string;
  created_at: string;
  /** Where the bytes were written when the sandbox runs with a storage directory. */
  stored_path?: string;
  /** The `Idempotency-Key` header of the request that stored it (recorded even when keys are ignored). */
  idempotency_key: string | null;
  /** Name of the multipart part the file came in. */
  file_part: string;
  /** Position in the creation order of all orders and documents, from 1; restarts at a reset. */
  sequence: number;
}

/** The fields of a stored order that `GET /_sandbox/orders` lists, in this order. */
const ORDER_RECORD_KEYS = ['sequence', 'id', 'user_id', 'stock_id', 'idempotency_key', 'created_at'] as const;

/** Ground truth of one created order, as listed by `GET /_sandbox/orders`. */
export type OrderRecord = Pick<StoredOrder, (typeof ORDER_RECORD_KEYS)[number]>;

/**
 * The fields of a stored document that `GET /_sandbox/documents` lists, in this order; `order_id` is the order it
 * is linked to (`document_type_id`), as its digits.
 */
const DOCUMENT_RECORD_KEYS = [
  'sequence',
  'id',
  'order_id',
  'user_id',
  'idempotency_key',
  'size',
  'sha256',
  'filename',
  'content_type',
  'file_part',
  'created_at',
] as const;

/** Ground truth of one stored document, as listed by `GET /_sandbox/documents`. */
export type DocumentRecord = Pick<
  StoredDocument & { order_id: string },
  (typeof DOCUMENT_RECORD_KEYS)[number]
>;

/** Filter of {@link SandboxStore.listOrders} and {@link SandboxStore.listDocuments}; all fields optional. */
export interface RecordFilter {
  /** Only records created by a request with this `Idempotency-Key`. */
  idempotencyKey?: string;
  /** Only records of this user id. */
  userId?: string;
  /** Documents only: only those linked to this order id (its digits). */
  orderId?: string;
}

/** A remembered idempotency key. In flight until the first request finishes successfully. */
export interface IdempotencyRecord {
  userId: string;
  route: SandboxRoute;
  key: string;
  state: 'in-flight' | 'completed';
  /** Status of the remembered response (completed keys only). */
  status?: number;
  /** Body of the remembered response as the JSON text sent (completed keys only). */
  body?: string;
  created_at: string;
}

/** Everything the sandbox holds, as returned by `GET /_sandbox/state`. */
export interface SandboxState {
  orders: StoredOrder[];
  documents: StoredDocument[];
  idempotencyKeys: IdempotencyRecord[];
}

/** Outcome of {@link SandboxStore.beginIdempotent}. */
export type IdempotencyBegin =
  { kind: 'new' } | { kind: 'replay'; status: number; body: string } | { kind: 'in-flight' };

/** An order to store: the canonical body and bookkeeping, without what the store assigns. */
export type NewOrder = Omit<StoredOrder, 'id' | 'status' | 'sequence'>;

/** A document to store: the canonical body and bookkeeping, without the sequence the store assigns. */
export type NewDocument = Omit<StoredDocument, 'sequence'>;

/** The sandbox's in-memory store. */
export class SandboxStore {
  private orders = new Map<string, StoredOrder>();
  private documents = new Map<string, StoredDocument>();
  private idempotency = new Map<string, IdempotencyRecord>();
  // A bigint: ids may pass 2^53, where a number would skip and repeat them.
  private nextOrderId: bigint;
  private documentCounter = 1;
  private nextSequence = 1;

  /**
   * @param firstOrderId id of the first order as digits, and again after a reset (the profile's
   * `orders.firstOrderId`); ids increase by one from here
   */
  constructor(private readonly firstOrderId: string) {
    this.nextOrderId = BigInt(firstOrderId);
  }

  /** Stores a new order and returns it with its fresh id. */
  createOrder(order: NewOrder): StoredOrder {
    const id = String(this.nextOrderId);
    this.nextOrderId += 1n;
    const stored: StoredOrder = { id, ...order, status: 'created', sequence: this.nextSequence++ };
    this.orders.set(stored.id, stored);
    return stored;
  }

  /** The order `id` (exactly these digits) if it belongs to `userId`. */
  findOrder(userId: string, id: string): StoredOrder | undefined {
    const order = this.orders.get(id);
    return order && order.user_id === userId ? order : undefined;
  }

  /** Reserves the number of the next document (1, 2, …); the profile decides the id's form. */
  nextDocumentNumber(): number {
    return this.documentCounter++;
  }

  /** Stores a received document and returns it with its sequence number. */
  addDocument(document: NewDocument): StoredDocument {
    const stored: StoredDocument = { ...document, sequence: this.nextSequence++ };
    this.documents.set(stored.id, stored);
    return stored;
  }

  /** Ground truth of the created orders, in creation order. */
  listOrders(filter: Omit<RecordFilter, 'orderId'> = {}): OrderRecord[] {
    return matching(this.orders, filter).map((order) => pick(order, ORDER_RECORD_KEYS));
  }

  /** Ground truth of the stored documents, in creation order. */
  listDocuments(filter: RecordFilter = {}): DocumentRecord[] {
    return matching(this.documents, filter)
      .filter((document) => filter.orderId === undefined || document.document_type_id === filter.orderId)
      .map((document) => pick({ ...document, order_id: document.document_type_id }, DOCUMENT_RECORD_KEYS));
  }

  /** A stored document by id. */
  findDocument(id: string): StoredDocument | undefined {
    return this.documents.get(id);
  }

  /**
   * Starts a request carrying an idempotency key: `replay` when the key already holds a successful response,
   * `in-flight` when another request with the key is running, otherwise marks the key in flight (`new`).
   */
  beginIdempotent(userId: string, route: SandboxRoute, key: string, createdAt: string): IdempotencyBegin {
    const id = idempotencyId(userId, route, key);
    const existing = this.idempotency.get(id);
    if (existing?.state === 'completed') {
      return { kind: 'replay', status: existing.status ?? 200, body: existing.body ?? '' };
    }
    if (existing) return { kind: 'in-flight' };
    this.idempotency.set(id, { userId, route, key, state: 'in-flight', created_at: createdAt });
    return { kind: 'new' };
  }

  /** Remembers the successful response of a key begun with {@link beginIdempotent}. */
  completeIdempotent(userId: string, route: SandboxRoute, key: string, status: number, body: string): void {
    const record = this.idempotency.get(idempotencyId(userId, route, key));
    if (record) Object.assign(record, { state: 'completed', status, body });
  }

  /** Forgets an in-flight key whose request failed, so it may be retried. */
  abandonIdempotent(userId: string, route: SandboxRoute, key: string): void {
    const id = idempotencyId(userId, route, key);
    if (this.idempotency.get(id)?.state === 'in-flight') this.idempotency.delete(id);
  }

  /** A copy of everything held. */
  snapshot(): SandboxState {
    return structuredClone({
      orders: [...this.orders.values()],
      documents: [...this.documents.values()],
      idempotencyKeys: [...this.idempotency.values()],
    });
  }

  /**
   * Clears orders, documents and keys; ids start again at document 1 and at the first order id, or at
   * `firstOrderId` (digits) this time.
   */
  reset(firstOrderId: string = this.firstOrderId): void {
    this.orders.clear();
    this.documents.clear();
    this.idempotency.clear();
    this.nextOrderId = BigInt(firstOrderId);
    this.documentCounter = 1;
    this.nextSequence = 1;
  }
}

function idempotencyId(userId: string, route: SandboxRoute, key: string): string {
  return JSON.stringify([userId, route, key]);
}

/** The records created by a request with the filter's key and of its user, in creation order. */
function matching<T extends StoredOrder | StoredDocument>(
  records: Map<string, T>,
  filter: RecordFilter,
): T[] {
  return [...records.values()].filter(
    (record) =>
      (filter.idempotencyKey === undefined || record.idempotency_key === filter.idempotencyKey) &&
      (filter.userId === undefined || record.user_id === filter.userId),
  );
}

function pick<T, K extends keyof T>(record: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, record[key]])) as Pick<T, K>;
}
