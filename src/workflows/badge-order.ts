/**
 * The `badgeOrder` workflow, as its story: sign in, check the stock, place the order once, upload the
 * documents, wait for repair while some fail, finish. Each step is a small function over one state object
 * (`OrderState`); the handlers operators use are in `order-handlers.ts`.
 */
import type { ApplicationFailure } from '@temporalio/workflow';
import {
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  metricMeter,
  patched,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  BadgeOrderInput,
  BadgeOrderResult,
  ResolvedBadgeOrderOptions,
  ValidBadgeOrderInput,
} from '../contract';
import { BadgeOrderId, BadgeOrderRef, BadgeOrderStatus } from '../workflow-contract';
import { statusQuery } from '../workflow-messages';
import type { AuthenticateResult, LookUpStockResult } from '../activities/types';
import { applicationFailure } from '../failure-types';
import { METRIC_NAMES } from '../metrics/names';
import { applicationCause, describeFailure, failedWith, failureType } from './failures';
import { registerOrderHandlers } from './order-handlers';
import { withDefaultOptions, type ResolvedBadgeOrderInput } from '../order-options';
import { startingView } from './order-input';
import { contractSchemas } from './contract-schemas';
import { idText, OrderState, type OrderContinuation } from './order-state';
import { PATCHES } from './patches';
import { placeOrder } from './place-order';
import { inputResolver, inputResolverWithSignIn, nonCancellable, orderSteps, type OrderSteps } from './steps';
import { awaitRepair, uploadPendingDocuments } from './upload-documents';
import { OrderWebhooks } from './webhooks';

/** Which changes this run has: asked once, in the run's first activation (see src/workflows/patches.ts). */
interface RunPatches {
  readonly resolvedInputRecorded: boolean;
  readonly localPlatformReads: boolean;
  readonly inputWithSignIn: boolean;
  readonly stockLookupAdvisory: boolean;
  readonly uncertainCreationHeld: boolean;
  readonly fixes070: boolean;
}

function askPatches(): RunPatches {
  // The newest patch implies the earlier ones: a new order records one patch marker, not six.
  const fixes070 = patched(PATCHES.fixes070);
  const uncertainCreationHeld = fixes070 || patched(PATCHES.uncertainCreationHeld);
  const stockLookupAdvisory = uncertainCreationHeld || patched(PATCHES.stockLookupAdvisory);
  const inputWithSignIn = stockLookupAdvisory || patched(PATCHES.inputWithSignIn);
  return {
    resolvedInputRecorded: inputWithSignIn || patched(PATCHES.resolvedInputRecorded),
    localPlatformReads: inputWithSignIn || patched(PATCHES.localPlatformReads),
    inputWithSignIn,
    stockLookupAdvisory,
    uncertainCreationHeld,
    fixes070,
  };
}

// An order finishes on the worker version it started on (Worker Deployment Versioning): a new version's code
// never replays a running order's history, so a deploy cannot break it. An unversioned worker may declare none.
setWorkflowOptions(
  () => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'PINNED' } : {}),
  badgeOrder,
);

/**
 * Places one badge order and uploads its documents. `continued` is set only by the workflow itself when a
 * long repair made it continue as new: the order exists, and the run goes on with its documents.
 */
