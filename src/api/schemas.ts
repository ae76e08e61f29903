/**
 * The HTTP API's request and response schemas, in zod, from which the OpenAPI document and the exported JSON
 * Schemas are generated. Requests reuse the contract's schemas (`src/contract.ts`); the responses describe
 * the contract's result and status types, which the contract declares as TypeScript interfaces — the type
 * checks at the end of this file keep the two in step.
 */
import { z } from 'zod';
import {
  BADGE_ORDER_STATUSES,
  CLIENT_ID_PATTERN,
  WEBHOOK_EVENT_TYPES,
  badgeOrderInputSchema,
  badgeOrderOptionsSchema,
  reconcileOrderInputSchema,
  replaceDocumentInputSchema,
  setDocumentOwnerInputSchema,
  type BadgeOrderResult,
  type BadgeOrderStatusView,
  type DocumentState,
} from '../contract';
import { RUN_STATUS_NAMES } from '../client/order-listing';

/** The `clientId` query value that names an order placed without a client. */
export const NO_CLIENT = '-';

/** Largest page of `GET /v1/orders`. */
export const MAX_PAGE_SIZE = 100;
/** Page size of `GET /v1/orders` when none is asked for. */
export const DEFAULT_PAGE_SIZE = 20;

/** Path parameter `orderRef`: the contract's own rule. */
export const orderRefParamsSchema = z.strictObject({
  orderRef: badgeOrderInputSchema.shape.orderRef,
});

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
export const orderQuerySchema = z.strictObject({ clientId: clientIdQuerySchema.optional() });

/** Path parameters of `POST /v1/orders/{orderRef}/documents/{index}/replace`. */
export const documentParamsSchema = z.strictObject({
  orderRef: badgeOrderInputSchema.shape.orderRef,
  index: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,2})$/, 'must be the document index, a whole number from 0')
    .transform(Number),
});

/** Fields of the order input the API sets from the caller's credentials: a body naming them is refused. */
export const SET_BY_THE_API = ['clientId', 'documentsFolder'] as const;

/**
 * Body of `PUT /v1/orders/{orderRef}`: the order input of the contract; `orderRef` comes from the path and
 * may be left out of the body (when present it must be the same), and {@link SET_BY_THE_API} are the API's.
 */
export const putOrderBodySchema = badgeOrderInputSchema;

/** Body of `POST …/documents/{index}/replace`: the new file for a failed document. */
export const replaceDocumentBodySchema = replaceDocumentInputSchema.omit({ path: true }).strict();

/** Body of `POST …/reconcile`: the operator's answer after checking the platform. */
export const reconcileBodySchema = reconcileOrderInputSchema;

/** Body of `POST …/document-owner`: the platform user id the order's documents belong to. */
export const setDocumentOwnerBodySchema = setDocumentOwnerInputSchema;

/** The `BadgeOrderStatus` values. */
export const orderStatusSchema = z.enum(BADGE_ORDER_STATUSES);

/** The Temporal run's execution status. */
export const runStatusSchema = z.enum(RUN_STATUS_NAMES);

