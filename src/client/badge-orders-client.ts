/**
 * The typed client API for backend code and our own tools: start (or attach to) an order, read its status,
 * repair it, await its result. Input is validated before anything reaches Temporal.
 */
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import {
  BadgeOrderRef,
  BadgeOrderStatus,
  badgeOrderWorkflowId,
  DEFAULT_TASK_QUEUE,
  parseBadgeOrderInput,
  replaceDocumentUpdate,
  retryUploadsSignal,
  statusQuery,
  WORKFLOW_TYPES,
  type BadgeOrderStatusView,
  type DocumentState,
  type ReplaceDocumentInput,
} from '../contract';
import type { badgeOrder } from '../workflows/badge-order';

/** The order refused a `replaceDocument` update; the message says why (unknown path, not failed, no file). */
export class ReplaceDocumentRejectedError extends Error {
  override readonly name = 'ReplaceDocumentRejectedError';
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

export interface BadgeOrdersClientOptions {
  readonly client: Client;
  /** @default badge-orders */
  readonly taskQueue?: string;
}

/** Client API of the badge order service. */
export class BadgeOrdersClient {
  private readonly client: Client;
  private readonly taskQueue: string;

  constructor(options: BadgeOrdersClientOptions) {
    this.client = options.client;
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  }

  /**
   * Starts the order, or attaches to the running one with the same `orderRef`. A failed order may be started
   * again; a completed one is attached to (its result stands). Throws `InvalidOrderInputError` naming fields.
   */
  async startOrder(rawInput: unknown): Promise<StartOrderResult> {
    const input = parseBadgeOrderInput(rawInput);
    const workflowId = badgeOrderWorkflowId(input.orderRef);
    try {
      const handle = await this.client.workflow.start<typeof badgeOrder>(WORKFLOW_TYPES.badgeOrder, {
        taskQueue: this.taskQueue,
        workflowId,
        args: [input],
        // A running order answers "already started" and we attach; only a failed one may run again.
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        typedSearchAttributes: [
          { key: BadgeOrderRef, value: input.orderRef },
          { key: BadgeOrderStatus, value: 'Running' },
        ],
        staticSummary: `Badge order ${input.orderRef}`,
      });
      return { workflowId, runId: handle.firstExecutionRunId, attached: false, handle };
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const handle = this.getHandle(input.orderRef);
      const description = await handle.describe();
      return { workflowId, runId: description.runId, attached: true, handle };
    }
  }

  /** The handle of an order by its `orderRef` (latest run). */
  getHandle(orderRef: string): BadgeOrderHandle {
    return this.client.workflow.getHandle<typeof badgeOrder>(badgeOrderWorkflowId(orderRef));
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
      throw error;
    }
  }
}