export async function badgeOrder(
  rawInput: BadgeOrderInput,
  continued?: OrderContinuation,
): Promise<BadgeOrderResult> {
  // Before the first await, always: a patch asked later may fall into another workflow task on replay.
  const runPatches = askPatches();
  const { input, firstSession, firstStock } = await resolvedInput(rawInput, continued, runPatches);
  const options: ResolvedBadgeOrderOptions = input.options;
  const steps = orderSteps({ ...options, localReads: runPatches.localPlatformReads });
  const webhooks = new OrderWebhooks(input, continued?.webhooks);
  const state: OrderState = new OrderState(
    input,
    workflowInfo().workflowId,
    (status) => {
      upsertSearchAttributes([{ key: BadgeOrderStatus, value: status }]);
      webhooks.statusChanged(status, state);
    },
    continued,
  );
  state.webhooksView = () => webhooks.view();
  registerOrderHandlers(state, steps, {
    replacementGraceMs: options.replacementGraceMs,
    ownerCorrectionKeepsHeld: runPatches.fixes070,
  });
  publishAtStart(
    [
      { key: BadgeOrderRef, value: input.orderRef },
      { key: BadgeOrderStatus, value: state.status },
      ...(continued ? [{ key: BadgeOrderId, value: idText(continued.orderId) }] : []),
    ],
    runPatches,
  );
  try {
    // A session the order's start made already is settled without an await (each costs a promise).
    const session = continued ?? settleSession(state, firstSession ?? (await signIn(state, steps)));
    const orderId = continued
      ? idText(continued.orderId)
      : await orderOnce(state, { steps, session, options, runPatches, firstStock });
    await uploadUntilAllStored(state, {
      steps,
      orderId,
      maxParallelUploads: options.maxParallelUploads,
      repairWindowMs: options.repairWindowMs,
      historyBudgetEvents: options.historyBudgetEvents,
      uploadsBeforeContinuing: runPatches.fixes070,
      continueWith: () =>
        state.continuation({
          keysHonoured: session.keysHonoured,
          runs: (continued?.runs ?? 0) + 1,
          webhooks: webhooks.continuation(),
        }),
      beforeContinuing: () => webhooks.settled(),
      input,
    });
    // Let a replaceDocument update that is still running return its answer before the workflow completes.
    if (!allHandlersFinished()) await condition(allHandlersFinished);
    const result = finish(state, orderId);
    if (webhooks.delivering) await webhooks.settled();
    return result;
  } catch (error) {
    // Continuing as new is not an end: it passes through untouched.
    if (error instanceof ContinueAsNew) throw error;
    // Whatever ends the run, operators must see it in the BadgeOrderStatus search attribute.
    webhooks.failureType = failureType(error) ?? null;
    state.ended(isCancellation(error) ? 'Cancelled' : 'Failed', describeFailure(error));
    setCurrentDetails(`${state.status}: ${state.failure ?? ''}`);
    // The last event is delivered before the run ends; its failure is the receiver's, never the order's.
    if (webhooks.delivering) await webhooks.settled();
    throw error;
  }
}

/**
 * The resolved input, the session of a first sign-in made with it (null: the order signs in itself), and the
 * stock lookup's answer made with that session (null: the order looks the stock up itself, if it names one).
 */
interface StartingInput {
  readonly input: ResolvedBadgeOrderInput;
  readonly firstSession: AuthenticateResult | null;
  readonly firstStock: LookUpStockResult | null;
}

/**
 * The order's input, validated (a caller may start the workflow without our starter) and with its options
 * resolved — once: a new order asks a local activity, whose answer history records, so replay on a later
 * release neither parses the input with that release's schema nor takes its defaults. Since 0.3.0 the same
 * activity makes a first sign-in, and since 0.5.0 a first stock lookup. A run continued by such a run gets the
 * resolved input as its own input.
 *
 * The stock lookup needs no patch: whether the order looks the stock up in a step of its own follows from the
 * activity's recorded answer (a `stock` or none), which replay gives back as it was. Histories recorded before
 * hold none, so they replay their own lookup step; and the input that asks for it is not compared on replay.
 */
function resolvedInput(
  rawInput: BadgeOrderInput,
  continued: OrderContinuation | undefined,
  runPatches: RunPatches,
): StartingInput | Promise<StartingInput> {
  if (continued?.inputResolved === true) {
    return { input: rawInput as ResolvedBadgeOrderInput, firstSession: null, firstStock: null };
  }
  if (runPatches.resolvedInputRecorded) {
    // The status query answers from the first moment; the order's handlers replace this one.
    setHandler(statusQuery, () => startingView(rawInput));
    const refused = (error: unknown): never => {
      if (!failedWith(error, 'INVALID_INPUT')) {
        // Whatever ends the run, operators must see it in BadgeOrderStatus (orders before 0.7.0 left it Running).
        if (runPatches.fixes070) upsertSearchAttributes([{ key: BadgeOrderStatus, value: 'Failed' }]);
        throw error;
      }
      // The activity's INVALID_INPUT message names every field.
      throw invalidInput(applicationCause(error)?.message ?? String(error));
    };
    // Not cancellable (it takes a moment): a cancellation takes effect at the first step, which records it.
    return nonCancellable(() =>
      runPatches.inputWithSignIn
        ? firstStep(rawInput, runPatches).then(
            (started) => ({
              input: started.input,
              firstSession: started.session,
              firstStock: started.stock ?? null,
            }),
            refused,
          )
        : inputResolver
            .resolveOrderInput({ input: rawInput })
            .then((input) => ({ input, firstSession: null, firstStock: null }), refused),
    );
  }
  // Orders started before 0.2.0 (and runs they continued): as they ran then, parsed in workflow code.
  const valid = validateInput(rawInput);
  return {
    input: { ...valid, options: withDefaultOptions(valid.options) },
    firstSession: null,
    firstStock: null,
  };
}

