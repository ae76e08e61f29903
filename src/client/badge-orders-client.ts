/**
 * The typed client API for backend code and our own tools: start (or attach to) an order, read its status,
 * repair it, await its result. Input is validated before anything reaches Temporal.
 */
import {
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/common';
import {
  BadgeOrderId,
  BadgeOrderRef,
  BadgeOrderStatus,
  badgeOrderWorkflowId,
  DEFAULT_TASK_QUEUE,
  parseBadgeOrderInput,
  reconcileOrderUpdate,
  replaceDocumentUpdate,
  retryUploadsSignal,
  setDocumentOwnerUpdate,
  statusQuery,
  WORKFLOW_TYPES,
  type BadgeOrderStatusView,
  type DocumentState,
  type ReconcileOrderInput,
  type ReplaceDocumentInput,
  type SetDocumentOwnerInput,
  type ValidBadgeOrderInput,
} from '../contract';
import { SERVICE_FAILURE_TYPES } from '../failure-types';
import { inSpan, tracedClient, type Tracing } from '../tracing';
import type { badgeOrder } from '../workflows/badge-order';
import { listOrderPage, type ListOrdersInput, type OrderPage } from './order-listing';

/** The order refused a `replaceDocument` update; the message says why (unknown path, not failed, no file). */
export class ReplaceDocumentRejectedError extends Error {
  override readonly name = 'ReplaceDocumentRejectedError';
}

/** The order refused a `reconcileOrder` update; the message says why (not awaiting it, invalid answer). */
export class ReconcileOrderRejectedError extends Error {
  override readonly name = 'ReconcileOrderRejectedError';
}

/** The order refused a `setDocumentOwner` update; the message says why (not uploading yet, closed, empty id). */
export class SetDocumentOwnerRejectedError extends Error {
  override readonly name = 'SetDocumentOwnerRejectedError';
}

/**
 * Starting an order again was refused because its last run ended after the platform may have created the
 * order: a new run could place it twice. `orderId` names the platform's order when it is known.
 */
export class OrderMayExistError extends Error {
  override readonly name = 'OrderMayExistError';
  constructor(
    message: string,
    readonly orderId: string | null,
  ) {
    super(message);
  }
}

/** Handle of one badge order workflow. */
export type BadgeOrderHandle = WorkflowHandle<typeof badgeOrder>;

/** What {@link BadgeOrdersClient.startOrder} did. */
export interface StartOrderResult {
  readonly workflowId: string;
  /** The run started now, or the one attached to. */
  readonly runId: string | undefined;
  /** True when an order with this `orderRef` was already running (or had completed) and we attached to it. */
  readonly attached: boolean;
  readonly handle: BadgeOrderHandle;
}

/** Options of {@link BadgeOrdersClient.startOrder}. */
export interface StartOrderOptions {
  /**
   * Memo of the new run (encoded by the payload codec, so encrypted like the input). Only a run started now
   * gets it; an attached run keeps its own. The HTTP API keeps the hash of the order's input here.
   */
  readonly memo?: Readonly<Record<string, unknown>>;
}

export interface BadgeOrdersClientOptions {
  readonly client: Client;
  /** @default badge-orders */
  readonly taskQueue?: string;
  /** The process's tracing (`startTracing`): each start is then the root of its order's trace. @default off */
  readonly tracing?: Tracing;
}

/** Client API of the badge order service. */
export class BadgeOrdersClient {
  private readonly client: Client;
  private readonly taskQueue: string;
  private readonly tracing: Tracing | undefined;

  constructor(options: BadgeOrdersClientOptions) {
    this.client = tracedClient(options.client, options.tracing);
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.tracing = options.tracing;
  }

  /**
   * Starts the order, or attaches to the running one with the same `orderRef`. A failed order may be started
   * again; a completed one is attached to (its result stands). Throws `InvalidOrderInputError` naming fields.
   */
  async startOrder(rawInput: unknown, options: StartOrderOptions = {}): Promise<StartOrderResult> {
    // One span around the look-up and the start: the order's trace begins here.
    return inSpan(this.tracing, 'StartBadgeOrder', () => this.startOrAttach(rawInput, options));
  }

  private async startOrAttach(rawInput: unknown, options: StartOrderOptions): Promise<StartOrderResult> {
    const input = parseBadgeOrderInput(rawInput);
    const workflowId = badgeOrderWorkflowId(input.orderRef);
    // Most orders are new: start at once, refusing whenever any run of this order ref exists. Only then is the
    // last run looked at (one call to the server fewer for every new order, the same decisions for the rest).
    const started = await this.start(input, WorkflowIdReusePolicy.REJECT_DUPLICATE, options);
    if (started) return { workflowId, runId: started.firstExecutionRunId, attached: false, handle: started };
    const last = await this.lastRunAllowingStart(input.orderRef);
    if (last !== undefined) {
      // Running, or completed: its result stands; attach to it.
      return { workflowId, runId: last.runId, attached: true, handle: this.getHandle(input.orderRef) };
    }
    // Only a failed one may run again.
    const handle = await this.start(input, WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY, options);
    if (handle) return { workflowId, runId: handle.firstExecutionRunId, attached: false, handle };
    // Another caller started it meanwhile: attach to that run.
    const description = await this.getHandle(input.orderRef).describe();
    return { workflowId, runId: description.runId, attached: true, handle: this.getHandle(input.orderRef) };
  }

  /** Starts a run of the order; undefined when the id's policies refuse it (a run exists or existed). */
  private async start(
    input: ValidBadgeOrderInput,
    reusePolicy: WorkflowIdReusePolicy,
    options: StartOrderOptions,
  ): Promise<WorkflowHandleWithFirstExecutionRunId<typeof badgeOrder> | undefined> {
    try {
      return await this.client.workflow.start<typeof badgeOrder>(WORKFLOW_TYPES.badgeOrder, {
        taskQueue: this.taskQueue,
        workflowId: badgeOrderWorkflowId(input.orderRef),
        args: [input],
        // A running order answers "already started" and we attach.
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        workflowIdReusePolicy: reusePolicy,
        typedSearchAttributes: [
          { key: BadgeOrderRef, value: input.orderRef },
          { key: BadgeOrderStatus, value: 'Running' },
        ],
        staticSummary: `Badge order ${input.orderRef}`,
        ...(options.memo === undefined ? {} : { memo: { ...options.memo } }),
      });
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return undefined;
      throw error;
    }
  }

  /**
   * Looks at the last run of this order ref: returns it when it is running or completed (to attach to);
   * throws {@link OrderMayExistError} when it ended (failed, cancelled, timed out or terminated) after the
   * platform created, or may have created, the order; returns undefined when a new run may start.
   */
  private async lastRunAllowingStart(orderRef: string): Promise<{ runId: string } | undefined> {
    const handle = this.getHandle(orderRef);
    let description;
    try {
      description = await handle.describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
    if (description.status.name === 'RUNNING' || description.status.name === 'COMPLETED') return description;
    const orderId = description.typedSearchAttributes.get(BadgeOrderId);
    if (orderId !== undefined && orderId !== '') {
      throw new OrderMayExistError(
        `Order ${orderRef} was already created on the platform as order ${orderId} by a run that ended ` +
          `${description.status.name}; starting it again would order twice. Use that order, or pick a new orderRef.`,
        orderId,
      );
    }
    const unknownOutcome =
      (description.status.name === 'FAILED' &&
        (await lastFailureType(handle)) === SERVICE_FAILURE_TYPES.reconciliationDeadlinePassed) ||
      (await endedAwaitingReconciliation(handle));
    if (unknownOutcome) {
      throw new OrderMayExistError(
        `Order ${orderRef} may exist on the platform: its last run ended while its creation's outcome was ` +
          `unknown (Idempotency-Key ${badgeOrderWorkflowId(orderRef)}:create). Check the platform first; ` +
          'start it again under a new orderRef only if it holds no such order.',
        null,
      );
    }
    return undefined;
  }

  /** The handle of an order by its `orderRef` (latest run). */
  getHandle(orderRef: string): BadgeOrderHandle {
    return this.client.workflow.getHandle<typeof badgeOrder>(badgeOrderWorkflowId(orderRef));
  }

  /** One page of orders from visibility (see `order-listing.ts`), newest first. */
  async listOrders(input: ListOrdersInput): Promise<OrderPage> {
    return listOrderPage(this.client, input);
  }

  /** The `status` query. */
  async status(orderRef: string): Promise<BadgeOrderStatusView> {
    return this.getHandle(orderRef).query(statusQuery);
  }

  /** Sends `retryUploads`: every failed document is tried again now. */
  async retryUploads(orderRef: string): Promise<void> {
    await this.getHandle(orderRef).signal(retryUploadsSignal);
  }

  /**
   * Runs the `reconcileOrder` update on an order awaiting reconciliation and returns its status. Throws
   * {@link ReconcileOrderRejectedError} with the workflow's reason when the answer is refused.
   */
  async reconcileOrder(orderRef: string, answer: ReconcileOrderInput): Promise<BadgeOrderStatusView> {
    try {
      return await this.getHandle(orderRef).executeUpdate(reconcileOrderUpdate, { args: [answer] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) {
        throw new ReconcileOrderRejectedError(error.cause?.message ?? error.message, { cause: error });
      }
      const closed = await this.closedStatus(orderRef, error);
      if (closed !== undefined) {
        throw new ReconcileOrderRejectedError(
          `reconcileOrder refused: order ${orderRef} is no longer running (${closed})`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /**
   * Runs the `setDocumentOwner` update: the order's documents belong to this platform user, and its failed
   * documents are sent again with it. Returns the order's status; throws {@link SetDocumentOwnerRejectedError}
   * with the workflow's reason when refused.
   */
  async setDocumentOwner(orderRef: string, correction: SetDocumentOwnerInput): Promise<BadgeOrderStatusView> {
    try {
      return await this.getHandle(orderRef).executeUpdate(setDocumentOwnerUpdate, { args: [correction] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) {
        throw new SetDocumentOwnerRejectedError(error.cause?.message ?? error.message, { cause: error });
      }
      const closed = await this.closedStatus(orderRef, error);
      if (closed !== undefined) {
        throw new SetDocumentOwnerRejectedError(
          `setDocumentOwner refused: order ${orderRef} is no longer running (${closed})`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /**
   * When `error` says the workflow is not found although a run of the order exists, that run has closed:
   * its status (e.g. `COMPLETED`); otherwise undefined.
   */
  private async closedStatus(orderRef: string, error: unknown): Promise<string | undefined> {
    if (!(error instanceof WorkflowNotFoundError)) return undefined;
    try {
      const description = await this.getHandle(orderRef).describe();
      return description.status.name === 'RUNNING' ? undefined : description.status.name;
    } catch {
      return undefined;
    }
  }

  /**
   * Runs the `replaceDocument` update and returns the document's new state. Throws
   * {@link ReplaceDocumentRejectedError} with the workflow's reason when the replacement is refused.
   */
  async replaceDocument(orderRef: string, replacement: ReplaceDocumentInput): Promise<DocumentState> {
    try {
      return await this.getHandle(orderRef).executeUpdate(replaceDocumentUpdate, { args: [replacement] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) {
        throw new ReplaceDocumentRejectedError(error.cause?.message ?? error.message, { cause: error });
      }
      const closed = await this.closedStatus(orderRef, error);
      if (closed !== undefined) {
        throw new ReplaceDocumentRejectedError(
          `replaceDocument refused: order ${orderRef} is no longer running (${closed})`,
          { cause: error },
        );
      }
      throw error;
    }
  }
}

/** The type of the ApplicationFailure a closed run failed with, if any. */
async function lastFailureType(handle: BadgeOrderHandle): Promise<string | undefined> {
  try {
    await handle.result();
    return undefined;
  } catch (error) {
    let current: unknown = error;
    while (current instanceof Error) {
      if (current instanceof ApplicationFailure) return current.type ?? undefined;
      current = current.cause;
    }
    return undefined;
  }
}

/** Whether a closed run ended (cancelled, terminated, …) while its order awaited reconciliation. */
async function endedAwaitingReconciliation(handle: BadgeOrderHandle): Promise<boolean> {
  try {
    return (await handle.query(statusQuery)).reconciliation !== null;
  } catch {
    // No worker to answer for the closed run: the failure type above is all that is known.
    return false;
  }
}
