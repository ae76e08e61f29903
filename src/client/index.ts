/** Client API of the badge order service, for backend code. */
export {
  BadgeOrdersClient,
  OrderMayExistError,
  ReconcileOrderRejectedError,
  ReplaceDocumentRejectedError,
  type BadgeOrderHandle,
  type StartOrderResult,
} from './badge-orders-client';
export { connectClient } from '../temporal/connection';
export * from '../contract';
