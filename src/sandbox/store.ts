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

/** Ground truth of one created order, as listed by `GET /_sandbox/orders`. */
export interface OrderRecord {
  /** Position in the creation order of all orders and documents, from 1. */
  sequence: number;
  /** The order id as its digits (always a string here, whatever the profile sends; it may pass 2^53). */
  id: string;
  user_id: string;
  stock_id: number | null;
  /** The `Idempotency-Key` header the creating request carried, or null. */
  idempotency_key: string | null;
  created_at: string;
}

/** Ground truth of one stored document, as listed by `GET /_sandbox/documents`. */
export interface DocumentRecord {
  /** Position in the creation order of all orders and documents, from 1. */
  sequence: number;
  /** The document id as a string. */
  id: string;
  /** The order it is linked to (`document_type_id`), as its digits. */
  order_id: string;
  user_id: string;
  /** The `Idempotency-Key` header the storing request carried, or null. */
  idempotency_key: string | null;
  size: number;
  sha256: string;
  filename: string;
  content_type: string;
  /** Name of the multipart part the file came in. */
  file_part: string;
  created_at: string;
}

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

/** Input of {@link SandboxStore.createOrder}. */
export interface NewOrder {
  userId: string;
  stockId: number | null;
  vehicle: Record<string, unknown>;
  badge: Record<string, unknown>;
  createdAt: string;
  idempotencyKey: string | null;
}

/** A document to store: the canonical body and bookkeeping, without the sequence the store assigns. */
export type NewDocument = Omit<StoredDocument, 'sequence'>;

/** First order id of the `reference` profile; ids increase by one from here. */
export const FIRST_ORDER_ID = '5001';

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
   * `orders.firstOrderId`)
   */
  constructor(private readonly firstOrderId: string = FIRST_ORDER_ID) {
    this.nextOrderId = BigInt(firstOrderId);
  }

  /** Stores a new order and returns it with its fresh id. */
  createOrder(order: NewOrder): StoredOrder {
    const id = String(this.nextOrderId);
    this.nextOrderId += 1n;
    const stored: StoredOrder = {
      id,
      stock_id: order.stockId,
      vehicle: order.vehicle,
      badge: order.badge,
      status: 'created',
      created_at: order.createdAt,
      user_id: order.userId,
      idempotency_key: order.idempotencyKey,
      sequence: this.nextSequence++,
    };
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
  listOrders(filter: RecordFilter = {}): OrderRecord[] {
    return [...this.orders.values()]
      .filter(
        (order) =>
          (filter.idempotencyKey === undefined || order.idempotency_key === filter.idempotencyKey) &&
          (filter.userId === undefined || order.user_id === filter.userId),
      )
      .map((order) => ({
        sequence: order.sequence,
        id: order.id,
        user_id: order.user_id,
        stock_id: order.stock_id,
        idempotency_key: order.idempotency_key,
        created_at: order.created_at,
      }));
  }

  /** Ground truth of the stored documents, in creation order. */
  listDocuments(filter: RecordFilter = {}): DocumentRecord[] {
    return [...this.documents.values()]
      .filter(
        (document) =>
          (filter.idempotencyKey === undefined || document.idempotency_key === filter.idempotencyKey) &&
          (filter.userId === undefined || document.user_id === filter.userId) &&
          (filter.orderId === undefined || document.document_type_id === filter.orderId),
      )
      .map((document) => ({
        sequence: document.sequence,
        id: document.id,
        order_id: document.document_type_id,
        user_id: document.user_id,
        idempotency_key: document.idempotency_key,
        size: document.size,
        sha256: document.sha256,
        filename: document.filename,
        content_type: document.content_type,
        file_part: document.file_part,
        created_at: document.created_at,
      }));
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
