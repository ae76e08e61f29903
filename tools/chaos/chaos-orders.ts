/**
 * The orders of a chaos run: every document has distinct content (so the platform's copies can be counted by
 * sha256), the stocks vary (listed, retired, unlisted, none), and some orders carry a `.gif` that the sandbox
 * rejects on purpose — those, and only those, must end in AwaitingRepair.
 */
import { createHash } from 'node:crypto';
import type { BadgeOrderInput } from '../../src/contract';
import type { BadgeOrderStatusValue } from '../../src/workflow-contract';

/** One planned document and what the platform must end up holding of it. */
export interface PlannedDocument {
  readonly path: string;
  readonly content: Buffer;
  readonly sha256: string;
  /** False for the document the sandbox rejects on purpose. */
  readonly accepted: boolean;
}

/** One planned order with the outcome the run expects. */
export interface PlannedOrder {
  readonly input: BadgeOrderInput;
  readonly orderRef: string;
  readonly documents: readonly PlannedDocument[];
  readonly expected: Extract<BadgeOrderStatusValue, 'Completed' | 'AwaitingRepair'>;
  /**
   * The platform answers 404 to a creation with this order's stock (retired, or not the user's): the order is
   * created again without it. The stock lookup before only advises.
   */
  readonly stockRejected: boolean;
}

const HEADERS: Record<string, Buffer> = {
  pdf: Buffer.from('%PDF-1.4\n'),
  jpg: Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  gif: Buffer.from('GIF89a'),
};
const EXTENSIONS = ['pdf', 'jpg', 'png'] as const;
// Listed, retired and unlisted (the platform answers 404 to both: fallback), none.
const STOCKS = [1001, 1003, 999, undefined] as const;
const REJECTED_STOCKS: ReadonlySet<number | undefined> = new Set([1003, 999]);

const sha256 = (content: Buffer): string => createHash('sha256').update(content).digest('hex');

function documentContent(extension: string, label: string, sizeBytes: number): Buffer {
  const header = HEADERS[extension] ?? Buffer.alloc(0);
  const body = Buffer.from(`\n${label}\n`);
  const padding = Buffer.alloc(Math.max(sizeBytes - header.length - body.length, 0), label.length % 251);
  return Buffer.concat([header, body, padding]);
}

/** Whether order number `index` carries a document the sandbox rejects. */
function hasRejectedDocument(index: number): boolean {
  return index % 5 === 4;
}

/** Plans `count` orders; the options make a killed worker's upload come back within seconds. */
export function planOrders(count: number): PlannedOrder[] {
  return Array.from({ length: count }, (_, index) => {
    const orderRef = `chaos-${String(index).padStart(3, '0')}`;
    const documents: PlannedDocument[] = Array.from({ length: 2 + (index % 2) }, (_, position) => {
      const extension = EXTENSIONS[(index + position) % EXTENSIONS.length] ?? 'pdf';
      const content = documentContent(
        extension,
        `chaos ${orderRef} document ${position}`,
        2_048 + ((index * 7 + position * 13) % 24) * 1_024,
      );
      return {
        path: `${orderRef}/document-${position}.${extension}`,
        content,
        sha256: sha256(content),
        accepted: true,
      };
    });
    if (hasRejectedDocument(index)) {
      const content = documentContent('gif', `chaos ${orderRef} rejected gif`, 1_024);
      documents.push({
        path: `${orderRef}/animation.gif`,
        content,
        sha256: sha256(content),
        accepted: false,
      });
    }
    const stockId = STOCKS[index % STOCKS.length];
    const input: BadgeOrderInput = {
      orderRef,
      ...(stockId === undefined ? {} : { stockId }),
      vehicle: { licensePlate: `CH-AOS ${index}`, chaosOrderRef: orderRef },
      badge: { type: 'green' },
      documents: documents.map((document) => ({ path: document.path })),
      options: { uploadHeartbeatTimeoutMs: 3_000, maxParallelUploads: 2 },
    };
    return {
      input,
      orderRef,
      documents,
      expected: documents.every((document) => document.accepted) ? 'Completed' : 'AwaitingRepair',
      stockRejected: REJECTED_STOCKS.has(stockId),
    };
  });
}
