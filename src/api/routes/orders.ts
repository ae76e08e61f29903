/**
 * The orders routes: place (or attach to) an order, read it, list orders, and the operator actions. Every
 * call to Temporal goes through the {@link BadgeOrdersClient}; nothing is started before the caller, the path
 * and the body have passed every check.
 *
 * Orders belong to clients: an order placed here is its caller's (its client id, never taken from the body),
 * and a caller reaches only its own orders, by their `orderRef`; another client's is not found (404, as an order
 * that does not exist). Operators (scope `ops`) reach every order, naming its client with `?clientId=`. The
 * documents an order names are its caller's too: references it stored itself, and paths in its own folder.
 */
import { WorkflowFailedError, type WorkflowExecutionDescription } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  OrderMayExistError,
  ReconcileDocumentRejectedError,
  ReconcileOrderRejectedError,
  ReplaceDocumentRejectedError,
  SetDocumentOwnerRejectedError,
  type BadgeOrderHandle,
  type BadgeOrdersClient,
  type OrderKey,
} from '../../client/badge-orders-client';
import { runStatusName, type ListOrdersInput } from '../../client/order-listing';
import {
  badgeOrderInputSchema,
  clientDocumentsFolder,
  isDocumentReference,
  isInsideFolder,
  issueFields,
  type BadgeOrderResult,
  type BadgeOrderStatusView,
  type ValidBadgeOrderInput,
} from '../../contract';
import { NO_CLIENT, ORDER_OPERATIONS, SET_BY_THE_API, type Operation } from '../../http-contract';
import {
  BADGE_ORDER_STATUSES,
  BadgeOrderClient,
  BadgeOrderId,
  BadgeOrderStatus,
} from '../../workflow-contract';
import { statusQuery } from '../../workflow-messages';
import type { DocumentStore } from '../../documents';
import { documentStoreUnavailable } from '../documents-plugin';
import { principalOf } from '../auth';
import { callbackUrlProblem, type CallbackUrlPolicy } from '../../webhook-destination';
import type { ApiLimits, ApiScope } from '../config';
import { inSpan, type Tracing } from '../../tracing';
import { INPUT_HASH_MEMO_KEY, orderInputHash, orderInputHashBefore040 } from '../input-hash';
import { ApiProblem, invalidInput } from '../problem';
import { isInvalidArgument, withinTime } from '../temporal-errors';

/** Page size of `GET /v1/orders` when none is asked for. */
const DEFAULT_PAGE_SIZE = 20;

/** Why a reference may not be named: the caller did not store it (another client's reads as unknown). */
const NOT_STORED = 'is not a document this client stored: upload it with POST /v1/documents first';

interface OrdersRoutesOptions {
  readonly orders: BadgeOrdersClient;
  readonly limits: Pick<ApiLimits, 'operationTimeoutMs' | 'queryTimeoutMs' | 'orderOptions'>;
  /** Where the workers deliver webhooks: a `callbackUrl` they would refuse is refused at once. */
  readonly webhooks: CallbackUrlPolicy;
  /** Spans for each request when tracing is on (the orders client should carry the same tracing). */
  readonly tracing?: Tracing;
  /** The document store, to check that each reference an order names is its caller's. None: no references. */
  readonly documents?: DocumentStore;
}

/** What a listing is filtered by: a token belongs to exactly one filter. */
type ListingFilter = Pick<ListOrdersInput, 'status' | 'clientId'>;

/**
 * The page token of `GET /v1/orders`: opaque to callers, it wraps Temporal's token together with the filter it
 * belongs to (status and client), so a token is refused (400) with another filter, or by another client, instead
 * of being passed on to give odd pages.
 */
function encodePageToken(temporalToken: Uint8Array, filter: ListingFilter): string {
  const json = JSON.stringify({
    v: 1,
    status: filter.status ?? null,
    // Absent: an operator's listing of every order (every listing of a client has a client filter).
    ...(filter.clientId === undefined ? {} : { client: filter.clientId }),
    t: Buffer.from(temporalToken).toString('base64url'),
  });
  return Buffer.from(json, 'utf8').toString('base64url');
}

