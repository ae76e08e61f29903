/**
 * The badge order activities, one per platform step (one file each), built from their dependencies by
 * `createActivities` in the worker. Each converts its errors to `ApplicationFailure`s at the boundary.
 */
import { authenticateActivity } from './authenticate';
import { createOrderActivity } from './create-order';
import type { ActivityDependencies } from './dependencies';
import { deliverWebhookActivity, type WebhookDependencies } from './deliver-webhook';
import { inspectDocumentActivity } from './inspect-document';
import { lookUpStockActivity } from './look-up-stock';
import { resolveInputAndSignInActivity, resolveOrderInputActivity } from './resolve-order-input';
import { uploadDocumentActivity } from './upload-document';

/** Creates the activity functions the worker registers. */
export function createActivities(deps: ActivityDependencies & WebhookDependencies) {
  return {
    authenticate: authenticateActivity(deps),
    lookUpStock: lookUpStockActivity(deps),
    createOrder: createOrderActivity(deps),
    inspectDocument: inspectDocumentActivity(deps),
    uploadDocument: uploadDocumentActivity(deps),
    resolveOrderInput: resolveOrderInputActivity(),
    resolveInputAndSignIn: resolveInputAndSignInActivity(deps),
    deliverWebhook: deliverWebhookActivity(deps),
  };
}
