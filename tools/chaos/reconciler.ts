/**
 * The operator of a chaos run: while the run goes on, it answers every order held in AwaitingReconciliation
 * from the sandbox's ground truth, as a person would after looking at the platform. The sandbox records the
 * `Idempotency-Key` of every order it created (also when it ignores the key), so
 * `listOrders({ idempotencyKey })` says whether the held creation took effect: one order → `{ orderId }`,
 * none → `{ notCreated: true }`, more than one → the platform already holds a duplicate (a violation, and the
 * order is left held: any answer would hide it).
 */
import { BadgeOrderId, BadgeOrderStatus } from '../../src/workflow-contract';
import type { LocalStack } from '../stack';

/** What the reconciler did over the run. */
export interface ReconciliationFigures {
  /** Holds seen (an order can be held more than once: a "not created" answer leads to a new attempt). */
  readonly held: number;
  /** Holds answered `{ orderId }`: the platform had created the order. */
  readonly resolvedCreated: number;
  /** Holds answered `{ notCreated: true }`: the platform had not. */
  readonly resolvedNotCreated: number;
  /** Holds left unanswered because the platform held more than one order for the key. */
  readonly abandoned: number;
}

/** One answered hold, for the per-order report. */
export interface ReconciliationEvent {
  readonly orderRef: string;
  readonly idempotencyKey: string;
  /** `created <id>`, `not created` or `abandoned: …`. */
  readonly answer: string;
}

const pause = (ms: number): Promise<void> => new Promise((resolvePause) => setTimeout(resolvePause, ms));

/** Bound of one order's look: a call to a server that is restarting must not stall the sweep. */
const VISIT_TIMEOUT_MS = 30_000;

/** Sweeps the planned orders for holds until stopped; see the module comment. */
export class ChaosReconciler {
  private readonly events: ReconciliationEvent[] = [];
  /** Holds already handled, by `orderRef` and the time the hold began: each is answered once. */
  private readonly handled = new Set<string>();
  /** Orders whose platform order exists (or whose workflow ended): they can no longer be held. */
  private readonly done = new Set<string>();
  private readonly abandonedRefs = new Set<string>();
  private held = 0;
  private stopped = false;
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly stack: LocalStack,
    private readonly orderRefs: readonly string[],
    private readonly violations: string[],
    private readonly log: (message: string) => void,
  ) {}

  /** Starts sweeping in the background. */
  start(): void {
    this.loop ??= (async () => {
      while (!this.stopped) {
        await this.sweep().catch((error: unknown) => {
          // The Temporal server restarts and workers die during the run: the next sweep tries again.
          if (!this.stopped)
            this.log(`reconciler: sweep failed (${error instanceof Error ? error.message : String(error)})`);
        });
        if (!this.stopped) await pause(250);
      }
    })();
  }

  /** Stops sweeping: aborts the Temporal call under way and resolves once the loop has ended. Safe to call twice. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.loop;
  }

  /** Whether the order was left held on purpose (the platform holds duplicates): it counts as settled. */
  abandoned(orderRef: string): boolean {
    return this.abandonedRefs.has(orderRef);
  }

  /** The answers given to `orderRef`. */
  eventsOf(orderRef: string): ReconciliationEvent[] {
    return this.events.filter((event) => event.orderRef === orderRef);
  }

  figures(): ReconciliationFigures {
    const count = (prefix: string): number =>
      this.events.filter((event) => event.answer.startsWith(prefix)).length;
    return {
      held: this.held,
      resolvedCreated: count('created'),
      resolvedNotCreated: count('not created'),
      abandoned: count('abandoned'),
    };
  }

  /** One pass over the orders that may still be held. */
  async sweep(): Promise<void> {
    for (const orderRef of this.orderRefs) {
      if (this.stopped) return;
      if (this.done.has(orderRef) || this.abandonedRefs.has(orderRef)) continue;
      const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(VISIT_TIMEOUT_MS)]);
      await this.stack.temporal.client.withAbortSignal(signal, () => this.visit(orderRef));
    }
  }

  private async visit(orderRef: string): Promise<void> {
    const orders = this.stack.orders();
    const description = await orders.getHandle(orderRef).describe();
    if (description.status.name !== 'RUNNING' || description.typedSearchAttributes.get(BadgeOrderId)) {
      this.done.add(orderRef);
      return;
    }
    if (description.typedSearchAttributes.get(BadgeOrderStatus) !== 'AwaitingReconciliation') return;
    const status = await orders.status(orderRef);
    const hold = status.reconciliation;
    if (hold === null) return;
    const holdId = `${orderRef}@${hold.since}`;
    if (this.handled.has(holdId)) return;
    this.handled.add(holdId);
    this.held += 1;

    const created = await this.stack.sandbox.control.listOrders({ idempotencyKey: hold.idempotencyKey });
    const record = (answer: string): void => {
      this.events.push({ orderRef, idempotencyKey: hold.idempotencyKey, answer });
      this.log(`reconciler: ${orderRef} held (${hold.reason}); ${answer}`);
    };
    if (created.length > 1) {
      const ids = created.map((order) => order.id).join(', ');
      this.violations.push(
        `${orderRef}: the platform holds ${created.length} orders (${ids}) for Idempotency-Key ${hold.idempotencyKey}`,
      );
      this.abandonedRefs.add(orderRef);
      record(`abandoned: ${created.length} orders (${ids}) for one key`);
      return;
    }
    const first = created[0];
    try {
      await orders.reconcileOrder(orderRef, first ? { orderId: first.id } : { notCreated: true });
    } catch (error) {
      // Not answered (a restart, a lost connection): the next sweep looks at this hold again.
      this.handled.delete(holdId);
      this.held -= 1;
      throw error;
    }
    record(first ? `created ${first.id}` : 'not created');
  }
}