/**
 * The order's first step since 0.3.0: resolve the input and sign in; since 0.5.0 also look the stock up when the
 * order names one and its lookup only advises (every new order). One decision gives the input and the summary.
 */
function firstStep(rawInput: BadgeOrderInput, runPatches: RunPatches) {
  // Read defensively: a caller may start the workflow without our starter, with anything as its input.
  const stockId: unknown = (rawInput as { stockId?: unknown } | null | undefined)?.stockId;
  const lookUpStock =
    runPatches.stockLookupAdvisory && (typeof stockId === 'string' || typeof stockId === 'number');
  return inputResolverWithSignIn(
    lookUpStock
      ? `Validate the order input, resolve its options, sign in and look up stock ${String(stockId)}`
      : 'Validate the order input, resolve its options and sign in',
  ).resolveInputAndSignIn({ input: rawInput, ...(lookUpStock && { lookUpStock }) });
}

/** The order ends at once as Failed with INVALID_INPUT: a clean failure, never a failing workflow task. */
function invalidInput(message: string): ApplicationFailure {
  upsertSearchAttributes([{ key: BadgeOrderStatus, value: 'Failed' }]);
  return applicationFailure('INVALID_INPUT', message);
}

/** Validates the input in workflow code: the path of orders started before the input was recorded. */
function validateInput(input: BadgeOrderInput): ValidBadgeOrderInput {
  const { badgeOrderInputSchema, formatIssues } = contractSchemas();
  const parsed = badgeOrderInputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw invalidInput(`Invalid badge order input: ${formatIssues(parsed.error).join('; ')}`);
}

/** Publishes the run's search attributes, unless the start (our starter, continue-as-new) set them already. */
function publishAtStart(
  attributes: { key: typeof BadgeOrderRef; value: string }[],
  runPatches: RunPatches,
): void {
  const started = workflowInfo().typedSearchAttributes;
  const unchanged = attributes.every(({ key, value }) => started.get(key) === value);
  if (unchanged && runPatches.localPlatformReads) return;
  upsertSearchAttributes(attributes);
}

/** Signs in, warming the worker's token cache: for orders whose start did not (before 0.3.0). */
async function signIn(state: OrderState, steps: OrderSteps): Promise<AuthenticateResult> {
  state.phase = 'authenticating';
  return steps.platformRead('Authenticate against the platform').authenticate();
}

/**
 * Settles whose documents these are: the order's own `documentOwner`, else what the worker read from its
 * configuration and the token (sessions recorded before 0.4.0 carry only the token's `sub`, which those orders
 * used).
 */
function settleSession(state: OrderState, session: AuthenticateResult): { keysHonoured: boolean } {
  state.phase = 'authenticating';
  const fromPlatform =
    session.documentOwner === undefined
      ? { id: session.userId, source: 'token sub' }
      : { id: session.documentOwner, source: session.documentOwnerSource ?? 'token' };
  const owner =
    state.input.documentOwner === undefined
      ? fromPlatform
      : // Inputs recorded before 0.4.0 may hold a number.
        { id: idText(state.input.documentOwner), source: 'input' };
  if (owner.id === null && state.input.documents.length > 0) {
    throw applicationFailure(
      'INVALID_INPUT',
      `documentOwner: required, because the platform token names no user id (${fromPlatform.source}); set BADGE_USER_ID_CLAIM or BADGE_DOCUMENT_OWNER on the workers, or give documentOwner`,
    );
  }
  state.documentOwner = { id: owner.id ?? '', source: owner.source };
  // Sessions recorded before the setting existed carry no value: treat the platform as unknown.
  return { keysHonoured: session.idempotencyKeys === 'honoured' };
}

/** Checks the stock, places the order exactly once and publishes its id. */
async function orderOnce(
  state: OrderState,
  run: {
    readonly steps: OrderSteps;
    readonly session: { keysHonoured: boolean };
    readonly options: ResolvedBadgeOrderOptions;
    readonly runPatches: RunPatches;
    readonly firstStock: LookUpStockResult | null;
  },
): Promise<string> {
  // A lookup the order's start made already is taken without an await (each costs a promise).
  const lookingUp = checkStock(state, run);
  if (lookingUp) await lookingUp;
  const orderId = await placeOrder(state, {
    steps: run.steps,
    keysHonoured: run.session.keysHonoured,
    retryWindowMs: run.options.platformRetryWindowMs,
    reconciliationWindowMs: run.options.reconciliationWindowMs,
    holdsUncertainCreation: run.runPatches.uncertainCreationHeld,
    restartsWindowWhenResumed: run.runPatches.fixes070,
  });
  upsertSearchAttributes([{ key: BadgeOrderId, value: orderId }]);
  log.info('order created', { orderId, stockFallback: state.stockFallbackReason !== null });
  countStockAdvice(state);
  return orderId;
}