/**
 * Temporal's page token from a caller's token, or null when it is not one of ours for this filter: exactly the
 * token {@link encodePageToken} writes for it.
 */
function decodePageToken(token: string, filter: ListingFilter): Uint8Array | null {
  let wrapped: unknown;
  try {
    wrapped = (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { t?: unknown } | null)?.t;
  } catch {
    return null;
  }
  if (typeof wrapped !== 'string') return null;
  const temporalToken = Uint8Array.from(Buffer.from(wrapped, 'base64url'));
  return encodePageToken(temporalToken, filter) === token ? temporalToken : null;
}

/**
 * A 400 naming each invalid field as the contract names it (`documents.0.path`), under `where` (`body`, `query`,
 * `path`) so the caller sees where the field was.
 */
const invalidFields = (where: string, errors: readonly { field: string; message: string }[]): ApiProblem =>
  invalidInput(
    errors.map(({ field, message }) => ({ field: `${where}.${field}`, message })),
    where === 'body' ? 'body' : `request ${where}`,
  );

/**
 * The options of an order an API client may not set, as invalid fields: any `API_ORDER_OPTIONS` does not name,
 * and any above the ceiling it gives. They decide how much of the workers every client shares one order takes.
 */
function refusedOptions(
  options: Readonly<Record<string, number | undefined>> | undefined,
  allowed: ApiLimits['orderOptions'],
): { field: string; message: string }[] {
  return Object.entries(options ?? {}).flatMap(([name, value]) => {
    const ceiling = allowed[name];
    const field = `options.${name}`;
    if (value === undefined) return [];
    if (ceiling === undefined) {
      return [{ field, message: 'is not an option API clients may set here (API_ORDER_OPTIONS)' }];
    }
    return ceiling !== null && value > ceiling
      ? [{ field, message: `must be at most ${ceiling} for API clients here (API_ORDER_OPTIONS)` }]
      : [];
  });
}

/** Parses one part of a request with a zod schema; a 400 names each invalid field. */
function parsePart<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw invalidFields(where, issueFields(parsed.error));
  return parsed.data;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const notFound = (orderRef: string): ApiProblem =>
  new ApiProblem({ status: 404, code: 'order-not-found', detail: `There is no order ${orderRef}` });

const notRunning = (orderRef: string, status: string): ApiProblem =>
  new ApiProblem({
    status: 409,
    code: 'order-closed',
    detail: `Order ${orderRef} is no longer running (${status})`,
  });

/** The failure of a closed run, as its result says. */
async function closedOutcome(handle: BadgeOrderHandle, description: WorkflowExecutionDescription) {
  // The run described, not the latest: a new run may have started since.
  const run = handle.client.getHandle(description.workflowId, description.runId);
  try {
    const result = (await run.result()) as BadgeOrderResult;
    // Runs completed before 0.4.0 returned the ids as numbers: the API answers strings, whatever the release.
    const stockId = result.stockId === null ? null : String(result.stockId);
    return { result: { ...result, orderId: String(result.orderId), stockId }, failure: null };
  } catch (error) {
    if (error instanceof WorkflowFailedError)
      return { result: null, failure: error.cause?.message ?? error.message };
    throw error;
  }
}

/**
 * The order a request names: the caller's own `orderRef`, or, for an operator, the one of the client the query
 * names (`-`: an order placed without a client). Null when the caller names another client's order without the
 * `ops` scope: answered as not found.
 */
function orderKeyOf(request: FastifyRequest, orderRef: string, named: string | undefined): OrderKey | null {
  const principal = principalOf(request);
  if (named === undefined || named === principal.clientId) return { orderRef, clientId: principal.clientId };
  if (!principal.scopes.includes('ops')) return null;
  return named === NO_CLIENT ? { orderRef } : { orderRef, clientId: named };
}