/** Query of `GET /v1/orders`. */
export const listOrdersQuerySchema = z.strictObject({
  status: orderStatusSchema.optional(),
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

const documentLinksSchema = z.object({
  original: z.string().nullable(),
  thumbnail: z.string().nullable(),
});

/** A document's state in an order (the `status` query's and the `replaceDocument` update's answer). */
export const documentStateSchema = z.object({
  path: z.string(),
  status: z.enum(['pending', 'uploading', 'uploaded', 'failed']),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  documentId: z.string().nullable(),
  links: documentLinksSchema.nullable(),
  possibleDuplicate: z.boolean(),
  sourcePath: z.string(),
});

/** A platform id in an answer: always a string, its digits exactly as the platform sent them. */
const platformIdSchema = z.string().meta({
  description: "The platform's id as a string, exactly as the platform sent it (every digit kept).",
});

/** The `status` query's answer. */
export const statusViewSchema = z.object({
  orderRef: z.string(),
  phase: z.enum([
    'authenticating',
    'checking-stock',
    'creating-order',
    'awaiting-reconciliation',
    'uploading',
    'awaiting-repair',
    'completed',
    'failed',
    'cancelled',
  ]),
  searchStatus: orderStatusSchema,
  orderId: platformIdSchema.nullable(),
  stockFallback: z.boolean(),
  stockFallbackReason: z.string().nullable(),
  /** What the stock lookup advised (orders since 0.4.0 with a stock); it never decides what is ordered. */
  stockAdvice: z
    .object({
      verdict: z.enum(['listed', 'unlisted', 'unknown']),
      stockCount: z.number().int().nullable(),
    })
    .nullable()
    .optional(),
  /** Whose documents these are: the `document_owner` uploads are sent with, and where it came from. */
  documentOwner: z
    .object({
      id: z.string(),
      source: z.string(),
      refused: z.string().nullable(),
    })
    .nullable()
    .optional(),
  documents: z.array(documentStateSchema).readonly(),
  repairDeadline: z.string().nullable(),
  reconciliation: z
    .object({
      reason: z.string(),
      idempotencyKey: z.string(),
      stockId: platformIdSchema.nullable(),
      since: z.string(),
    })
    .nullable(),
  reconciliationDeadline: z.string().nullable(),
  failure: z.string().nullable(),
  /** Set when the order has a `callbackUrl`: how its webhook deliveries went. */
  webhooks: z
    .object({
      delivered: z.number().int(),
      pending: z.number().int(),
      failed: z
        .array(
          z.object({
            id: z.string(),
            type: z.enum(Object.values(WEBHOOK_EVENT_TYPES)),
            attempts: z.number().int().min(1),
          }),
        )
        .readonly(),
    })
    .optional(),
  /** The options the order runs with, resolved when it started (absent for orders started before 0.2.0). */
  options: badgeOrderOptionsSchema.required().optional(),
});

/** The result of a completed order. */
export const orderResultSchema = z.object({
  orderRef: z.string(),
  orderId: platformIdSchema,
  stockId: platformIdSchema.nullable(),
  stockFallback: z.boolean(),
  stockFallbackReason: z.string().nullable(),
  documents: z
    .array(
      z.object({
        path: z.string(),
        status: z.literal('uploaded'),
        documentId: z.string().nullable(),
        links: documentLinksSchema,
        possibleDuplicate: z.boolean(),
      }),
    )
    .readonly(),
});

/** Answer of `PUT /v1/orders/{orderRef}` (201 created, 200 attached with the same input). */
export const orderAcceptedSchema = z.object({
  orderRef: z.string(),
  workflowId: z.string(),
  runId: z.string().nullable(),
  /** True when this request started the order; false when it attached to the order with the same input. */
  created: z.boolean(),
  /** Where to read the order's status. */
  statusUrl: z.string(),
});

/** Answer of `GET /v1/orders/{orderRef}`: where the order stands, also after its run closed. */
export const orderViewSchema = z.object({
  orderRef: z.string(),
  workflowId: z.string(),
  runId: z.string(),
  runStatus: runStatusSchema,
  /** `BadgeOrderStatus` as last recorded; null for a run that recorded none. */
  status: orderStatusSchema.nullable(),
  /** The platform's order id, once created. */
  orderId: platformIdSchema.nullable(),
  /** The client that owns the order; null for an order placed without one. */
  clientId: z.string().nullable(),
  startedAt: z.string().nullable(),
  closedAt: z.string().nullable(),
  /** The `status` query's answer: present for a running order whose worker answered in time. */
  view: statusViewSchema.nullable(),
  /** The result of a completed order. */
  result: orderResultSchema.nullable(),
  /** Why a closed order did not complete. */
  failure: z.string().nullable(),
});

/** One order of a `GET /v1/orders` page. */
export const orderSummarySchema = z.object({
  orderRef: z.string(),
  workflowId: z.string(),
  runId: z.string(),
  runStatus: runStatusSchema,
  status: orderStatusSchema.nullable(),
  orderId: platformIdSchema.nullable(),
  clientId: z.string().nullable(),
  startedAt: z.string().nullable(),
  closedAt: z.string().nullable(),
});

/** Answer of `GET /v1/orders`. */
export const orderPageSchema = z.object({
  orders: z.array(orderSummarySchema),
  /** Pass as `pageToken` for the next page; null on the last page. */
  nextPageToken: z.string().nullable(),
});

/** Answer of `POST …/retry`: the signal was delivered to the running order. */
export const retryAcceptedSchema = z.object({
  orderRef: z.string(),
  accepted: z.literal(true),
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

/** An RFC 9457 problem detail. */
export type Problem = z.infer<typeof problemSchema>;

/** A value of `Schema` is a value of `Contract`, and both have the same fields. */
type Describes<Schema, Contract> = [Schema] extends [Contract]
  ? [keyof Schema] extends [keyof Contract]
    ? [keyof Contract] extends [keyof Schema]
      ? true
      : false
    : false
  : false;

// Compile-time checks: a response schema that drifts from the contract's interface fails `tsc`.
const contractChecks: readonly [true, true, true] = [
  true satisfies Describes<z.infer<typeof statusViewSchema>, BadgeOrderStatusView>,
  true satisfies Describes<z.infer<typeof orderResultSchema>, BadgeOrderResult>,
  true satisfies Describes<z.infer<typeof documentStateSchema>, DocumentState>,
];
void contractChecks;
