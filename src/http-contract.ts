/**
 * The HTTP API's contract: each operation (method, path, scope, the zod schemas of its parameters, body and
 * answers, the problems it documents) in one table, built from the contract's schemas (src/contract.ts). The API
 * validates requests with these schemas and generates its OpenAPI document from them (src/api/openapi.ts); the
 * typed HTTP client of the client package takes its types from them (src/client/http-api-client.ts). It knows
 * nothing of fastify or Temporal, so the client package carries it without the server.
 */
import { z } from 'zod';
import {
  badgeOrderInputSchema,
  badgeOrderResultSchema,
  badgeOrderStatusViewSchema,
  CLIENT_ID_PATTERN,
  DOCUMENT_REFERENCE_PATTERN,
  documentReconciliationSchema,
  documentStateSchema,
  listedOrderSchema,
  reconcileOrderInputSchema,
  replaceDocumentInputSchema,
  setDocumentOwnerInputSchema,
} from './contract';
import { BADGE_ORDER_STATUSES } from './workflow-contract';

/** The `clientId` query value that names an order placed without a client. */
export const NO_CLIENT = '-';

/** Largest page of `GET /v1/orders`. */
const MAX_PAGE_SIZE = 100;

/** Fields of the order input the API sets from the caller's credentials: a body naming them is refused. */
export const SET_BY_THE_API = ['clientId', 'documentsFolder'] as const;

/** Path parameter `orderRef`: the contract's own rule. */
const orderRefParamsSchema = z.strictObject({ orderRef: badgeOrderInputSchema.shape.orderRef });

/** Query parameter `clientId`: whose order (operators name any client; `-` an order placed without one). */
const clientIdQuerySchema = z
  .union([z.string().regex(CLIENT_ID_PATTERN), z.literal(NO_CLIENT)], {
    error: `must be a client id, or "${NO_CLIENT}" for an order placed without a client`,
  })
  .meta({
    description:
      `The client whose order this is. Operators (scope \`ops\`) may name any client, or \`${NO_CLIENT}\` for an ` +
      'order placed without one (the starter, the TypeScript client); anyone else may leave it out or name ' +
      'their own: another client’s order is not found (404).',
  });

/** Query of the routes of one order. */
const orderQuerySchema = z.strictObject({ clientId: clientIdQuerySchema.optional() });

/**
 * Body of `PUT /v1/orders/{orderRef}`, as the OpenAPI document states it: the order input without `orderRef` (the
 * path names it; a body may repeat it, the same) nor {@link SET_BY_THE_API}. The route validates the whole input
 * with the contract's schema after setting those fields.
 */
const putOrderBodySchema = z
  .object(badgeOrderInputSchema.shape)
  .omit({ orderRef: true, clientId: true, documentsFolder: true } satisfies Record<
    'orderRef' | (typeof SET_BY_THE_API)[number],
    true
  >);

/** Answer of `PUT /v1/orders/{orderRef}` (201 created, 200 attached with the same input). */
const orderAcceptedSchema = z.object({
  orderRef: z.string(),
  workflowId: z.string(),
  runId: z.string().nullable(),
  /** True when this request started the order; false when it attached to the order with the same input. */
  created: z.boolean(),
  /** Where to read the order's status. */
  statusUrl: z.string(),
});

/** Answer of `GET /v1/orders/{orderRef}`: where the order stands, also after its run closed. */
const orderViewSchema = listedOrderSchema.extend({
  /** The `status` query's answer: present for a running order whose worker answered in time. */
  view: badgeOrderStatusViewSchema.nullable(),
  /** The result of a completed order. */
  result: badgeOrderResultSchema.nullable(),
  /** Why a closed order did not complete. */
  failure: z.string().nullable(),
});

