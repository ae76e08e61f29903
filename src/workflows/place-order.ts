/**
 * Placing the order on the platform exactly once. A creation attempt either created the order (its id
 * comes back), was not sent or was rejected (safe to decide), or may have created it without our knowing
 * (a timeout, a 5xx, an answer without an id, a worker that died mid-call). Only a platform known to honour
 * `Idempotency-Key` is asked again after the last kind; otherwise the order waits for an operator's
 * `reconcileOrder`, because an order costs the customer money and must never be placed twice. Asked again,
 * a platform that gives no answer before the retry window passes (or refuses) leaves the order waiting for
 * `reconcileOrder` too: it may hold the order, so the order is never called rejected.
 */
import { condition, isCancellation, log, setCurrentDetails, sleep, workflowInfo } from '@temporalio/workflow';
import { applicationFailure } from '../failure-types';
import { creationIdempotencyKey } from '../workflow-contract';
import { creationBackoffMs } from './activity-options';
import {
  attemptOutcome,
  describeFailure,
  failedWith,
  isFinalFailure,
  refusedSetting,
  requestedRetryDelayMs,
} from './failures';
import { idText, type OrderState } from './order-state';
import { nonCancellable, type OrderSteps } from './steps';

/** What placing the order needs besides the state. */
interface PlaceOrderSettings {
  readonly steps: OrderSteps;
  /** Whether the platform is known to honour `Idempotency-Key` (worker configuration). */
  readonly keysHonoured: boolean;
  /** How long attempts that were not sent are retried. */
  readonly retryWindowMs: number;
  /** How long an order waits for an operator to reconcile it. */
  readonly reconciliationWindowMs: number;
  /**
   * Whether giving up after an attempt that may have created the order holds it for reconciliation (orders
   * since 0.6.0); orders started before failed as rejected then, and replay so.
   */
  readonly holdsUncertainCreation: boolean;
  /**
   * Whether creation resumed after `reconcileOrder` `{ notCreated: true }` retries within a new retry window
   * (orders since 0.7.0); orders started before went on counting from the first attempt, and replay so.
   */
  readonly restartsWindowWhenResumed: boolean;
}

/** Creates the order (falling back to no stock on 404) and returns its id; see the module comment. */
export async function placeOrder(state: OrderState, settings: PlaceOrderSettings): Promise<string> {
  state.phase = 'creating-order';
  let started = Date.now();
  // Creations refused because of a setting and sent again since (each with a key of its own).
  let repairs = 0;
  // The last attempt that may have created the order (only a platform honouring keys is asked again after one).
  let uncertain: { reason: string; idempotencyKey: string; stockId: string | null } | null = null;
  for (let attempt = 1; ; attempt += 1) {
    const stockId = state.stockId;
    const idempotencyKey = creationIdempotencyKey(workflowInfo().workflowId, stockId !== null, repairs);
    const summary =
      stockId === null ? 'Create order without stock' : `Create order with stock ${String(stockId)}`;
    let error: unknown;
    try {
      const created = await createOnce(state, settings.steps.createOrder(summary), idempotencyKey);
      state.orderCreated(created);
      return created;
    } catch (caught) {
      if (isCancellation(caught)) throw caught;
      error = caught;
    }

    if (failedWith(error, 'STOCK_NOT_FOUND') && stockId !== null) {
      state.fallBackFromStock(`the platform answered 404 for stock ${String(stockId)}`);
      attempt = 0;
      continue;
    }
    const outcome = attemptOutcome(error);
    const retryable = !isFinalFailure(error);
    if (outcome === 'maybe-applied') uncertain = { reason: describeFailure(error), idempotencyKey, stockId };
    const givingUp = !retryable || Date.now() - started >= settings.retryWindowMs;
    // Never "rejected" while an attempt may have created the order: a person (or the platform) decides.
    const heldAtLastAttempt = outcome === 'maybe-applied' && !(settings.keysHonoured && retryable);
    if (uncertain !== null && (heldAtLastAttempt || (givingUp && settings.holdsUncertainCreation))) {
      const answer = await awaitReconciliation(state, settings, {
        ...uncertain,
        reason:
          outcome === 'maybe-applied'
            ? uncertain.reason
            : `${uncertain.reason}; then ${describeFailure(error)}`,
      });
      if ('orderId' in answer) {
        state.orderCreated(answer.orderId);
        return answer.orderId;
      }
      state.resumeCreating();
      // The window of the attempts before the answer may have passed long ago, while the order waited.
      if (settings.restartsWindowWhenResumed) started = Date.now();
      uncertain = null;
      attempt = 0;
      continue;
    }
    // Refused because of a setting (a name the request profile did not send, a base URL redirected): not placed,
    // and the same order succeeds once the operator fixes the setting; it waits for that, visibly.
    const setting = refusedSetting(error);
    if (givingUp && setting !== undefined && outcome !== 'maybe-applied') {
      await awaitCreationRepair(state, setting, describeFailure(error));
      repairs += 1;
      started = Date.now();
      attempt = 0;
      continue;
    }
    if (givingUp) {
      throw applicationFailure('ORDER_REJECTED', `Order could not be created: ${describeFailure(error)}`, {
        ...(error instanceof Error && { cause: error }),
      });
    }
    log.warn('order creation attempt failed; trying again with the same key', {
      attempt,
      outcome,
      error: describeFailure(error),
    });
    await sleep(creationBackoffMs(attempt, requestedRetryDelayMs(error)));
  }
}

