/**
 * The chaos run's end-of-run check against the platform's holdings, on hand-made sandbox states: what is a
 * violation (a lost document, an unflagged duplicate, any duplicate where keys are honoured, a second order)
 * and what is only a figure (a flag without a duplicate).
 */
import type { SandboxState, StoredDocument, StoredOrder } from '../../../src/sandbox';
import { planOrders } from '../../../tools/chaos/chaos-orders';
import { checkGroundTruth, type DuplicateFlags } from '../../../tools/chaos/ground-truth';

function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`missing: ${what}`);
  return value;
}

const order = defined(planOrders(1)[0], 'a planned order');
const first = defined(order.documents[0], "the order's first document");
const second = defined(order.documents[1], "the order's second document");

function storedOrder(id: number, sequence: number): StoredOrder {
  return {
    id: String(id),
    stock_id: null,
    vehicle: { chaosOrderRef: order.orderRef },
    badge: { type: 'green' },
    status: 'created',
    created_at: '2026-01-01T00:00:00.000Z',
    user_id: '4711',
    idempotency_key: `key-${id}`,
    sequence,
  };
}

function storedDocument(sha256: string, orderId: number, sequence: number): StoredDocument {
  return {
    id: `doc-${sequence}`,
    document_type: 'badge',
    document_type_id: String(orderId),
    document_owner: '4711',
    filename: 'file.pdf',
    content_type: 'application/pdf',
    size: 1,
    sha256,
    links: { original: 'o', thumbnail: 't', download: 'd' },
    user_id: '4711',
    created_at: '2026-01-01T00:00:00.000Z',
    idempotency_key: null,
    file_part: 'file',
    sequence,
  };
}

function check(
  orders: StoredOrder[],
  documents: StoredDocument[],
  flags: DuplicateFlags,
  keysHonoured: boolean,
): { violations: string[]; figures: ReturnType<typeof checkGroundTruth> } {
  const state: SandboxState = { orders, documents, idempotencyKeys: [] };
  const violations: string[] = [];
  const figures = checkGroundTruth({ state, planned: [order], flags, keysHonoured, violations });
  return { violations, figures };
}

describe('checkGroundTruth', () => {
  it('accepts a flagged duplicate with keys ignored, and counts a flag without a duplicate', () => {
    const { violations, figures } = check(
      [storedOrder(1, 1)],
      [
        storedDocument(first.sha256, 1, 2),
        storedDocument(first.sha256, 1, 3),
        storedDocument(second.sha256, 1, 4),
      ],
      new Map([
        [first.path, true],
        [second.path, true],
      ]),
      false,
    );
    expect(violations).toEqual([]);
    expect(figures).toEqual({
      accepted: 2,
      copies: 3,
      duplicated: 1,
      duplicatedFlagged: 1,
      lost: 0,
      flagged: 2,
      flaggedWithoutDuplicate: 1,
    });
  });

  it('reports an unflagged duplicate, a lost document and a second order', () => {
    const { violations, figures } = check(
      [storedOrder(1, 1), storedOrder(2, 2)],
      [storedDocument(first.sha256, 1, 3), storedDocument(first.sha256, 1, 4)],
      new Map([[first.path, false]]),
      false,
    );
    expect(violations).toEqual([
      `${order.orderRef}: the sandbox holds 2 orders (1, 2), expected exactly 1`,
      `${first.path}: the sandbox holds 2 copies, not flagged possibleDuplicate`,
      `${second.path}: lost (the sandbox holds no copy)`,
    ]);
    expect(figures.lost).toBe(1);
    expect(figures.duplicated).toBe(1);
    expect(figures.duplicatedFlagged).toBe(0);
  });

  it('reports any duplicate, flagged or not, when the platform honours the key', () => {
    const { violations } = check(
      [storedOrder(1, 1)],
      [
        storedDocument(first.sha256, 1, 2),
        storedDocument(first.sha256, 1, 3),
        storedDocument(second.sha256, 1, 4),
      ],
      new Map([[first.path, true]]),
      true,
    );
    expect(violations).toEqual([
      `${first.path}: the sandbox holds 2 copies, expected exactly 1 (it honours Idempotency-Key)`,
    ]);
  });

  it('reports a copy linked to another order', () => {
    const { violations } = check(
      [storedOrder(1, 1)],
      [storedDocument(first.sha256, 1, 2), storedDocument(second.sha256, 99, 3)],
      new Map(),
      false,
    );
    expect(violations).toEqual([`${second.path}: linked to order 99, expected 1`]);
  });
});
