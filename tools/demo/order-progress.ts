/**
 * A terminal progress display for badge orders: one bar per order (documents uploaded of all) and one per
 * document, redrawn in place with `cli-progress` on a TTY. When the stream is not a TTY (CI logs, a pipe), it
 * prints plain lines instead — one whenever an order's or a document's state changes — so logs stay readable.
 */
import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import type { BadgeOrderStatusView, DocumentState } from '../../src/contract';

/** Where the progress goes: `process.stdout`, or any writable stream (tests). */
export type ProgressStream = NodeJS.WritableStream & { readonly isTTY?: boolean };

/** Shows the progress of a set of orders; see the module comment. */
export interface OrderProgress {
  /** Renders the orders' latest `status` query answers (in the order they should be listed). */
  update(statuses: readonly BadgeOrderStatusView[]): void;
  /** Draws the final state and releases the terminal. Safe to call twice. */
  stop(): void;
}

export interface OrderProgressOptions {
  readonly stream: ProgressStream;
  /** Redraw bars in place. @default `stream.isTTY === true` */
  readonly tty?: boolean;
}

/** How an order's state reads, e.g. `uploading · order 5001 · 1/2 documents uploaded`. */
export function describeOrder(status: BadgeOrderStatusView): string {
  const uploaded = status.documents.filter((document) => document.status === 'uploaded').length;
  const parts = [
    status.phase,
    ...(status.orderId === null ? [] : [`order ${status.orderId}`]),
    ...(status.stockFallback ? ['ordered without stock'] : []),
    `${uploaded}/${status.documents.length} documents uploaded`,
    ...(status.failure === null ? [] : [status.failure]),
  ];
  return parts.join(' · ');
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** How a document's state reads, e.g. `failed after 1 attempt: … 422 …`. */
function describeDocument(document: DocumentState): string {
  const replaced = document.sourcePath === document.path ? '' : ` (as ${document.sourcePath})`;
  switch (document.status) {
    case 'pending':
      return `pending${replaced}`;
    case 'uploading':
      return `uploading${replaced}${document.attempts > 1 ? ` (attempt ${document.attempts})` : ''}`;
    case 'uploaded':
      return `uploaded${replaced}`;
    case 'failed':
      return `failed${replaced} after ${plural(document.attempts, 'attempt')}${document.lastError ? `: ${document.lastError}` : ''}`;
  }
}

/** Plain lines: prints an order's or a document's state each time it changes. */
function plainProgress(stream: ProgressStream): OrderProgress {
  const last = new Map<string, string>();
  const print = (key: string, line: string): void => {
    if (last.get(key) === line) return;
    last.set(key, line);
    stream.write(`${line}\n`);
  };
  return {
    update(statuses) {
      for (const status of statuses) {
        print(status.orderRef, `${status.orderRef}: ${describeOrder(status)}`);
        for (const [index, document] of status.documents.entries()) {
          print(
            `${status.orderRef}\u0000${index}`,
            `${status.orderRef} › ${document.path}: ${describeDocument(document)}`,
          );
        }
      }
    },
    stop() {
      last.clear();
    },
  };
}

/** A document's bar: half when uploading, full when uploaded (the query reports no byte counts). */
const DOCUMENT_STEPS: Record<DocumentState['status'], number> = {
  pending: 0,
  uploading: 1,
  failed: 0,
  uploaded: 2,
};

/** Bars redrawn in place with cli-progress. */
function ttyProgress(stream: ProgressStream): OrderProgress {
  const bars = new MultiBar(
    {
      stream,
      format: '{label} {bar} {state}',
      barsize: 20,
      hideCursor: true,
      autopadding: true,
      // Our own stop() restores the terminal; the demo handles Ctrl-C itself.
      gracefulExit: false,
      linewrap: false,
    },
    Presets.shades_classic,
  );
  const orderBars = new Map<string, { readonly order: SingleBar; readonly documents: SingleBar[] }>();
  let stopped = false;
  const width = (statuses: readonly BadgeOrderStatusView[]): number =>
    Math.max(
      0,
      ...statuses.map((status) => status.orderRef.length),
      ...statuses.flatMap((status) => status.documents.map((document) => document.path.length + 2)),
    );
  return {
    update(statuses) {
      if (stopped) return;
      const labelWidth = width(statuses);
      for (const status of statuses) {
        const uploaded = status.documents.filter((document) => document.status === 'uploaded').length;
        let entry = orderBars.get(status.orderRef);
        if (!entry) {
          const order = bars.create(Math.max(1, status.documents.length), 0, { label: '', state: '' });
          const documents = status.documents.map(() => bars.create(2, 0, { label: '', state: '' }));
          entry = { order, documents };
          orderBars.set(status.orderRef, entry);
        }
        entry.order.update(uploaded, {
          label: status.orderRef.padEnd(labelWidth),
          state: describeOrder(status),
        });
        for (const [index, document] of status.documents.entries()) {
          entry.documents[index]?.update(DOCUMENT_STEPS[document.status], {
            label: `  ${document.path}`.padEnd(labelWidth),
            state: describeDocument(document),
          });
        }
      }
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bars.stop();
    },
  };
}

/** A progress display for `stream`: bars on a TTY, plain lines otherwise. */
export function createOrderProgress(options: OrderProgressOptions): OrderProgress {
  const tty = options.tty ?? options.stream.isTTY === true;
  return tty ? ttyProgress(options.stream) : plainProgress(options.stream);
}
