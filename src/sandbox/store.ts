/**
 * In-memory state of one sandbox: orders, documents and remembered idempotent responses.
 * Nothing here touches the network; the routes decide what to store and when.
 */
import type { DocumentResponse, OrderResponse, SandboxRoute } from './shapes';

/** An order as the sandbox keeps it: the response body plus the owning user. */
export interface StoredOrder extends OrderResponse {
  user_id: string;
}

/** A document as the sandbox keeps it: the response body plus owner, time and storage location. */
export interface StoredDocument extends DocumentResponse {
  user_id: string;
  created_at: string;
  /** Where the bytes were written when the sandbox runs with a storage directory. */
  stored_path?: string;
}

/** A remembered idempotency key. In flight until the first request finishes successfully. */
export interface IdempotencyRecord {
  userId: string;
  route: SandboxRoute;
  key: string;
  state: 'in-flight' | 'completed';
  /** Status of the remembered response (completed keys only). */
  status?: number;
  /** Body of the remembered response (completed keys only). */
  body?: unknown;
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
  { kind: 'new' } | { kind: 'replay'; status: number; body: unknown } | { kind: 'in-flight' };

/** Input of {@link SandboxStore.createOrder}. */
export interface NewOrder {
  userId: string;
  stockId: number | null;
  vehicle: Record<string, unknown>;
  badge: Record<string, unknown>;
  createdAt: string;
}

/** First order id; ids increase by one from here. */
export const FIRST_ORDER_ID = 5001;

/** The sandbox's in-memory store. */
export class SandboxStore {
  private orders = new Map<number, StoredOrder>();
  private documents = new Map<string, StoredDocument>();
  private idempotency = new Map<string, IdempotencyRecord>();
  private nextOrderId = FIRST_ORDER_ID;
  private nextDocumentNumber = 1;

  /** Stores a new order and returns it with its fresh id. */
  createOrder(order: NewOrder): StoredOrder {
    const stored: StoredOrder = {
      id: this.nextOrderId++,
      stock_id: order.stockId,
      vehicle: order.vehicle,
      badge: order.badge,
      status: 'created',
      created_at: order.createdAt,
      user_id: order.userId,
    };
    this.orders.set(stored.id, stored);
    return stored;
  }

  /** The order `id` if it belongs to `userId`. */
  findOrder(userId: string, id: number): StoredOrder | undefined {
    const order = this.orders.get(id);
    return order && order.user_id === userId ? order : undefined;
  }

  /** Reserves the id of the next document (`doc-<n>`). */
  nextDocumentId(): string {
    return `doc-${this.nextDocumentNumber++}`;
  }

  /** Stores a received document. */
  addDocument(document: StoredDocument): void {
    this.documents.set(document.id, document);
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
      return { kind: 'replay', status: existing.status ?? 200, body: existing.body };
    }
    if (existing) return { kind: 'in-flight' };
    this.idempotency.set(id, { userId, route, key, state: 'in-flight', created_at: createdAt });
    return { kind: 'new' };
  }

  /** Remembers the successful response of a key begun with {@link beginIdempotent}. */
  completeIdempotent(userId: string, route: SandboxRoute, key: string, status: number, body: unknown): void {
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

  /** Clears orders, documents and keys; ids start again at 5001 and `doc-1`. */
  reset(): void {
    this.orders.clear();
    this.documents.clear();
    this.idempotency.clear();
    this.nextOrderId = FIRST_ORDER_ID;
    this.nextDocumentNumber = 1;
  }
}

function idempotencyId(userId: string, route: SandboxRoute, key: string): string {
  return JSON.stringify([userId, route, key]);
}
