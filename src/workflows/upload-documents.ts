/**
 * Uploading an order's documents, and waiting for repair when some fail for good. A failed document does not
 * fail the order: it waits for `retryUploads`, `replaceDocument` or the nightly replay until the repair
 * deadline.
 */
import { condition, isCancellation, metricMeter, setCurrentDetails } from '@temporalio/workflow';
import { runWithConcurrency } from '../concurrency';
import { applicationFailure } from '../failure-types';
import { METRIC_NAMES } from '../metrics/names';
import {
  activityAttempts,
  attemptOutcome,
  describeFailure,
  isFinalFailure,
  refusedDocumentOwner,
} from './failures';
import type { UploadJob } from './document-tracker';
import type { OrderState } from './order-state';
import type { OrderSteps } from './steps';

/** What uploading needs besides the state. */
interface UploadSettings {
  readonly steps: OrderSteps;
  readonly orderId: string;
  readonly maxParallelUploads: number;
}

/**
 * Uploads every pending document, at most `maxParallelUploads` at once; failures are recorded, not thrown, and
 * each upload's end after all its retries is counted (`badge_documents`; the SDK's workflow meter records nothing
 * while replaying). Promise chains rather than async functions: the SDK captures a stack for every promise
 * workflow code creates, so the count rides on the handlers that record the outcome anyway.
 */
export function uploadPendingDocuments(state: OrderState, settings: UploadSettings): Promise<unknown> {
  state.phase = 'uploading';
  state.setStatus('Running');
  setCurrentDetails(`Uploading documents for order ${settings.orderId}`);
  const documentCount = state.documents.count;
  // Where the order's path documents must lie (an order placed through the HTTP API: its client's folder).
  const folder = state.input.documentsFolder;
  const outcomes = metricMeter.createCounter(
    METRIC_NAMES.documents,
    '1',
    'Document uploads that ended after all retries, by outcome (uploaded, failed, held for a person)',
  );
  const upload = (job: UploadJob): Promise<void> => {
    state.documents.markUploading(job.path);
    // Read per upload: an operator's setDocumentOwner applies to every upload from then on.
    const documentOwner = state.documentOwner?.id ?? '';
    const summary = `Upload document ${job.index + 1}/${documentCount} to order ${settings.orderId}`;
    return settings.steps
      .upload(summary)
      .uploadDocument({
        idempotencyKey: job.idempotencyKey,
        orderId: settings.orderId,
        documentOwner,
        path: job.sourcePath,
        ...(folder === undefined ? {} : { documentsFolder: folder }),
        contentType: job.contentType,
        filename: job.filename,
      })
      .then(
        (result) => {
          outcomes.add(1, { outcome: 'uploaded' });
          state.documents.markUploaded(job.path, {
            documentId: result.documentId ?? null,
            links: { original: result.links.original, thumbnail: result.links.thumbnail },
            attempts: result.attempt,
            possibleDuplicate: result.possibleDuplicate ?? false,
          });
        },
        (error: unknown) => {
          if (isCancellation(error)) throw error;
          const ownerRefused = refusedDocumentOwner(error) && ownerRefusal(state, String(documentOwner));
          const mayHaveBeenStored = attemptOutcome(error) === 'maybe-applied';
          // No attempt follows one that may have stored the file: a person decides (the worker holds such
          // uploads, or the same call would get the same answer).
          const held = mayHaveBeenStored && isFinalFailure(error);
          outcomes.add(1, { outcome: held ? 'held' : 'failed' });
          state.documents.markFailed(job.path, {
            error: ownerRefused
              ? `${describeFailure(error)} — document_owner ${String(documentOwner)} refused: correct it with setDocumentOwner`
              : describeFailure(error),
            attempts: activityAttempts(error),
            mayHaveBeenStored,
            held,
          });
        },
      );
  };
  return runWithConcurrency(state.documents.pendingJobs(), settings.maxParallelUploads, upload);
}

/**
 * Records that the platform refused the owner the upload was sent with, saying what to set (unless an operator
 * has changed the owner meanwhile). Returns whether it applies to the current owner.
 */
function ownerRefusal(state: OrderState, refused: string): boolean {
  const owner = state.documentOwner;
  if (owner === null || String(owner.id) !== refused) return false;
  const orderRef = state.input.orderRef;
  state.documentOwnerRefused =
    `The platform refused document_owner ${refused} (from ${owner.source}). Send the update setDocumentOwner ` +
    `{"documentOwner": "<platform user id>"} (ops set-owner ${orderRef} <id>, or POST ` +
    `/v1/orders/${orderRef}/document-owner): the refused documents are sent again. For new orders set ` +
    'BADGE_USER_ID_CLAIM or BADGE_DOCUMENT_OWNER on the workers (ops probe names the claim).';
  return true;
}

/**
 * Waits until a document is queued again (an operator or the nightly replay), or a person says the platform holds
 * every failed one (`reconcileDocument`), and returns; past the repair deadline the order fails, keeping the
 * order id in the failure's details.
 */
export async function awaitRepair(state: OrderState, repairWindowMs: number): Promise<void> {
  state.phase = 'awaiting-repair';
  state.repairDeadline ??= Date.now() + repairWindowMs;
  const deadline = state.repairDeadline;
  state.setStatus('AwaitingRepair');
  const failed = state.documents.failed();
  const held = failed.filter((document) => document.held).length;
  const summary =
    `Awaiting repair: ${failed.length} document(s) failed.` +
    (held === 0
      ? ''
      : ` ${held} of them may be stored on the platform: check it, then update reconcileDocument ` +
        '{"path", "documentId"} or {"path", "notStored": true}; the nightly replay leaves them.');
  setCurrentDetails(
    state.documentOwnerRefused === null
      ? `${summary} Signal retryUploads or update replaceDocument before ${new Date(deadline).toISOString()}.`
      : `${summary} ${state.documentOwnerRefused} Before ${new Date(deadline).toISOString()}.`,
  );
  // Repaired when a document is queued again, or when a person said the platform holds every held one.
  const repairedNow = () => state.documents.hasPending() || state.documents.allUploaded();
  const repaired = await condition(repairedNow, Math.max(deadline - Date.now(), 1));
  if (repaired) return;
  // A replacement being checked when the deadline passed decides first (it may extend the deadline).
  if (state.documents.hasClaimed()) {
    await condition(() => !state.documents.hasClaimed());
    if (repairedNow()) return;
    if (state.repairDeadline !== null && state.repairDeadline > Date.now()) return;
  }
  const stillFailed = state.documents.failed();
  throw applicationFailure(
    'REPAIR_DEADLINE_PASSED',
    `Repair deadline passed with ${stillFailed.length} document(s) still failing: ${stillFailed
      .map((document) => `${document.path} (${document.lastError ?? 'unknown error'})`)
      .join('; ')}${state.documentOwnerRefused === null ? '' : `. ${state.documentOwnerRefused}`}`,
    { details: [{ orderId: state.orderId, failedDocuments: stillFailed.map((document) => document.path) }] },
  );
}
