/**
 * The one state object of a badge order run: where the order stands, what the platform has told us, and
 * what the `status` query shows. Plain data and transitions, free of Temporal calls, so that its rules are
 * unit-tested without a server; the workflow publishes each status change (search attribute, details).
 */
import type {
  BadgeOrderPhase,
  BadgeOrderStatusView,
  CreationRefusalView,
  FailedWebhookDelivery,
  ReconcileOrderAnswer,
  ReconciliationView,
  StockAdvice,
  WebhookDeliveriesView,
} from '../contract';
import type { BadgeOrderStatusValue } from '../workflow-contract';
import type { PlatformIdValue } from '../activities/types';
import { DocumentTracker, type TrackedDocument } from './document-tracker';
import type { ResolvedBadgeOrderInput } from '../order-options';

/**
 * A platform id recorded in history (an activity result, a continuation, an input), as the order keeps it: its
 * digits or text. Releases before 0.4.0 recorded numbers; they were safe integers, so `String` gives their
 * digits exactly. Workflow code takes every recorded id through here.
 */
export function idText(id: PlatformIdValue): string {
  return String(id);
}

/**
 * What a run hands to the next when it continues as new: everything the order has learnt, so the next run
 * goes on where this one stopped (the order exists; only documents remain).
 */
export interface OrderContinuation {
  readonly orderId: PlatformIdValue;
  readonly stockId: PlatformIdValue | null;
  readonly stockFallbackReason: string | null;
  /** What the stock lookup advised; absent in continuations written before 0.4.0. */
  readonly stockAdvice?: StockAdvice | null;
  readonly repairDeadline: number | null;
  readonly documentOwner: PlatformIdValue;
  /** Where the owner came from, and whether the platform refused it; absent before 0.4.0. */
  readonly documentOwnerSource?: string;
  readonly documentOwnerRefused?: string | null;
  readonly keysHonoured: boolean;
  readonly documents: readonly TrackedDocument[];
  /** How many runs came before this one. */
  readonly runs: number;
  /**
   * The run's input is the order's resolved input (options filled in), to be taken as it is. Absent in
   * continuations written before 0.2.0, whose input is parsed again.
   */
  readonly inputResolved?: boolean;
  /** The order's webhooks so far; absent before 0.2.0 and for orders without `callbackUrl`. */
  readonly webhooks?: WebhookContinuation;
}

/** What a run hands to the next about its webhooks. */
export interface WebhookContinuation {
  /** Events sent so far (the next one's number). */
  readonly sequence: number;
  /** The last status seen, so a continued run does not announce the status it continued in again. */
  readonly lastStatus: BadgeOrderStatusValue;
  readonly delivered: number;
  /** `attempts` is absent in continuations written before 0.4.0 (they carried an `error` text instead). */
  readonly failed: readonly (Omit<FailedWebhookDelivery, 'attempts'> & { readonly attempts?: number })[];
}

/** Called whenever the `BadgeOrderStatus` value changes, so the workflow can publish it. */
type StatusListener = (status: BadgeOrderStatusValue) => void;

/** A pending reconciliation: what we asked the platform, and the operator's answer once given. */
interface Reconciliation {
  readonly view: ReconciliationView;
  readonly deadline: number;
  answer: ReconcileOrderAnswer | null;
}

/** Where a badge order stands; see the module comment. */
export class OrderState {
  phase: BadgeOrderPhase = 'authenticating';
  /** The platform's order id, its digits as sent; null until the order exists. */
  orderId: string | null = null;
  /** The stock the order is placed with; null once ordering without one. */
  stockId: string | null;
  stockFallbackReason: string | null = null;
  /** What the stock lookup advised (orders since 0.4.0); it never decides what is ordered. */
  stockAdvice: StockAdvice | null = null;
  repairDeadline: number | null = null;
  /** Whose documents these are; settled at sign-in, corrected by an operator's `setDocumentOwner`. */
  documentOwner: { readonly id: string; readonly source: string } | null = null;
  /** What to set, once the platform refused the owner (422 naming `document_owner`). */
  documentOwnerRefused: string | null = null;
  failure: string | null = null;
  readonly documents: DocumentTracker;
  private searchStatus: BadgeOrderStatusValue = 'Running';
  private reconciliation: Reconciliation | null = null;
  /** A creation refused because of a setting, while it waits; `retried` once a retry was asked for. */
  private creationRefusal: { readonly view: CreationRefusalView; retried: boolean } | null = null;
  /** The webhook deliveries for the status view, when the order has a `callbackUrl`. */
  webhooksView: () => WebhookDeliveriesView | null = () => null;

