/**
 * The order's webhooks (docs/webhooks.md): when the order enters `AwaitingRepair`, `AwaitingReconciliation`,
 * `Completed`, `Failed` or `Cancelled`, an event goes to its `callbackUrl` through the `deliverWebhook`
 * activity, in the background: the order goes on at once and its status never depends on the receiver. A
 * delivery has bounded retries; one that finally fails is recorded and shown in the `status` query. The run
 * waits for deliveries still under way only before it ends or continues as new, so none is lost.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { FailedWebhookDelivery, WebhookDeliveriesView, WebhookEvent } from '../contract';
import { WEBHOOK_EVENT_TYPES, type BadgeOrderStatusValue } from '../workflow-contract';
import { activityAttempts } from './failures';
import type { OrderState, WebhookContinuation } from './order-state';
import { nonCancellable, type BadgeOrderActivities } from './steps';

/** At most this many failed deliveries are kept for the status query (newest last). */
const MAX_FAILED_SHOWN = 20;

const delivery = proxyActivities<BadgeOrderActivities>({
  startToCloseTimeout: '30 seconds',
  // About four minutes of retries at most: a receiver down for longer misses the event (visible in status).
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 8,
  },
});

/** Sends an order's webhooks; does nothing for an order without `callbackUrl`. */
export class OrderWebhooks {
  private sequence: number;
  private lastStatus: BadgeOrderStatusValue;
  private delivered: number;
  private readonly failed: FailedWebhookDelivery[];
  private readonly inFlight = new Set<Promise<void>>();
  /** The failure code to name in an `order.failed` event. */
  failureType: string | null = null;

  constructor(
    private readonly target: { readonly callbackUrl?: string; readonly clientId?: string },
    continued?: WebhookContinuation,
  ) {
    this.sequence = continued?.sequence ?? 0;
    this.lastStatus = continued?.lastStatus ?? 'Running';
    this.delivered = continued?.delivered ?? 0;
    // The error text of a continuation from before 0.4.0 is not carried on.
    this.failed = (continued?.failed ?? []).map(({ id, type, attempts }) => ({
      id,
      type,
      attempts: attempts ?? 1,
    }));
  }

  /** Called on every status change; starts a delivery when the new status is announced. */
  statusChanged(status: BadgeOrderStatusValue, state: OrderState): void {
    const previous = this.lastStatus;
    this.lastStatus = status;
    const callbackUrl = this.target.callbackUrl;
    if (callbackUrl === undefined || status === previous || status === 'Running') return;
    this.sequence += 1;
    const event = this.event(status, state);
    const sent = nonCancellable(() =>
      delivery.deliverWebhook({
        callbackUrl,
        ...(this.target.clientId === undefined ? {} : { clientId: this.target.clientId }),
        event,
      }),
    ).then(
      () => {
        this.delivered += 1;
      },
      (error: unknown) => {
        // Only the count: the receiver's answer or error would tell whoever placed the order what is behind
        // the URL. Operators find the messages in the activity's failures in history.
        this.failed.push({ id: event.id, type: event.type, attempts: activityAttempts(error) });
        this.failed.splice(0, Math.max(0, this.failed.length - MAX_FAILED_SHOWN));
      },
    );
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }

  /** True while a delivery is in flight: without one there is nothing to await (each await costs a promise). */
  get delivering(): boolean {
    return this.inFlight.size > 0;
  }

  /** Resolves once every delivery started so far has ended, one way or the other. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** For the `status` query; null for an order without `callbackUrl`. */
  view(): WebhookDeliveriesView | null {
    if (this.target.callbackUrl === undefined) return null;
    return { delivered: this.delivered, pending: this.inFlight.size, failed: [...this.failed] };
  }

  /** For continue-as-new (after {@link settled}). */
  continuation(): WebhookContinuation {
    return {
      sequence: this.sequence,
      lastStatus: this.lastStatus,
      delivered: this.delivered,
      failed: [...this.failed],
    };
  }

  private event(status: BadgeOrderStatusValue, state: OrderState): WebhookEvent {
    const type = WEBHOOK_EVENT_TYPES[status as keyof typeof WEBHOOK_EVENT_TYPES];
    const view = state.view();
    const count = (wanted: string): number =>
      view.documents.filter((document) => document.status === wanted).length;
    return {
      // The same for every delivery of this event, and unique across the order's runs and restarts.
      id: `evt_${workflowInfo().firstExecutionRunId}_${this.sequence}`,
      type,
      orderRef: view.orderRef,
      occurredAt: new Date(Date.now()).toISOString(),
      status,
      orderId: view.orderId,
      documents: { total: view.documents.length, uploaded: count('uploaded'), failed: count('failed') },
      failureType: status === 'Failed' ? this.failureType : null,
      repairDeadline: status === 'AwaitingRepair' ? view.repairDeadline : null,
      reconciliationDeadline: status === 'AwaitingReconciliation' ? view.reconciliationDeadline : null,
    };
  }
}
