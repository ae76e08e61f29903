/**
 * Client API of the badge order service, for backend code, and the entry of the client package
 * (`packages/client`, built from here): the contract's types and schemas, {@link BadgeOrdersClient} over Temporal
 * with the payload codec, and a typed client of the HTTP API.
 */
export {
  BadgeOrdersClient,
  OrderMayExistError,
  ReconcileDocumentRejectedError,
  ReconcileOrderRejectedError,
  ReplaceDocumentRejectedError,
  SetDocumentOwnerRejectedError,
  type BadgeOrderHandle,
  type BadgeOrdersClientOptions,
  type StartOrderOptions,
  type StartOrderResult,
} from './badge-orders-client';
export { listOrderPage, runStatusName, type ListOrdersInput, type OrderPage } from './order-listing';
export {
  createBadgeOrdersHttpClient,
  uploadDocument,
  type BadgeOrdersHttpClient,
  type BadgeOrdersHttpClientOptions,
  type HttpApiPaths,
} from './http-api-client';
export { connectClient } from '../temporal/connection';
export { loadTemporalConfig, type TemporalConfig } from '../config';
export { createDataConverter } from '../codec/data-converter';
export { EncryptionCodec } from '../codec/encryption-codec';
export {
  generatePayloadKeyEntry,
  parsePayloadKeys,
  PayloadKeyRing,
  PayloadKeysError,
} from '../codec/key-ring';
export { callbackUrlProblem, type CallbackUrlPolicy } from '../webhook-destination';
// The contract a backend writes against: orders, their status and results, webhook events, the operators'
// messages. What the workflow and the API use beyond it stays inside.
export {
  DEFAULT_TASK_QUEUE,
  InvalidOrderInputError,
  badgeOrderInputSchema,
  badgeOrderWorkflowId,
  parseBadgeOrderInput,
  webhookEventSchema,
  type BadgeOrderInput,
  type BadgeOrderOptions,
  type BadgeOrderPhase,
  type BadgeOrderResult,
  type BadgeOrderStatusView,
  type DocumentInput,
  type DocumentState,
  type DocumentStatus,
  type ListedOrder,
  type ReconcileOrderAnswer,
  type ReconcileOrderInput,
  type ReplaceDocumentInput,
  type RunStatusName,
  type SetDocumentOwnerInput,
  type StockAdvice,
  type WebhookEvent,
} from '../contract';
export {
  BADGE_ORDER_STATUSES,
  WEBHOOK_EVENT_TYPES,
  WORKFLOW_TYPES,
  type BadgeOrderStatusValue,
} from '../workflow-contract';
export * from '../workflow-messages';
