/**
 * The API's operations in one table: path, scope, and the zod schemas of parameters, body and answers. The
 * routes validate with these schemas and the OpenAPI document is generated from them, so the two cannot
 * disagree.
 */
import type { z } from 'zod';
import type { ApiScope } from './config';
import {
  documentParamsSchema,
  documentStateSchema,
  listOrdersQuerySchema,
  orderAcceptedSchema,
  orderPageSchema,
  orderQuerySchema,
  orderRefParamsSchema,
  orderViewSchema,
  putOrderBodySchema,
  reconcileBodySchema,
  replaceDocumentBodySchema,
  retryAcceptedSchema,
  setDocumentOwnerBodySchema,
  statusViewSchema,
} from './schemas';

/** A success answer of an operation. */
export interface OperationResponse {
  readonly description: string;
  /** The body's schema, by its component name in the OpenAPI document. */
  readonly schema: readonly [name: string, schema: z.ZodType];
}

/** One operation of the API. */
export interface Operation {
  readonly operationId: string;
  readonly method: 'GET' | 'PUT' | 'POST';
  /** OpenAPI form, `{orderRef}`. */
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  readonly scope: ApiScope;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: readonly [name: string, schema: z.ZodType];
  readonly responses: Readonly<Record<number, OperationResponse>>;
  /** The problem statuses it can answer with (besides the ones every operation can: 401, 403, 429, …). */
  readonly problems: readonly number[];
}

/** The fastify form of an OpenAPI path: `{orderRef}` → `:orderRef`. */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** Problems every authenticated operation may answer with. */
export const COMMON_PROBLEMS = [400, 401, 403, 429, 431, 503, 504] as const;

/** Every operation of the orders API. */
export const ORDER_OPERATIONS = {
  putOrder: {
    operationId: 'putOrder',
    method: 'PUT',
    path: '/v1/orders/{orderRef}',
    summary: 'Place an order, or attach to it',
    description:
      'Starts the order named by `orderRef` (201), or attaches to it when it exists with the same input (200). ' +
      'An order that exists with a different input is refused (409), as is one whose last run may already have ' +
      'created it on the platform. Repeating the request is always safe.',
    scope: 'orders:write',
    params: orderRefParamsSchema,
    body: ['BadgeOrderInput', putOrderBodySchema],
    responses: {
      200: {
        description: 'The order exists with this input; nothing new was started',
        schema: ['OrderAccepted', orderAcceptedSchema],
      },
      201: { description: 'The order was started', schema: ['OrderAccepted', orderAcceptedSchema] },
    },
    problems: [409, 413, 415],
  },
  getOrder: {
    operationId: 'getOrder',
    method: 'GET',
    path: '/v1/orders/{orderRef}',
    summary: 'Where an order stands',
    description:
      'The status view of a running order (its `status` query), or the result or failure of a closed one, with ' +
      'the `BadgeOrderStatus` it last recorded.',
    scope: 'orders:read',
    params: orderRefParamsSchema,
    query: orderQuerySchema,
    responses: { 200: { description: 'The order', schema: ['OrderView', orderViewSchema] } },
    problems: [404],
  },
  listOrders: {
    operationId: 'listOrders',
    method: 'GET',
    path: '/v1/orders',
    summary: 'List orders, newest first',
    description:
      'Orders from Temporal visibility, optionally of one `status`, a page at a time: pass `nextPageToken` as ' +
      '`pageToken` for the next page. Visibility may lag behind an order by a moment.',
    scope: 'orders:read',
    query: listOrdersQuerySchema,
    responses: { 200: { description: 'One page of orders', schema: ['OrderPage', orderPageSchema] } },
    problems: [],
  },
  retryOrder: {
    operationId: 'retryOrder',
    method: 'POST',
    path: '/v1/orders/{orderRef}/retry',
    summary: 'Retry every failed document now',
    description:
      'Sends the order the `retryUploads` signal. Refused (409) when the order is no longer running.',
    scope: 'ops',
    params: orderRefParamsSchema,
    query: orderQuerySchema,
    responses: {
      202: { description: 'The order took the signal', schema: ['RetryAccepted', retryAcceptedSchema] },
    },
    problems: [404, 409],
  },
  replaceDocument: {
    operationId: 'replaceDocument',
    method: 'POST',
    path: '/v1/orders/{orderRef}/documents/{index}/replace',
    summary: 'Replace a failed document’s file',
    description:
      'Runs the `replaceDocument` update for the order’s document at `index` (as listed in the order input): the ' +
      'document is retried with the new file. Refused (409) when the document has not failed or the order is closed.',
    scope: 'ops',
    params: documentParamsSchema,
    query: orderQuerySchema,
    body: ['ReplaceDocumentBody', replaceDocumentBodySchema],
    responses: {
      200: { description: 'The document’s new state', schema: ['DocumentState', documentStateSchema] },
    },
    problems: [404, 409, 413, 415],
  },
  reconcileOrder: {
    operationId: 'reconcileOrder',
    method: 'POST',
    path: '/v1/orders/{orderRef}/reconcile',
    summary: 'Resolve an order awaiting reconciliation',
    description:
      'Runs the `reconcileOrder` update with the operator’s answer after checking the platform: ' +
      '`{ "orderId": "<digits>" }` when it holds the order (the id as a string, every digit kept; a number is ' +
      'accepted up to 2^53 − 1), `{ "notCreated": true }` when it does not. Refused (409) unless the order awaits it.',
    scope: 'ops',
    params: orderRefParamsSchema,
    query: orderQuerySchema,
    body: ['ReconcileOrderInput', reconcileBodySchema],
    responses: {
      200: {
        description: 'The order’s status after the answer',
        schema: ['BadgeOrderStatusView', statusViewSchema],
      },
    },
    problems: [404, 409, 413, 415],
  },
  setDocumentOwner: {
    operationId: 'setDocumentOwner',
    method: 'POST',
    path: '/v1/orders/{orderRef}/document-owner',
    summary: 'Correct whose documents an order’s are',
    description:
      'Runs the `setDocumentOwner` update: the order’s uploads are sent with this platform user id as ' +
      '`document_owner` from now on, and its failed documents are sent again at once (the answer to a 422 naming ' +
      '`document_owner`, which the order’s status explains). Refused (409) before the order exists on the ' +
      'platform or once it has ended.',
    scope: 'ops',
    params: orderRefParamsSchema,
    query: orderQuerySchema,
    body: ['SetDocumentOwnerInput', setDocumentOwnerBodySchema],
    responses: {
      200: {
        description: 'The order’s status after the correction',
        schema: ['BadgeOrderStatusView', statusViewSchema],
      },
    },
    problems: [404, 409, 413, 415],
  },
} as const satisfies Record<string, Operation>;
