/** Client API of the badge order service, for backend code. */
export {
  BadgeOrdersClient,
  OrderMayExistError,
  ReconcileOrderRejectedError,
  ReplaceDocumentRejectedError,
  type BadgeOrderHandle,
  type StartOrderOptions,
  type StartOrderResult,
} from './badge-orders-client';
export {
  listOrderPage,
  RUN_STATUS_NAMES,
  runStatusName,
  type ListedOrder,
  type ListOrdersInput,
  type OrderPage,
  type RunStatusName,
} from './order-listing';
export { connectClient } from '../temporal/connection';
export * from '../contract';
