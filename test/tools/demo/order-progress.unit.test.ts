import { PassThrough } from 'node:stream';
import type { BadgeOrderStatusView, DocumentState } from '../../../src/contract';
import { createOrderProgress, type ProgressStream } from '../../../tools/demo/order-progress';

function captured(isTTY: boolean): { stream: ProgressStream; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  Object.defineProperty(stream, 'isTTY', { value: isTTY });
  Object.defineProperty(stream, 'columns', { value: 200 });
  return { stream, text: () => text };
}

function document(path: string, overrides: Partial<DocumentState> = {}): DocumentState {
  return {
    path,
    status: 'pending',
    attempts: 0,
    lastError: null,
    documentId: null,
    links: null,
    possibleDuplicate: false,
    sourcePath: path,
    held: false,
    ...overrides,
  };
}

function order(overrides: Partial<BadgeOrderStatusView> = {}): BadgeOrderStatusView {
  return {
    orderRef: 'demo-awaiting-repair',
    phase: 'creating-order',
    searchStatus: 'Running',
    orderId: null,
    stockFallback: false,
    stockFallbackReason: null,
    documents: [document('vehicle-photo.jpg'), document('handwritten-note.txt')],
    repairDeadline: null,
    reconciliation: null,
    reconciliationDeadline: null,
    failure: null,
    ...overrides,
  };
}

/** The order once placed: its photo uploaded, its note uploading. */
function uploadingOrder(): BadgeOrderStatusView {
  return order({
    phase: 'uploading',
    orderId: '5001',
    documents: [
      document('vehicle-photo.jpg', { status: 'uploaded', attempts: 1 }),
      document('handwritten-note.txt', { status: 'uploading', attempts: 1 }),
    ],
  });
}

describe('order progress on a stream that is not a TTY', () => {
  it('prints one plain line per order and per document, again only when it changes', () => {
    const { stream, text } = captured(false);
    const progress = createOrderProgress({ stream });

    progress.update([order()]);
    progress.update([order()]);
    progress.update([uploadingOrder()]);
    progress.update([
      order({
        phase: 'awaiting-repair',
        searchStatus: 'AwaitingRepair',
        orderId: '5001',
        documents: [
          document('vehicle-photo.jpg', { status: 'uploaded', attempts: 1 }),
          document('handwritten-note.txt', {
            status: 'failed',
            attempts: 1,
            lastError: 'POST /documents failed with 422 (Unprocessable Entity)',
          }),
        ],
      }),
    ]);
    progress.stop();

    expect(text().split('\n')).toEqual([
      'demo-awaiting-repair: creating-order · 0/2 documents uploaded',
      'demo-awaiting-repair › vehicle-photo.jpg: pending',
      'demo-awaiting-repair › handwritten-note.txt: pending',
      'demo-awaiting-repair: uploading · order 5001 · 1/2 documents uploaded',
      'demo-awaiting-repair › vehicle-photo.jpg: uploaded',
      'demo-awaiting-repair › handwritten-note.txt: uploading',
      'demo-awaiting-repair: awaiting-repair · order 5001 · 1/2 documents uploaded',
      'demo-awaiting-repair › handwritten-note.txt: failed after 1 attempt: POST /documents failed with 422 (Unprocessable Entity)',
      '',
    ]);
    // No cursor movement or colour codes in CI logs.
    expect(text()).not.toContain('\u001b');
  });

  it('names the stock fallback, a replacement file and repeated attempts', () => {
    const { stream, text } = captured(false);
    const progress = createOrderProgress({ stream });
    progress.update([
      order({
        orderRef: 'demo-stock-fallback',
        phase: 'completed',
        orderId: '5002',
        stockFallback: true,
        documents: [document('scan.gif', { status: 'uploading', attempts: 3, sourcePath: 'scan-fixed.pdf' })],
      }),
    ]);
    progress.stop();
    expect(text()).toBe(
      'demo-stock-fallback: completed · order 5002 · ordered without stock · 0/1 documents uploaded\n' +
        'demo-stock-fallback › scan.gif: uploading (as scan-fixed.pdf) (attempt 3)\n',
    );
  });
});

describe('order progress on a TTY', () => {
  it('draws bars in place for each order and document', () => {
    const { stream, text } = captured(true);
    const progress = createOrderProgress({ stream });
    progress.update([uploadingOrder()]);
    progress.stop();
    progress.stop();

    const output = text();
    // Cursor control: the bars are redrawn in place rather than appended.
    expect(output).toContain('\u001b[');
    expect(output).toMatch(
      /demo-awaiting-repair +█{10}░{10} uploading · order 5001 · 1\/2 documents uploaded/,
    );
    expect(output).toMatch(/ {2}vehicle-photo\.jpg +█{20} uploaded/);
    expect(output).toMatch(/ {2}handwritten-note\.txt +█{10}░{10} uploading/);
  });
});