/** Query of `GET /v1/orders`. */
const listOrdersQuerySchema = z.strictObject({
  status: z.enum(BADGE_ORDER_STATUSES).optional(),
  /** Only this client's orders (operators; everyone else sees only their own anyway). */
  clientId: clientIdQuerySchema.optional(),
  pageSize: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, `must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .transform(Number)
    .refine((size) => size <= MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
    .optional(),
  pageToken: z.string().min(1).max(4096).optional(),
});

/** Answer of `GET /v1/orders`. */
const orderPageSchema = z.object({
  orders: z.array(listedOrderSchema),
  /** Pass as `pageToken` for the next page; null on the last page. */
  nextPageToken: z.string().nullable(),
});

/** An RFC 9457 problem detail, with the invalid fields of a refused request in `errors`. */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  instance: z.string().optional(),
  /** Stable code of the problem, e.g. `invalid-input`, `order-conflict`. */
  code: z.string(),
  /** Each invalid field: its path (dotted, `(input)` for the whole body) and what is wrong with it. */
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
export type Problem = z.infer<typeof problemSchema>;

/** Request body of `POST /v1/documents`, for the OpenAPI document: multipart/form-data with one file part. */
const documentUploadRequestSchema = z
  .object({
    file: z.string().meta({
      format: 'binary',
      description:
        'The document (one file part named "file"); its part Content-Type is recorded as this client’s content ' +
        'type of it.',
    }),
  })
  .meta({ description: 'multipart/form-data' });

/** Answer of `POST /v1/documents` (201): name the document in an order as `{ "ref": … }`. */
const documentUploadResponseSchema = z.object({
  ref: z
    .string()
    .regex(DOCUMENT_REFERENCE_PATTERN)
    .meta({
      description:
        'Content-addressed reference: "sha256:" and the 64 hex digits of the SHA-256 of the bytes.',
      example: `sha256:${'0123456789abcdef'.repeat(4)}`,
    }),
  sizeBytes: z.number().int().positive(),
  contentType: z.string().meta({
    description:
      'The content type this client stored the bytes with (this upload’s part Content-Type): an order naming the ' +
      'reference without one is uploaded with it. Never another client’s.',
  }),
});
export type DocumentUploadResponse = z.infer<typeof documentUploadResponseSchema>;

/** A success answer of an operation: its description, and its body's schema by component name. */
interface OperationResponse {
  readonly description: string;
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
  /** The scope a caller needs (one of the API's scopes, `API_SCOPES`). */
  readonly scope: string;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  /** The body's schema, by its component name in the OpenAPI document. */
  readonly body?: readonly [name: string, schema: z.ZodType];
  /** The body's media type. @default application/json */
  readonly bodyType?: 'multipart/form-data';
  readonly responses: Readonly<Record<number, OperationResponse>>;
  /** The problem statuses it can answer with (besides {@link COMMON_PROBLEMS}). */
  readonly problems: readonly number[];
}

/** Problems every authenticated operation may answer with. */
export const COMMON_PROBLEMS = [400, 401, 403, 429, 431, 503, 504] as const;

/** Path parameters of an action on one document: the order, and the document's index in the order input. */
const documentParamsSchema = orderRefParamsSchema.extend({
  index: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,2})$/, 'must be the document index, a whole number from 0')
    .transform(Number),
});

/** What an operator's action on one order shares: `POST`, the scope `ops`, the order named by path and query. */
const OPERATOR_ACTION = {
  method: 'POST',
  scope: 'ops',
  params: orderRefParamsSchema,
  query: orderQuerySchema,
  problems: [404, 409, 413, 415],
} as const;

/** The answer of an update that answers the order's status. */
const statusViewAnswer = (description: string) =>
  ({ 200: { description, schema: ['BadgeOrderStatusView', badgeOrderStatusViewSchema] } }) as const;

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
      'created it on the platform. Repeating the request is always safe. A document named by `ref` without a ' +
      '`contentType` is uploaded with the content type this client stored it with.',
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
    ...OPERATOR_ACTION,
    operationId: 'retryOrder',
    path: '/v1/orders/{orderRef}/retry',
    summary: 'Retry every failed document now',
    description:
      'Sends the order the `retryUploads` signal. Refused (409) when the order is no longer running.',
    responses: {
      202: {
        description: 'The order took the signal',
        schema: ['RetryAccepted', z.object({ orderRef: z.string(), accepted: z.literal(true) })],
      },
    },
    problems: [404, 409],
  },
  replaceDocument: {
    ...OPERATOR_ACTION,
    operationId: 'replaceDocument',
    path: '/v1/orders/{orderRef}/documents/{index}/replace',
    summary: 'Replace a failed document’s file',
    description:
      'Runs the `replaceDocument` update for the order’s document at `index` (as listed in the order input): the ' +
      'document is retried with the new file (a reference without a `contentType`: with the content type the order’s ' +
      'client stored it with). Refused (400) when `newPath` is not the order’s client’s (a reference it did not ' +
      'store, a path outside its folder), and (409) when the document has not failed or the order is closed.',
    params: documentParamsSchema,
    body: ['ReplaceDocumentBody', replaceDocumentInputSchema.omit({ path: true }).strict()],
    responses: {
      200: { description: 'The document’s new state', schema: ['DocumentState', documentStateSchema] },
    },
  },
  reconcileOrder: {
    ...OPERATOR_ACTION,
    operationId: 'reconcileOrder',
    path: '/v1/orders/{orderRef}/reconcile',
    summary: 'Resolve an order awaiting reconciliation',
    description:
      'Runs the `reconcileOrder` update with the operator’s answer after checking the platform: ' +
      '`{ "orderId": "<digits>" }` when it holds the order (the id as a string, every digit kept; a number is ' +
      'accepted up to 2^53 − 1), `{ "notCreated": true }` when it does not. Refused (409) unless the order awaits it.',
    body: ['ReconcileOrderInput', reconcileOrderInputSchema],
    responses: statusViewAnswer('The order’s status after the answer'),
  },
  reconcileDocument: {
    ...OPERATOR_ACTION,
    operationId: 'reconcileDocument',
    path: '/v1/orders/{orderRef}/documents/{index}/reconcile',
    summary: 'Resolve a held document',
    description:
      'Runs the `reconcileDocument` update for the order’s document at `index` (as listed in the order input), ' +
      'one held because an upload may have stored it (`held` in its state), with the operator’s answer after ' +
      'checking the platform: `{ "documentId": "<id>" }` when the platform holds it (it counts as uploaded), ' +
      '`{ "notStored": true }` when it does not (sent again now). Refused (409) unless the document is held.',
    params: documentParamsSchema,
    body: ['ReconcileDocumentBody', documentReconciliationSchema({})],
    responses: statusViewAnswer('The order’s status after the answer'),
  },
  setDocumentOwner: {
    ...OPERATOR_ACTION,
    operationId: 'setDocumentOwner',
    path: '/v1/orders/{orderRef}/document-owner',
    summary: 'Correct whose documents an order’s are',
    description:
      'Runs the `setDocumentOwner` update: the order’s uploads are sent with this platform user id as ' +
      '`document_owner` from now on, and its failed documents are sent again at once (the answer to a 422 naming ' +
      '`document_owner`, which the order’s status explains). Refused (409) before the order exists on the ' +
      'platform or once it has ended.',
    body: ['SetDocumentOwnerInput', setDocumentOwnerInputSchema],
    responses: statusViewAnswer('The order’s status after the correction'),
  },
} as const satisfies Record<string, Operation>;

/**
 * `POST /v1/documents`, outside {@link ORDER_OPERATIONS}: the API has it only with a document store, and its
 * description ends with that store's limits (src/api/documents-plugin.ts adds them).
 */
export const UPLOAD_DOCUMENT = {
  operationId: 'uploadDocument',
  method: 'POST',
  path: '/v1/documents',
  summary: 'Store a document, to name it in an order by reference',
  description:
    'Streams one file (multipart/form-data, part "file") into the document store and answers its ' +
    'content-addressed reference; name it in an order as `{ "ref": … }`. Only the client that stored a document ' +
    'may name it. Storing the same bytes again answers the same reference, with the content type of this upload; ' +
    'the same bytes stored by two clients are one object, and neither learns of the other.',
  scope: 'orders:write',
  body: ['DocumentUpload', documentUploadRequestSchema],
  bodyType: 'multipart/form-data',
  responses: {
    201: {
      description: 'Stored: the reference, the size and the content type',
      schema: ['DocumentStored', documentUploadResponseSchema],
    },
  },
  problems: [413, 415, 500],
} as const satisfies Operation;
