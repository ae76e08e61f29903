/**
 * The typed client API for backend code and our own tools: start (or attach to) an order, read its status,
 * repair it, await its result. Input is validated before anything reaches Temporal.
 */
import {
  ApplicationFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import {
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type UpdateDefinition,
} from '@temporalio/common';
import {
  creationIdempotencyKey,
  BadgeOrderClient,
  BadgeOrderId,
  BadgeOrderRef,
  BadgeOrderStatus,
  WORKFLOW_TYPES,
} from '../workflow-contract';
import {
  badgeOrderWorkflowId,
  DEFAULT_TASK_QUEUE,
  parseBadgeOrderInput,
  type BadgeOrderStatusView,
  type BadgeOrderWorkflow,
  type DocumentState,
  type ReconcileDocumentInput,
  type ReconcileOrderInput,
  type ReplaceDocumentInput,
  type SetDocumentOwnerInput,
  type ValidBadgeOrderInput,
} from '../contract';
import type { FailureCode } from '../failure-types';
import {
  reconcileDocumentUpdate,
  reconcileOrderUpdate,
  replaceDocumentUpdate,
  retryUploadsSignal,
  setDocumentOwnerUpdate,
  statusQuery,
} from '../workflow-messages';
import { inSpan, tracedClient, type ClientTracing } from '../tracing/client';
import { badgeOrdersQuery } from '../temporal/visibility';
import { listOrderPage, type ListOrdersInput, type OrderPage } from './order-listing';

/** The order refused a `replaceDocument` update; the message says why (unknown path, not failed, no file). */
export class ReplaceDocumentRejectedError extends Error {
  override readonly name = 'ReplaceDocumentRejectedError';
}

/** The order refused a `reconcileOrder` update; the message says why (not awaiting it, invalid answer). */
export class ReconcileOrderRejectedError extends Error {
  override readonly name = 'ReconcileOrderRejectedError';
}

/** The order refused a `reconcileDocument` update; the message says why (no such document, not held). */
export class ReconcileDocumentRejectedError extends Error {
  override readonly name = 'ReconcileDocumentRejectedError';
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
export type BadgeOrderHandle = WorkflowHandle<BadgeOrderWorkflow>;

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
  readonly tracing?: ClientTracing;
}

/** Client API of the badge order service. */
export class BadgeOrdersClient {
  private readonly client: Client;
  private readonly taskQueue: string;
  private readonly tracing: ClientTracing | undefined;

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
    const workflowId = await this.workflowIdOf({ orderRef: input.orderRef, clientId: input.clientId });
    // Most orders are new: start at once, refusing whenever any run of this order ref exists. Only then is the
    // last run looked at (one call to the server fewer for every new order, the same decisions for the rest).
    const started = await this.start(input, workflowId, WorkflowIdReusePolicy.REJECT_DUPLICATE, options);
    if (started) return { workflowId, runId: started.firstExecutionRunId, attached: false, handle: started };
    const last = await this.lastRunAllowingStart(input.orderRef, this.handle(workflowId));
    if (last !== undefined) {
      // Running, or completed: its result stands; attach to it.
      return { workflowId, runId: last.runId, attached: true, handle: this.handle(workflowId) };
    }
    // Only a failed one may run again.
    const restarted = await this.start(
      input,
      workflowId,
      WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      options,
    );
    if (restarted)
      return { workflowId, runId: restarted.firstExecutionRunId, attached: false, handle: restarted };
    // Another caller started it meanwhile: attach to that run.
    const description = await this.handle(workflowId).describe();
    return { workflowId, runId: description.runId, attached: true, handle: this.handle(workflowId) };
  }

  /**
   * The workflow id of an order: {@link badgeOrderWorkflowId} of its ref and client, or, for a client's order
   * placed before orders had client ids of their own (0.3.0 and earlier: `badge-order-<orderRef>`, the client
   * only in its input), that id while the order is the client's. So an order placed before the upgrade is found,
   * attached to and repaired by its client, never placed a second time. Costs one look-up per client order;
   * remove it once no such order is left within the namespace's retention.
   */
  async workflowIdOf(order: OrderKey): Promise<string> {
    const own = badgeOrderWorkflowId(order.orderRef, order.clientId);
    if (order.clientId === undefined) return own;
    const earlier = badgeOrderWorkflowId(order.orderRef);
    const owner = await this.ownerOf(this.handle(earlier));
    return owner === order.clientId ? earlier : own;
  }

  /** The client of the order's latest run, from its search attribute or else its input; null for none. */
  private async ownerOf(handle: BadgeOrderHandle): Promise<string | null | undefined> {
    const description = await describeIfFound(handle);
    if (description === undefined) return undefined;
    const recorded = description.typedSearchAttributes.get(BadgeOrderClient);
    if (recorded !== undefined) return recorded;
    // Runs started before the search attribute: the client is in the input (decoded by the payload codec).
    const history = await this.client.workflowService.getWorkflowExecutionHistory({
      namespace: this.client.options.namespace,
      execution: { workflowId: description.workflowId, runId: description.runId },
      maximumPageSize: 1,
    });
    const payloads = history.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
    if (!payloads || payloads.length === 0) return null;
    const input = await decodeFromPayloadsAtIndex<{ clientId?: unknown }>(
      this.client.options.loadedDataConverter,
      0,
      payloads,
    );
    return typeof input?.clientId === 'string' ? input.clientId : null;
  }

  /**
   * The handle of an existing order (its latest run) with its description, or undefined when there is none: for
   * callers that must tell "not found" before acting, as the HTTP API does.
   */
  async findOrder(
    order: string | OrderKey,
  ): Promise<{ handle: BadgeOrderHandle; description: WorkflowExecutionDescription } | undefined> {
    const handle = await this.handleOf(order);
    const description = await describeIfFound(handle);
    return description && { handle, description };
  }

  /** Starts a run of the order; undefined when the id's policies refuse it (a run exists or existed). */
  private async start(
    input: ValidBadgeOrderInput,
    workflowId: string,
    reusePolicy: WorkflowIdReusePolicy,
    options: StartOrderOptions,
  ): Promise<WorkflowHandleWithFirstExecutionRunId<BadgeOrderWorkflow> | undefined> {
    try {
      return await this.client.workflow.start<BadgeOrderWorkflow>(WORKFLOW_TYPES.badgeOrder, {
        taskQueue: this.taskQueue,
        workflowId,
        args: [input],
        // A running order answers "already started" and we attach.
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
        workflowIdReusePolicy: reusePolicy,
        typedSearchAttributes: [
          { key: BadgeOrderRef, value: input.orderRef },
          { key: BadgeOrderStatus, value: 'Running' },
          // The owner, from the input the caller may give (the HTTP API takes it from the credentials).
          ...(input.clientId === undefined ? [] : [{ key: BadgeOrderClient, value: input.clientId }]),
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
  private async lastRunAllowingStart(
    orderRef: string,
    handle: BadgeOrderHandle,
  ): Promise<{ runId: string } | undefined> {
    const description = await describeIfFound(handle);
    if (description === undefined) return undefined;
    if (description.status.name === 'RUNNING' || description.status.name === 'COMPLETED') return description;
    const orderId = description.typedSearchAttributes.get(BadgeOrderId);
    if (orderId !== undefined && orderId !== '') {
      throw new OrderMayExistError(
        `Order ${orderRef} was already created on the platform as order ${orderId} by a run that ended ` +
          `${description.status.name}; starting it again would order twice. Use that order, or pick a new orderRef.`,
        orderId,
      );
    }
    const unknown = await unknownCreation(handle, description.status.name);
    if (unknown !== null) {
      throw new OrderMayExistError(
        `Order ${orderRef} may exist on the platform: its last run ended ${description.status.name} ` +
          (unknown.answered
            ? "while its creation's outcome was unknown"
            : "and no worker answered whether its creation's outcome was known (start one and try again)") +
          ` (Idempotency-Key ${unknown.keys.join(' or ')}). Check the platform first; ` +
          'start it again under a new orderRef only if it holds no such order.',
        null,
      );
    }
    return undefined;
  }

  /**
   * The handle of an order by its `orderRef` and client (latest run). An order its client placed before 0.4.0
   * has another id: {@link findOrder} and the methods below find it too.
   */
  getHandle(order: string | OrderKey): BadgeOrderHandle {
    const { orderRef, clientId } = keyOf(order);
    return this.handle(badgeOrderWorkflowId(orderRef, clientId));
  }

  private handle(workflowId: string, runId?: string): BadgeOrderHandle {
    return this.client.workflow.getHandle<BadgeOrderWorkflow>(workflowId, runId);
  }

  /** The handle of an order whether or not it exists, found as {@link findOrder} finds it. */
  private async handleOf(order: string | OrderKey): Promise<BadgeOrderHandle> {
    return this.handle(await this.workflowIdOf(keyOf(order)));
  }

  /** One page of orders from visibility (see `order-listing.ts`), newest first. */
  async listOrders(input: ListOrdersInput): Promise<OrderPage> {
    return listOrderPage(this.client, input);
  }

  /**
   * The documents every running order names (each document's source as the order input named it, and its
   * replacement), from each order's `status` query: what must not be collected from the document store. Throws
   * when an order does not answer within `queryTimeoutMs`: an answer that leaves out an order would be unsafe.
   */
  async documentsOfRunningOrders(options: { readonly queryTimeoutMs: number }): Promise<Set<string>> {
    const sources = new Set<string>();
    for await (const execution of this.client.workflow.list({
      query: badgeOrdersQuery({ openOnly: true }),
    })) {
      const handle = this.handle(execution.workflowId, execution.runId);
      let view: BadgeOrderStatusView;
      try {
        view = await this.client.connection.withDeadline(Date.now() + options.queryTimeoutMs, () =>
          handle.query(statusQuery),
        );
      } catch (error) {
        // Closed since it was listed: it needs nothing any more.
        if (error instanceof WorkflowNotFoundError) continue;
        if ((await handle.describe()).status.name !== 'RUNNING') continue;
        throw error;
      }
      for (const document of view.documents) sources.add(document.path).add(document.sourcePath);
    }
    return sources;
  }

  /** The `status` query. */
  async status(order: string | OrderKey): Promise<BadgeOrderStatusView> {
    return (await this.handleOf(order)).query(statusQuery);
  }

  /**
   * Runs the `reconcileDocument` update on a held document (one the platform may have stored) and returns the
   * order's status. Throws {@link ReconcileDocumentRejectedError} with the workflow's reason when refused.
   */
  async reconcileDocument(
    order: string | OrderKey,
    answer: ReconcileDocumentInput,
  ): Promise<BadgeOrderStatusView> {
    return this.update(order, reconcileDocumentUpdate, answer, ReconcileDocumentRejectedError);
  }

  /** Sends `retryUploads`: every failed document is tried again now. */
  async retryUploads(order: string | OrderKey): Promise<void> {
    await (await this.handleOf(order)).signal(retryUploadsSignal);
  }

  /**
   * Runs the `reconcileOrder` update on an order awaiting reconciliation and returns its status. Throws
   * {@link ReconcileOrderRejectedError} with the workflow's reason when the answer is refused.
   */
  async reconcileOrder(order: string | OrderKey, answer: ReconcileOrderInput): Promise<BadgeOrderStatusView> {
    return this.update(order, reconcileOrderUpdate, answer, ReconcileOrderRejectedError);
  }

  /**
   * Runs the `setDocumentOwner` update: the order's documents belong to this platform user, and its failed
   * documents are sent again with it. Returns the order's status; throws {@link SetDocumentOwnerRejectedError}
   * with the workflow's reason when refused.
   */
  async setDocumentOwner(
    order: string | OrderKey,
    correction: SetDocumentOwnerInput,
  ): Promise<BadgeOrderStatusView> {
    return this.update(order, setDocumentOwnerUpdate, correction, SetDocumentOwnerRejectedError);
  }

  /**
   * Runs the `replaceDocument` update and returns the document's new state. Throws
   * {@link ReplaceDocumentRejectedError} with the workflow's reason when the replacement is refused.
   */
  async replaceDocument(order: string | OrderKey, replacement: ReplaceDocumentInput): Promise<DocumentState> {
    return this.update(order, replaceDocumentUpdate, replacement, ReplaceDocumentRejectedError);
  }

  /** Runs an update; `Rejected` carries the workflow's reason when it refuses, or says the order has closed. */
  private async update<Ret, Arg>(
    order: string | OrderKey,
    definition: UpdateDefinition<Ret, [Arg]>,
    arg: Arg,
    Rejected: new (message: string, options: ErrorOptions) => Error,
  ): Promise<Ret> {
    const handle = await this.handleOf(order);
    try {
      return await handle.executeUpdate(definition, { args: [arg] });
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError) {
        throw new Rejected(error.cause?.message ?? error.message, { cause: error });
      }
      const closed = await closedStatus(handle, error);
      if (closed !== undefined) {
        throw new Rejected(
          `${definition.name} refused: order ${keyOf(order).orderRef} is no longer running (${closed})`,
          { cause: error },
        );
      }
      throw error;
    }
  }
}

/** The description of the order's run, or undefined when there is none. */
async function describeIfFound(handle: BadgeOrderHandle): Promise<WorkflowExecutionDescription | undefined> {
  try {
    return await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** How long a closed run's `status` query may take (a worker replays the run to answer it). */
const CLOSED_RUN_QUERY_TIMEOUT_MS = 10_000;

/** The application failure a closed run failed with, if any. */
async function lastFailure(handle: BadgeOrderHandle): Promise<ApplicationFailure | undefined> {
  try {
    await handle.result();
    return undefined;
  } catch (error) {
    let current: unknown = error;
    while (current instanceof Error) {
      if (current instanceof ApplicationFailure) return current;
      current = current.cause;
    }
    return undefined;
  }
}

/**
 * Whether a closed run ended while its order's creation had an unknown outcome, and which `Idempotency-Key`s to
 * ask the platform about; null when the outcome was known. A failed run says so by its failure
 * (`RECONCILIATION_DEADLINE_PASSED`); a cancelled, terminated or timed-out one only through its `status` query,
 * which a worker answers by replaying it. No answer is no knowledge: such a run counts as unknown (`answered`
 * false), never as safe to start again.
 */
async function unknownCreation(
  handle: BadgeOrderHandle,
  status: string,
): Promise<{ readonly keys: readonly string[]; readonly answered: boolean } | null> {
  const either = [true, false].map((withStock) => creationIdempotencyKey(handle.workflowId, withStock));
  if (status === 'FAILED') {
    const failure = await lastFailure(handle);
    if (failure?.type === ('RECONCILIATION_DEADLINE_PASSED' satisfies FailureCode)) {
      const key = (failure.details?.[0] as { idempotencyKey?: unknown } | undefined)?.idempotencyKey;
      return { keys: typeof key === 'string' ? [key] : either, answered: true };
    }
  }
  try {
    const { reconciliation } = await handle.client.connection.withDeadline(
      Date.now() + CLOSED_RUN_QUERY_TIMEOUT_MS,
      () => handle.query(statusQuery),
    );
    return reconciliation === null ? null : { keys: [reconciliation.idempotencyKey], answered: true };
  } catch {
    // A failed run's failure says all that matters (above); any other run may have been waiting.
    return status === 'FAILED' ? null : { keys: either, answered: false };
  }
}

/**
 * When `error` says the workflow is not found although a run of the order exists, that run has closed: its status
 * (e.g. `COMPLETED`); otherwise undefined.
 */
async function closedStatus(handle: BadgeOrderHandle, error: unknown): Promise<string | undefined> {
  if (!(error instanceof WorkflowNotFoundError)) return undefined;
  const status = (await describeIfFound(handle).catch(() => undefined))?.status.name;
  return status === 'RUNNING' ? undefined : status;
}

/** An order's address: its `orderRef`, and the client that owns it (none for orders placed without one). */
export interface OrderKey {
  readonly orderRef: string;
  readonly clientId?: string;
}

const keyOf = (order: string | OrderKey): OrderKey =>
  typeof order === 'string' ? { orderRef: order } : order;