/**
 * One creation attempt. It is not cancellable: a cancelled order still learns the id of an order that
 * was created meanwhile, so nothing on the platform is left unaccounted for.
 */
function createOnce(
  state: OrderState,
  activities: ReturnType<OrderSteps['createOrder']>,
  idempotencyKey: string,
): Promise<string> {
  const stockId = state.stockId;
  return nonCancellable(
    () =>
      activities.createOrder({
        vehicle: state.input.vehicle,
        badge: state.input.badge,
        idempotencyKey,
        ...(stockId === null ? {} : { stockId }),
      }),
    // Results recorded before 0.4.0 hold a number.
  ).then((result) => idText(result.orderId));
}

/** Waits for `reconcileOrder`; past the deadline the order fails, saying what to check. */
async function awaitReconciliation(
  state: OrderState,
  settings: PlaceOrderSettings,
  unknown: { reason: string; idempotencyKey: string; stockId: string | null },
): Promise<NonNullable<OrderState['reconciliationAnswer']>> {
  const deadline = Date.now() + settings.reconciliationWindowMs;
  state.awaitReconciliation({ ...unknown, since: new Date(Date.now()).toISOString() }, deadline);
  setCurrentDetails(
    `Awaiting reconciliation: order creation (Idempotency-Key ${unknown.idempotencyKey}) may or may not have ` +
      `created the order (${unknown.reason}). Check the platform, then send the update reconcileOrder with ` +
      `{"orderId": "<id>"} or {"notCreated": true} before ${new Date(deadline).toISOString()}.`,
  );
  log.warn('order creation outcome unknown; awaiting reconciliation', {
    idempotencyKey: unknown.idempotencyKey,
  });
  const answered = await condition(
    () => state.reconciliationAnswer !== null,
    Math.max(deadline - Date.now(), 1),
  );
  const answer = state.reconciliationAnswer;
  if (!answered || answer === null) {
    throw applicationFailure(
      'RECONCILIATION_DEADLINE_PASSED',
      `Reconciliation deadline passed: the platform may hold an order created with Idempotency-Key ` +
        `${unknown.idempotencyKey} (${unknown.reason}); check it before ordering again`,
      { details: [{ idempotencyKey: unknown.idempotencyKey }] },
    );
  }
  return answer;
}

/**
 * Waits until a retry is asked for (`retryUploads`: ops retry, the API, the nightly replay) after the operator
 * fixed `setting`; past the repair deadline the order fails as rejected, naming the setting.
 */
async function awaitCreationRepair(state: OrderState, setting: string, reason: string): Promise<void> {
  const deadline = Date.now() + state.input.options.repairWindowMs;
  state.awaitCreationRepair({ setting, reason, since: new Date(Date.now()).toISOString() }, deadline);
  const orderRef = state.input.orderRef;
  setCurrentDetails(
    `Awaiting repair: the platform refused the order creation because of ${setting} (${reason}). Fix ${setting} ` +
      `on the workers, then signal retryUploads (ops retry ${orderRef}, POST /v1/orders/${orderRef}/retry, or ` +
      `trigger the nightly replay) before ${new Date(deadline).toISOString()}: the order is created then.`,
  );
  log.warn('order creation refused because of a setting; awaiting repair', { setting });
  if (await condition(() => state.creationRetried, Math.max(deadline - Date.now(), 1))) {
    state.resumeCreating();
    return;
  }
  throw applicationFailure(
    'ORDER_REJECTED',
    `Order could not be created: ${reason}; ${setting} was not fixed before the repair deadline`,
  );
}