  constructor(
    readonly input: ResolvedBadgeOrderInput,
    workflowId: string,
    private readonly onStatus: StatusListener,
    continued?: OrderContinuation,
  ) {
    const stockId = continued ? continued.stockId : input.stockId;
    this.stockId = stockId === undefined || stockId === null ? null : idText(stockId);
    this.documents = new DocumentTracker(input.documents, workflowId, continued?.documents);
    if (continued) {
      this.orderId = idText(continued.orderId);
      this.stockFallbackReason = continued.stockFallbackReason;
      this.stockAdvice = continued.stockAdvice ?? null;
      this.repairDeadline = continued.repairDeadline;
      this.documentOwner = {
        id: idText(continued.documentOwner),
        source: continued.documentOwnerSource ?? 'recorded',
      };
      this.documentOwnerRefused = continued.documentOwnerRefused ?? null;
      this.phase = 'uploading';
    }
  }

  /** The state to continue as new with; only once the order exists. */
  continuation(session: {
    keysHonoured: boolean;
    runs: number;
    webhooks?: WebhookContinuation;
  }): OrderContinuation {
    if (this.orderId === null) throw new Error('an order continues as new only once it exists');
    return {
      documentOwner: this.documentOwner?.id ?? '',
      ...(this.documentOwner !== null && { documentOwnerSource: this.documentOwner.source }),
      documentOwnerRefused: this.documentOwnerRefused,
      orderId: this.orderId,
      stockId: this.stockId,
      stockFallbackReason: this.stockFallbackReason,
      stockAdvice: this.stockAdvice,
      repairDeadline: this.repairDeadline,
      documents: this.documents.snapshot(),
      ...session,
      inputResolved: true,
    };
  }

  /** Pushes the repair deadline out to at least `until` (never in). */
  extendRepairDeadline(until: number): void {
    if (this.repairDeadline !== null && this.repairDeadline < until) this.repairDeadline = until;
  }

  get status(): BadgeOrderStatusValue {
    return this.searchStatus;
  }

  /** Sets the status and tells the listener when it changed. */
  setStatus(status: BadgeOrderStatusValue): void {
    if (status === this.searchStatus) return;
    this.searchStatus = status;
    this.onStatus(status);
  }

  /** Orders without the requested stock from now on, and says why. */
  fallBackFromStock(reason: string): void {
    this.stockFallbackReason = reason;
    this.stockId = null;
  }

  /**
   * An operator corrected whose documents these are: every failed document is sent again with the new owner,
   * under a new idempotency key (a new owner is a new request), except, with `keepHeld`, one held for a person
   * (the platform may hold it already). Returns how many were queued.
   */
  correctDocumentOwner(id: string, options: { readonly keepHeld: boolean }): number {
    const changed = this.documentOwner === null || String(this.documentOwner.id) !== id;
    this.documentOwner = { id, source: 'operator' };
    this.documentOwnerRefused = null;
    return this.documents.requeueFailed({ newKeys: changed, skipHeld: options.keepHeld });
  }

  /** Why no operator's update applies any more (the order has ended), or null while it runs. */
  endedRefusal(): string | null {
    const ended = this.phase === 'completed' || this.phase === 'failed' || this.phase === 'cancelled';
    return ended ? `the order has ended (${this.searchStatus})` : null;
  }