/** An answer of an operation: one of its statuses, with the body its schema states for it. */
type Answer<Op extends Operation> = {
  [Status in Extract<keyof Op['responses'], number>]: {
    readonly status: Status;
    readonly body: Op['responses'][Status] extends {
      schema: readonly [string, infer Schema extends z.ZodType];
    }
      ? z.output<Schema>
      : never;
    readonly location?: string;
  };
}[Extract<keyof Op['responses'], number>];

/** The orders routes; see the module comment. */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify's plugin type is async
export const ordersRoutes: FastifyPluginAsync<OrdersRoutesOptions> = async (app, options) => {
  const { orders, limits } = options;
  const timed = <T>(what: string, work: Promise<T>, late?: () => ApiProblem): Promise<T> =>
    withinTime(limits.operationTimeoutMs, what, work, late);

  /** The order's `status` query, within the query time limit. */
  const queryStatus = (handle: BadgeOrderHandle): Promise<BadgeOrderStatusView> =>
    handle.client.connection.withDeadline(Date.now() + limits.queryTimeoutMs, () =>
      handle.query(statusQuery),
    );

  /** The order a request names, and its description; 404 when it is not there for this caller. */
  const find = async (request: FastifyRequest, orderRef: string, clientId: string | undefined) => {
    const key = orderKeyOf(request, orderRef, clientId);
    if (key === null) throw notFound(orderRef);
    try {
      const found = await timed(`Reading order ${orderRef}`, orders.findOrder(key));
      if (found === undefined) throw notFound(orderRef);
      return { key, ...found };
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw notFound(orderRef);
      throw error;
    }
  };

  /**
   * The content type `clientId` stored the reference `ref` with, marking it used now (see the collector);
   * undefined when it did not store it itself (another client's is refused like an unknown one: NOT_STORED). A
   * store that does not answer within the operation time limit is unavailable (503): the request is not held.
   */
  const claimedContentType = async (ref: string, clientId: string): Promise<string | undefined> => {
    const claim = options.documents?.claim(ref, clientId);
    if (claim === undefined) return undefined;
    return (await timed(`Checking document ${ref}`, claim, documentStoreUnavailable))?.contentType;
  };

  /**
   * Refuses, as invalid fields, every document reference the caller did not store itself; answers the input
   * with each reference's content type, where the caller gave none, the one the caller stored it with (never
   * another client's, which the worker would otherwise take from the stored object).
   */
  const claimDocuments = async (
    input: ValidBadgeOrderInput,
    clientId: string,
  ): Promise<ValidBadgeOrderInput> => {
    const refused: { field: string; message: string }[] = [];
    const documents = [];
    for (const [index, document] of input.documents.entries()) {
      if (document.ref === undefined) {
        documents.push(document);
        continue;
      }
      const contentType = await claimedContentType(document.ref, clientId);
      if (contentType === undefined) refused.push({ field: `documents.${index}.ref`, message: NOT_STORED });
      documents.push({ ...document, contentType: document.contentType ?? contentType });
    }
    if (refused.length > 0) throw invalidFields('body', refused);
    return { ...input, documents };
  };

  /**
   * Runs an operator's update of an order: 200 with its answer, 409 with `code` when the order refused it (its
   * reason as the detail), 404 when the order is gone.
   */
  const update = async <T>(
    orderRef: string,
    what: string,
    work: Promise<T>,
    refusal: { readonly Rejected: new (message: string) => Error; readonly code: string },
  ): Promise<{ status: 200; body: T }> => {
    try {
      return { status: 200, body: await timed(what, work) };
    } catch (error) {
      if (error instanceof refusal.Rejected) {
        throw new ApiProblem({ status: 409, code: refusal.code, detail: error.message });
      }
      if (error instanceof WorkflowNotFoundError) throw notFound(orderRef);
      throw error;
    }
  };

  const route = <Op extends Operation & { readonly scope: ApiScope }>(
    operation: Op,
    handler: (request: FastifyRequest) => Promise<Answer<Op>>,
  ): void => {
    app.route({
      method: operation.method,
      // fastify's form of the OpenAPI path: `{orderRef}` → `:orderRef`.
      url: operation.path.replace(/\{(\w+)\}/g, ':$1'),
      config: { scope: operation.scope },
      handler: async (request, reply) => {
        // One span per request, named by its route template (never the order's reference): the order's
        // trace then starts at the API, with the client's start and the workflow under it.
        const answer = await inSpan(options.tracing, `${operation.method} ${operation.path}`, () =>
          handler(request),
        );
        const { status, body, location }: { status: number; body: unknown; location?: string } = answer;
        if (location !== undefined) void reply.header('location', location);
        return reply.code(status).send(body);
      },
    });
  };

  route(ORDER_OPERATIONS.putOrder, async (request) => {
    const { orderRef } = parsePart(ORDER_OPERATIONS.putOrder.params, request.params, 'path');
    const body = request.body;
    const fields = isPlainObject(body) ? body : {};
    if (fields.orderRef !== undefined && fields.orderRef !== orderRef) {
      throw invalidFields('body', [
        { field: 'orderRef', message: 'must be the same as the orderRef in the path' },
      ]);
    }
    const setByTheApi = SET_BY_THE_API.find((field) => fields[field] !== undefined);
    if (setByTheApi !== undefined) {
      const message = 'is set by the API from your credentials; leave it out';
      throw invalidFields('body', [{ field: setByTheApi, message }]);
    }
    // The order is the caller's: its client owns it, and its paths lie in the client's own folder.
    const { clientId } = principalOf(request);
    const input = parsePart(
      badgeOrderInputSchema,
      isPlainObject(body)
        ? { ...body, orderRef, clientId, documentsFolder: clientDocumentsFolder(clientId) }
        : body,
      'body',
    );
    const refused = refusedOptions(input.options, limits.orderOptions);
    if (refused.length > 0) throw invalidFields('body', refused);
    // The schema allowed http:// to this machine and any host; the workers' policy may not.
    const callbackProblem =
      input.callbackUrl === undefined ? null : callbackUrlProblem(input.callbackUrl, options.webhooks);
    if (callbackProblem !== null) {
      throw invalidFields('body', [{ field: 'callbackUrl', message: callbackProblem }]);
    }
    const claimed = await claimDocuments(input, clientId);
    // Over what the caller sent, not the content types filled in: a repeated PUT attaches (200) as before.
    const hash = orderInputHash(input);
    let started;
    try {
      started = await timed(
        `Starting order ${orderRef}`,
        orders.startOrder(claimed, { memo: { [INPUT_HASH_MEMO_KEY]: hash } }),
      );
    } catch (error) {
      if (error instanceof OrderMayExistError) {
        throw new ApiProblem({ status: 409, code: 'order-may-exist', detail: error.message });
      }
      throw error;
    }
    const statusUrl = `/v1/orders/${encodeURIComponent(orderRef)}`;
    const accepted = (created: boolean, runId: string | undefined) => ({
      orderRef,
      workflowId: started.workflowId,
      runId: runId ?? null,
      created,
      statusUrl,
    });
    if (!started.attached) return { status: 201, body: accepted(true, started.runId), location: statusUrl };
    const description = await timed(`Reading order ${orderRef}`, started.handle.describe());
    const stored = description.memo?.[INPUT_HASH_MEMO_KEY];
    const before040 = isPlainObject(body) ? orderInputHashBefore040(input, body) : null;
    if (stored !== hash && stored !== before040) {
      throw new ApiProblem({
        status: 409,
        code: 'order-conflict',
        detail:
          stored === undefined
            ? `Order ${orderRef} exists but was not placed through this API, so its input cannot be compared: use another orderRef`
            : `Order ${orderRef} exists with a different input: use another orderRef`,
      });
    }
    return { status: 200, body: accepted(false, description.runId), location: statusUrl };
  });

  route(ORDER_OPERATIONS.getOrder, async (request) => {
    const { orderRef } = parsePart(ORDER_OPERATIONS.getOrder.params, request.params, 'path');
    const query = parsePart(ORDER_OPERATIONS.getOrder.query, request.query, 'query');
    const { handle, description } = await find(request, orderRef, query.clientId);
    const runStatus = runStatusName(description.status.name);
    const status = description.typedSearchAttributes.get(BadgeOrderStatus);
    const orderId = description.typedSearchAttributes.get(BadgeOrderId);
    const running = runStatus === 'RUNNING';
    // No worker answered in time: the search attributes still say where the order stands.
    const view = running ? await queryStatus(handle).catch(() => null) : null;
    const outcome = running
      ? { result: null, failure: null }
      : await timed(`Reading the outcome of order ${orderRef}`, closedOutcome(handle, description));
    const body = {
      orderRef,
      workflowId: description.workflowId,
      runId: description.runId,
      runStatus,
      status: BADGE_ORDER_STATUSES.find((known) => known === status) ?? null,
      orderId: orderId === undefined || orderId === '' ? null : orderId,
      clientId: description.typedSearchAttributes.get(BadgeOrderClient) ?? null,
      startedAt: description.startTime.toISOString(),
      closedAt: description.closeTime?.toISOString() ?? null,
      view,
      result: outcome.result,
      failure: outcome.failure,
    };
    return { status: 200, body };
  });

  route(ORDER_OPERATIONS.listOrders, async (request) => {
    const query = parsePart(ORDER_OPERATIONS.listOrders.query, request.query, 'query');
    const principal = principalOf(request);
    const operator = principal.scopes.includes('ops');
    if (!operator && query.clientId !== undefined && query.clientId !== principal.clientId) {
      throw new ApiProblem({
        status: 403,
        code: 'insufficient-scope',
        detail: 'Listing the orders of another client needs the scope ops',
      });
    }
    // A client lists its own orders; an operator every order, or one client's. Orders placed without a client
    // carry no BadgeOrderClient, so no filter names them: an operator lists them among all orders.
    const clientId = operator
      ? query.clientId === NO_CLIENT
        ? undefined
        : query.clientId
      : principal.clientId;
    const filter = { status: query.status, clientId };
    const foreignToken = (): ApiProblem =>
      invalidFields('query', [{ field: 'pageToken', message: 'is not a page token of this listing' }]);
    let nextPageToken: Uint8Array | null = null;
    if (query.pageToken !== undefined) {
      nextPageToken = decodePageToken(query.pageToken, filter);
      if (nextPageToken === null) throw foreignToken();
    }
    let page;
    try {
      page = await timed(
        'Listing orders',
        orders.listOrders({
          status: query.status,
          clientId,
          pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE,
          nextPageToken,
        }),
      );
    } catch (error) {
      if (isInvalidArgument(error) && nextPageToken !== null) throw foreignToken();
      throw error;
    }
    return {
      status: 200,
      body: {
        orders: [...page.orders],
        nextPageToken: page.nextPageToken === null ? null : encodePageToken(page.nextPageToken, filter),
      },
    };
  });

  route(ORDER_OPERATIONS.retryOrder, async (request) => {
    const { orderRef } = parsePart(ORDER_OPERATIONS.retryOrder.params, request.params, 'path');
    const query = parsePart(ORDER_OPERATIONS.retryOrder.query, request.query, 'query');
    const { key, description } = await find(request, orderRef, query.clientId);
    if (description.status.name !== 'RUNNING') throw notRunning(orderRef, description.status.name);
    try {
      await timed(`Signalling order ${orderRef}`, orders.retryUploads(key));
    } catch (error) {
      // It closed between the two calls.
      if (error instanceof WorkflowNotFoundError) throw notRunning(orderRef, 'closed');
      throw error;
    }
    return { status: 202, body: { orderRef, accepted: true as const } };
  });

  /** The running order's document that an operation on one document names (its index in the order input). */
  const documentAt = async (
    request: FastifyRequest,
    operation: typeof ORDER_OPERATIONS.replaceDocument | typeof ORDER_OPERATIONS.reconcileDocument,
  ) => {
    const { orderRef, index } = parsePart(operation.params, request.params, 'path');
    const query = parsePart(operation.query, request.query, 'query');
    const { key, handle, description } = await find(request, orderRef, query.clientId);
    if (description.status.name !== 'RUNNING') throw notRunning(orderRef, description.status.name);
    const view = await queryStatus(handle).catch((error: unknown) => {
      throw new ApiProblem({
        status: 503,
        code: 'order-not-answering',
        detail: `Order ${orderRef} did not answer in time (${error instanceof Error ? error.name : 'error'}); repeat the request shortly`,
        headers: { 'retry-after': '5' },
      });
    });
    const document = view.documents[index];
    if (document === undefined) {
      throw new ApiProblem({
        status: 404,
        code: 'document-not-found',
        detail: `Order ${orderRef} has ${view.documents.length} document(s); there is none at index ${index}`,
      });
    }
    return { orderRef, index, key, document };
  };

  route(ORDER_OPERATIONS.replaceDocument, async (request) => {
    const replacement = parsePart(ORDER_OPERATIONS.replaceDocument.body[1], request.body, 'body');
    const { orderRef, index, key, document } = await documentAt(request, ORDER_OPERATIONS.replaceDocument);
    // The new file must be the order's client's, as PUT wants its documents: refused before the order hears of it.
    // A reference without a content type gets the one that client stored it with, as in PUT.
    const { newPath } = replacement;
    let { contentType } = replacement;
    if (key.clientId !== undefined) {
      const folder = clientDocumentsFolder(key.clientId);
      let message: string | undefined;
      if (isDocumentReference(newPath)) {
        const claimed = await claimedContentType(newPath, key.clientId);
        if (claimed === undefined) message = NOT_STORED;
        contentType ??= claimed;
      } else if (!isInsideFolder(newPath, folder)) {
        message = `must be inside ${folder}/ (this client's folder under DOCUMENTS_ROOT)`;
      }
      if (message !== undefined) throw invalidFields('body', [{ field: 'newPath', message }]);
    }
    return update(
      orderRef,
      `Replacing document ${index} of order ${orderRef}`,
      orders.replaceDocument(key, { path: document.path, ...replacement, contentType }),
      { Rejected: ReplaceDocumentRejectedError, code: 'replace-refused' },
    );
  });

  route(ORDER_OPERATIONS.reconcileOrder, async (request) => {
    const { orderRef } = parsePart(ORDER_OPERATIONS.reconcileOrder.params, request.params, 'path');
    const query = parsePart(ORDER_OPERATIONS.reconcileOrder.query, request.query, 'query');
    const answer = parsePart(ORDER_OPERATIONS.reconcileOrder.body[1], request.body, 'body');
    const { key } = await find(request, orderRef, query.clientId);
    return update(orderRef, `Reconciling order ${orderRef}`, orders.reconcileOrder(key, answer), {
      Rejected: ReconcileOrderRejectedError,
      code: 'reconcile-refused',
    });
  });

  route(ORDER_OPERATIONS.reconcileDocument, async (request) => {
    const answer = parsePart(ORDER_OPERATIONS.reconcileDocument.body[1], request.body, 'body');
    const { orderRef, index, key, document } = await documentAt(request, ORDER_OPERATIONS.reconcileDocument);
    return update(
      orderRef,
      `Reconciling document ${index} of order ${orderRef}`,
      orders.reconcileDocument(key, { path: document.path, ...answer }),
      { Rejected: ReconcileDocumentRejectedError, code: 'reconcile-document-refused' },
    );
  });

  route(ORDER_OPERATIONS.setDocumentOwner, async (request) => {
    const { orderRef } = parsePart(ORDER_OPERATIONS.setDocumentOwner.params, request.params, 'path');
    const query = parsePart(ORDER_OPERATIONS.setDocumentOwner.query, request.query, 'query');
    const correction = parsePart(ORDER_OPERATIONS.setDocumentOwner.body[1], request.body, 'body');
    const { key } = await find(request, orderRef, query.clientId);
    return update(
      orderRef,
      `Correcting the document owner of order ${orderRef}`,
      orders.setDocumentOwner(key, correction),
      { Rejected: SetDocumentOwnerRejectedError, code: 'set-owner-refused' },
    );
  });
};