/**
 * Looks the requested stock up in the user's stock list, unless the order's start did. The answer only
 * advises (the status view, a log line, the `badge_stock_advice` metric): the order is sent with the stock,
 * and only creation's 404 leaves it out. Orders started before 0.4.0 ordered without a stock that a complete
 * list lacked, and replay so.
 */
function checkStock(
  state: OrderState,
  run: {
    readonly steps: OrderSteps;
    readonly runPatches: RunPatches;
    readonly firstStock: LookUpStockResult | null;
  },
): Promise<void> | undefined {
  const stockId = state.stockId;
  if (stockId === null) return undefined;
  const take = (stock: LookUpStockResult): void => {
    if (!run.runPatches.stockLookupAdvisory) {
      if (stock.listed === false) {
        state.fallBackFromStock(
          `stock ${stockId} is not among the user's ${stock.stockCount ?? 'listed'} stocks`,
        );
      }
      return;
    }
    state.stockAdvice = {
      verdict: stock.listed === null ? 'unknown' : stock.listed ? 'listed' : 'unlisted',
      stockCount: stock.stockCount,
    };
    log.info('stock lookup (advice only: order creation decides)', { stockId, ...state.stockAdvice });
  };
  if (run.firstStock !== null) {
    take(run.firstStock);
    return undefined;
  }
  state.phase = 'checking-stock';
  return run.steps.platformRead(`Look up stock ${stockId}`).lookUpStock({ stockId }).then(take);
}

/** Counts what the stock lookup advised against what the platform did with the stock (advised orders only). */
function countStockAdvice(state: OrderState): void {
  if (state.stockAdvice === null) return;
  metricMeter
    .createCounter(METRIC_NAMES.stockAdvice, '1', 'Stock lookups by advice and by what order creation did')
    .add(1, {
      advice: state.stockAdvice.verdict,
      platform: state.stockId === null ? 'refused' : 'accepted',
    });
}

/**
 * Uploads until every document is stored, waiting for repair whenever some failed for good. Each repair cycle
 * adds history; before waiting once more, a run past its history budget (or told so by the server)
 * continues as new with the order's state, once every handler has answered.
 */
async function uploadUntilAllStored(
  state: OrderState,
  settings: {
    steps: OrderSteps;
    orderId: string;
    maxParallelUploads: number;
    repairWindowMs: number;
    historyBudgetEvents: number;
    /**
     * Whether a run about to continue as new uploads what a handler queued meanwhile (orders since 0.7.0): a
     * `replaceDocument` waits for its upload, which only this loop makes.
     */
    uploadsBeforeContinuing: boolean;
    continueWith: () => OrderContinuation;
    /** Waits for what must end before the run continues as new (webhook deliveries). */
    beforeContinuing: () => Promise<void>;
    /** The resolved input, which the next run takes as it is. */
    input: ResolvedBadgeOrderInput;
  },
): Promise<void> {
  for (;;) {
    if (state.documents.hasPending()) {
      await uploadPendingDocuments(state, settings);
      continue;
    }
    if (state.documents.allUploaded()) return;
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength >= settings.historyBudgetEvents) {
      await settings.beforeContinuing();
      await condition(
        settings.uploadsBeforeContinuing
          ? () => allHandlersFinished() || state.documents.hasPending()
          : allHandlersFinished,
      );
      // A handler may have queued documents meanwhile: upload them in this run.
      if (state.documents.hasPending()) continue;
      log.info('continuing as new while awaiting repair', { historyLength: info.historyLength });
      await continueAsNew<typeof badgeOrder>(settings.input, settings.continueWith());
    }
    await awaitRepair(state, settings.repairWindowMs);
  }
}

/** Completes the order (every handler has answered). */
function finish(state: OrderState, orderId: string): BadgeOrderResult {
  state.phase = 'completed';
  state.setStatus('Completed');
  setCurrentDetails(`Completed: order ${orderId}, ${state.documents.count} document(s) uploaded`);
  return {
    orderRef: state.input.orderRef,
    orderId,
    stockId: state.stockId,
    stockFallback: state.stockFallbackReason !== null,
    stockFallbackReason: state.stockFallbackReason,
    documents: state.documents.view().map((document) => ({
      path: document.path,
      status: 'uploaded' as const,
      documentId: document.documentId,
      links: document.links ?? { original: null, thumbnail: null },
      possibleDuplicate: document.possibleDuplicate,
    })),
  };
}