  /** Why `setDocumentOwner` cannot apply now, or null when it can. */
  ownerCorrectable(): string | null {
    if (this.orderId === null || (this.phase !== 'uploading' && this.phase !== 'awaiting-repair')) {
      return `the order is ${this.phase}; the owner can be corrected once the order exists and until it ends`;
    }
    return null;
  }

  /** The order exists on the platform with this id. */
  orderCreated(orderId: string): void {
    this.orderId = orderId;
    this.reconciliation = null;
  }

  /** Creation was sent but its outcome is unknown: wait for an operator's answer until `deadline`. */
  awaitReconciliation(view: ReconciliationView, deadline: number): void {
    this.reconciliation = { view, deadline, answer: null };
    this.phase = 'awaiting-reconciliation';
    this.setStatus('AwaitingReconciliation');
  }

  /** Whether `reconcileOrder` may be sent now; the reason when not. */
  reconcilable(): string | null {
    if (this.reconciliation === null) {
      return `the order is ${this.phase}, not awaiting reconciliation`;
    }
    if (this.reconciliation.answer !== null) return 'an answer was already given';
    return null;
  }

  /** Takes the operator's answer to the pending reconciliation; a given order id shows at once. */
  answerReconciliation(answer: ReconcileOrderAnswer): void {
    if (this.reconciliation === null) throw new Error('no reconciliation is pending');
    this.reconciliation.answer = answer;
    if ('orderId' in answer) this.orderId = answer.orderId;
  }

  /** The operator's answer, once given. */
  get reconciliationAnswer(): ReconcileOrderAnswer | null {
    return this.reconciliation?.answer ?? null;
  }

  /** The platform refused the creation because of `view.setting`: wait for a retry until `deadline`. */
  awaitCreationRepair(view: CreationRefusalView, deadline: number): void {
    this.creationRefusal = { view, retried: false };
    this.repairDeadline = deadline;
    this.phase = 'awaiting-repair';
    this.setStatus('AwaitingRepair');
  }

  /** Asks a creation waiting for its setting to be sent again; whether one was waiting. */
  retryCreation(): boolean {
    if (this.creationRefusal === null) return false;
    this.creationRefusal.retried = true;
    return true;
  }

  /** Whether a retry was asked for the refused creation. */
  get creationRetried(): boolean {
    return this.creationRefusal?.retried === true;
  }

  /** Leaves reconciliation after a "not created" answer, or a refused creation's wait: creation starts again. */
  resumeCreating(): void {
    this.reconciliation = null;
    this.creationRefusal = null;
    this.repairDeadline = null;
    this.phase = 'creating-order';
    this.setStatus('Running');
  }

  /** The run ended with a failure (or a cancellation). */
  ended(status: 'Failed' | 'Cancelled', failure: string): void {
    this.phase = status === 'Cancelled' ? 'cancelled' : 'failed';
    this.failure = failure;
    this.setStatus(status);
  }

  /** Answer of the `status` query. */
  view(): BadgeOrderStatusView {
    const webhooks = this.webhooksView();
    return {
      orderRef: this.input.orderRef,
      phase: this.phase,
      searchStatus: this.searchStatus,
      orderId: this.orderId,
      stockFallback: this.stockFallbackReason !== null,
      stockFallbackReason: this.stockFallbackReason,
      stockAdvice: this.stockAdvice,
      documentOwner: this.documentOwner && { ...this.documentOwner, refused: this.documentOwnerRefused },
      documents: this.documents.view(),
      repairDeadline: isoOrNull(this.repairDeadline),
      reconciliation: this.reconciliation?.view ?? null,
      reconciliationDeadline: isoOrNull(this.reconciliation?.deadline ?? null),
      creationRefusal: this.creationRefusal?.view ?? null,
      failure: this.failure,
      options: this.input.options,
      ...(webhooks === null ? {} : { webhooks }),
    };
  }
}

/** An ISO time, or null; a time past what `Date` can show is shown as null rather than throwing. */
function isoOrNull(epochMs: number | null): string | null {
  if (epochMs === null) return null;
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
