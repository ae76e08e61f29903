/**
 * The messages an order answers: the `status` query, the `retryUploads` signal and the `replaceDocument`,
 * `reconcileOrder`, `reconcileDocument` and `setDocumentOwner` updates. Validators refuse what cannot apply now,
 * so a refused update leaves no trace in history; once the order has ended (its run may still deliver its last
 * webhooks), they refuse every update.
 */
import { condition, isCancellation, log, setHandler } from '@temporalio/workflow';
import type {
  DocumentState,
  ReconcileDocumentInput,
  ReconcileOrderInput,
  ReplaceDocumentInput,
  SetDocumentOwnerInput,
} from '../contract';
import { applicationFailure } from '../failure-types';
import * as messages from '../workflow-messages';
import { contractSchemas } from './contract-schemas';
import { describeFailure } from './failures';
import type { OrderState } from './order-state';
import type { OrderSteps } from './steps';

/** Registers every handler of a badge order on its state. */
export function registerOrderHandlers(
  state: OrderState,
  steps: OrderSteps,
  settings: {
    readonly replacementGraceMs: number;
    /** `setDocumentOwner` leaves held documents held (orders since 0.7.0). */
    readonly ownerCorrectionKeepsHeld: boolean;
  },
): void {
  setHandler(messages.statusQuery, () => state.view());

  setHandler(messages.retryUploadsSignal, (options) => {
    // Signals recorded before 0.6.0 carry no argument: they queued every failed document.
    const skipHeld = options?.skipHeld === true;
    const count = state.documents.requeueFailed({ newKeys: false, skipHeld });
    // A creation refused because of a setting is sent again too, once the operator fixed the setting.
    const creation = state.retryCreation();
    log.info('retryUploads received', { documentsQueued: count, skipHeld, creation });
  });

  setHandler(
    messages.reconcileOrderUpdate,
    (answer: ReconcileOrderInput) => {
      // The order id as its digits: the Web UI sends a string, callers of earlier releases (and their recorded
      // updates) a number. The validator ran before; on replay it does not, and the recorded answer was valid.
      const taken = contractSchemas().reconcileOrderInputSchema.parse(answer);
      state.answerReconciliation(taken);
      log.info('reconcileOrder received', { answer: taken });
      return state.view();
    },
    validated('reconcileOrder', state, () => state.reconcilable()),
  );

  setHandler(
    messages.reconcileDocumentUpdate,
    (answer: ReconcileDocumentInput) => {
      // The id as a string, whatever the caller sent; the validator ran before (not on replay).
      const { path, ...taken } = contractSchemas().reconcileDocumentInputSchema.parse(answer);
      state.documents.reconcile(path, taken);
      log.info('reconcileDocument received', { path, answer: taken });
      return state.view();
    },
    {
      validator: (answer: ReconcileDocumentInput): void => {
        refuseWhenEnded('reconcileDocument', state);
        checkInput('reconcileDocument', answer);
        const document = unclaimedDocument(state, answer.path);
        if (!document.held) {
          throw new Error(
            `reconcileDocument refused: document ${answer.path} ` +
              (document.status === 'failed'
                ? 'failed but is not held: retryUploads or replaceDocument sends it again'
                : `is ${document.status}; only a held document (one the platform may have stored) is answered`),
          );
        }
      },
    },
  );

  setHandler(
    messages.setDocumentOwnerUpdate,
    (correction: SetDocumentOwnerInput) => {
      const documentOwner = correction.documentOwner.trim();
      const queued = state.correctDocumentOwner(documentOwner, {
        keepHeld: settings.ownerCorrectionKeepsHeld,
      });
      log.info('setDocumentOwner received', { documentOwner, documentsQueued: queued });
      return state.view();
    },
    validated('setDocumentOwner', state, () => state.ownerCorrectable()),
  );

  setHandler(
    messages.replaceDocumentUpdate,
    async (replacement: ReplaceDocumentInput): Promise<DocumentState> => {
      // Claimed before the first await: a retryUploads arriving while the file is checked must not upload the
      // old file, and the repair deadline waits for the claim (see awaitRepair).
      state.documents.claim(replacement.path);
      try {
        // The file must exist under DOCUMENTS_ROOT; only an activity can look at the disk.
        const folder = state.input.documentsFolder;
        await steps.inspector.inspectDocument({
          path: replacement.newPath,
          ...(folder === undefined ? {} : { documentsFolder: folder }),
        });
      } catch (error) {
        state.documents.release(replacement.path);
        if (isCancellation(error)) throw error;
        throw applicationFailure('INVALID_DOCUMENT', `newPath: ${describeFailure(error)}`);
      }
      state.documents.replace(replacement.path, replacement.newPath, replacement.contentType);
      state.extendRepairDeadline(Date.now() + settings.replacementGraceMs);
      await condition(() => {
        const status = state.documents.find(replacement.path)?.status;
        return status === 'uploaded' || status === 'failed';
      });
      const updated = state.documents.find(replacement.path);
      if (!updated) throw new Error(`document ${replacement.path} vanished`);
      return updated;
    },
    {
      validator: (replacement: ReplaceDocumentInput): void => {
        refuseWhenEnded('replaceDocument', state);
        checkInput('replaceDocument', replacement);
        const document = unclaimedDocument(state, replacement.path);
        if (document.status !== 'failed') {
          throw new Error(
            `path: document ${replacement.path} is ${document.status}; only a failed one can be replaced`,
          );
        }
      },
    },
  );
}

/** The document `path` names, for a validator: refused when there is none or a replacement is checking it. */
function unclaimedDocument(state: OrderState, path: string): DocumentState {
  const document = state.documents.find(path);
  if (!document) throw new Error(`path: no document ${path} in this order`);
  if (state.documents.isClaimed(path)) throw new Error(`path: document ${path} is being replaced already`);
  return document;
}

/** Refuses every update once the order has ended: its handler would act on an order that is over. */
function refuseWhenEnded(update: UpdateName, state: OrderState): void {
  const reason = state.endedRefusal();
  if (reason !== null) throw new Error(`${update} refused: ${reason}`);
}

/**
 * The validator of an operator's update: the order still running, its input as the contract wants it, and
 * `refusal` (why not now) null.
 */
function validated(
  update: 'reconcileOrder' | 'setDocumentOwner',
  state: OrderState,
  refusal: () => string | null,
): { validator: (input: unknown) => void } {
  return {
    validator: (input) => {
      refuseWhenEnded(update, state);
      checkInput(update, input);
      const reason = refusal();
      if (reason !== null) throw new Error(`${update} refused: ${reason}`);
    },
  };
}

/** The updates an order answers. */
type UpdateName = 'reconcileOrder' | 'setDocumentOwner' | 'replaceDocument' | 'reconcileDocument';

/** Refuses an update whose input the contract refuses, naming every field. */
function checkInput(update: UpdateName, input: unknown): void {
  const schemas = contractSchemas();
  const parsed = schemas[`${update}InputSchema` as const].safeParse(input);
  if (!parsed.success) {
    throw new Error(`Invalid ${update} input: ${schemas.formatIssues(parsed.error).join('; ')}`);
  }
}
