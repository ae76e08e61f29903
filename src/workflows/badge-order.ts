/**
 * The `badgeOrder` workflow: authenticate, optionally check the stock, create the order (falling back to no
 * stock on 404), then upload every document linked to the order id. A document that fails for good does not
 * fail the order: the order waits in `AwaitingRepair` for `retryUploads`, `replaceDocument` or the nightly
 * replay, until its repair deadline.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  BadgeOrderId,
  BadgeOrderRef,
  BadgeOrderStatus,
  formatIssues,
  replaceDocumentInputSchema,
  replaceDocumentUpdate,
  retryUploadsSignal,
  statusQuery,
  badgeOrderInputSchema,
  type BadgeOrderInput,
  type BadgeOrderPhase,
  type BadgeOrderResult,
  type BadgeOrderStatusValue,
  type BadgeOrderStatusView,
  type DocumentState,
  type ReplaceDocumentInput,
  type ValidBadgeOrderInput,
} from '../contract';
import { PLATFORM_FAILURE_TYPES, SERVICE_FAILURE_TYPES } from '../failure-types';
import {
  DEFAULT_ORDER_OPTIONS,
  INSPECT_DOCUMENT_OPTIONS,
  platformCallOptions,
  uploadOptions,
} from './activity-options';
import { describeFailure, failureType, activityAttempts } from './failures';
import { DocumentTracker, type UploadJob } from './document-tracker';
import { runWithConcurrency } from '../concurrency';

type Activities = ReturnType<typeof createActivities>;

/** Validates the input inside the workflow too: a caller may start it without our starter. */
function validateInput(input: BadgeOrderInput): ValidBadgeOrderInput {
  const parsed = badgeOrderInputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.create({
    type: SERVICE_FAILURE_TYPES.invalidInput,
    message: `Invalid badge order input: ${formatIssues(parsed.error).join('; ')}`,
    nonRetryable: true,
  });
}

/** Places one badge order and uploads its documents. */
export async function badgeOrder(rawInput: BadgeOrderInput): Promise<BadgeOrderResult> {
  const { workflowId } = workflowInfo();
  let searchStatus = 'Running' as BadgeOrderStatusValue;
  const setSearchStatus = (status: BadgeOrderStatusValue): void => {
    searchStatus = status;
    upsertSearchAttributes([{ key: BadgeOrderStatus, value: status }]);
  };

  let input: ValidBadgeOrderInput;
  try {
    input = validateInput(rawInput);
  } catch (error) {
    setSearchStatus('Failed');
    throw error;
  }
  const options = { ...DEFAULT_ORDER_OPTIONS, ...input.options };
  const documents = new DocumentTracker(input.documents, workflowId);
  let phase: BadgeOrderPhase = 'authenticating';
  let orderId: number | null = null;
  let stockFallbackReason: string | null = null;
  let repairDeadline: number | null = null;
  let failure: string | null = null;

  // Each step carries a summary, so the Web UI's timeline says what it is (refs and ids only: no personal data).
  const platformCallOptionsForOrder = platformCallOptions(options.platformRetryWindowMs);
  const step = (summary: string): Activities =>
    proxyActivities<Activities>({ ...platformCallOptionsForOrder, summary });
  const inspector = proxyActivities<Activities>({
    ...INSPECT_DOCUMENT_OPTIONS,
    summary: 'Check replacement file',
  });

  const statusView = (): BadgeOrderStatusView => ({
    orderRef: input.orderRef,
    phase,
    searchStatus,
    orderId,
    stockFallback: stockFallbackReason !== null,
    stockFallbackReason,
    documents: documents.view(),
    repairDeadline: repairDeadline === null ? null : new Date(repairDeadline).toISOString(),
    failure,
  });
  setHandler(statusQuery, statusView);

  setHandler(retryUploadsSignal, () => {
    const count = documents.retryFailed();
    log.info('retryUploads received', { documentsQueued: count });
  });

  setHandler(
    replaceDocumentUpdate,
    async (replacement: ReplaceDocumentInput): Promise<DocumentState> => {
      // The file must exist under DOCUMENTS_ROOT; only an activity can look at the disk.
      try {
        await inspector.inspectDocument({ path: replacement.newPath });
      } catch (error) {
        if (isCancellation(error)) throw error;
        throw ApplicationFailure.create({
          type: SERVICE_FAILURE_TYPES.invalidDocument,
          message: `newPath: ${describeFailure(error)}`,
          nonRetryable: true,
        });
      }
      const current = documents.find(replacement.path);
      if (current?.status !== 'failed') {
        throw ApplicationFailure.create({
          type: SERVICE_FAILURE_TYPES.invalidInput,
          message: `Document ${replacement.path} is ${current?.status ?? 'unknown'} now; only a failed one can be replaced`,
          nonRetryable: true,
        });
      }
      documents.replace(replacement.path, replacement.newPath, replacement.contentType);
      await condition(() => {
        const status = documents.find(replacement.path)?.status;
        return status === 'uploaded' || status === 'failed';
      });
      const updated = documents.find(replacement.path);
      if (!updated) throw new Error(`document ${replacement.path} vanished`);
      return updated;
    },
    {
      validator: (replacement: ReplaceDocumentInput): void => {
        const parsed = replaceDocumentInputSchema.safeParse(replacement);
        if (!parsed.success)
          throw new Error(`Invalid replaceDocument input: ${formatIssues(parsed.error).join('; ')}`);
        const document = documents.find(replacement.path);
        if (!document) throw new Error(`path: no document ${replacement.path} in this order`);
        if (document.status !== 'failed') {
          throw new Error(
            `path: document ${replacement.path} is ${document.status}; only a failed one can be replaced`,
          );
        }
      },
    },
  );

  upsertSearchAttributes([
    { key: BadgeOrderRef, value: input.orderRef },
    { key: BadgeOrderStatus, value: searchStatus },
  ]);

  const failOrder = (error: ApplicationFailure): never => {
    phase = 'failed';
    failure = error.message;
    setSearchStatus('Failed');
    setCurrentDetails(`Failed: ${error.message}`);
    throw error;
  };

  try {
    // 1. Authenticate: warms the worker's token cache; only non-secret facts come back.
    const session = await step('Authenticate against the platform').authenticate();
    const documentOwner = input.documentOwner ?? session.userId;
    if (documentOwner === null && input.documents.length > 0) {
      failOrder(
        ApplicationFailure.create({
          type: SERVICE_FAILURE_TYPES.invalidInput,
          message: 'documentOwner: required, because the platform token names no user id',
          nonRetryable: true,
        }),
      );
    }

    // 2. Check the stock when one is asked for; an unlisted stock means ordering without one.
    let stockId: string | number | null = input.stockId ?? null;
    if (stockId !== null) {
      phase = 'checking-stock';
      const stock = await step(`Look up stock ${stockId}`).lookUpStock({ stockId });
      if (!stock.listed) {
        stockFallbackReason = `stock ${stockId} is not among the user's ${stock.stockCount} stocks`;
        stockId = null;
      }
    }

    // 3. Create the order; a 404 for the stock means ordering again without it.
    phase = 'creating-order';
    orderId = await createOrder();

    async function createOrder(): Promise<number> {
      const order = { vehicle: input.vehicle, badge: input.badge };
      try {
        if (stockId !== null) {
          try {
            return (
              await step(`Create order with stock ${stockId}`).createOrder({
                ...order,
                stockId,
                idempotencyKey: `${workflowId}:create`,
              })
            ).orderId;
          } catch (error) {
            if (failureType(error) !== PLATFORM_FAILURE_TYPES.stockNotFound) throw error;
            stockFallbackReason = `the platform answered 404 for stock ${stockId}`;
            stockId = null;
          }
        }
        return (
          await step('Create order without stock').createOrder({
            ...order,
            idempotencyKey: `${workflowId}:create:without-stock`,
          })
        ).orderId;
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
        return failOrder(
          ApplicationFailure.create({
            type: SERVICE_FAILURE_TYPES.orderRejected,
            message: `Order could not be created: ${describeFailure(error)}`,
            nonRetryable: true,
            cause: error,
          }),
        );
      }
    }
    upsertSearchAttributes([{ key: BadgeOrderId, value: String(orderId) }]);
    log.info('order created', { orderId, stockFallback: stockFallbackReason !== null });

    // 4. Upload the documents; failures wait for repair instead of failing the order.
    const createdOrderId = orderId;
    const uploadActivityOptions = uploadOptions({
      retryWindowMs: options.uploadRetryWindowMs,
      heartbeatTimeoutMs: options.uploadHeartbeatTimeoutMs,
    });
    const documentCount = input.documents.length;
    const uploader = (job: UploadJob): Activities =>
      proxyActivities<Activities>({
        ...uploadActivityOptions,
        summary: `Upload document ${job.index + 1}/${documentCount} to order ${createdOrderId}`,
      });
    const upload = async (job: UploadJob): Promise<void> => {
      documents.markUploading(job.path);
      try {
        const result = await uploader(job).uploadDocument({
          idempotencyKey: job.idempotencyKey,
          orderId: createdOrderId,
          documentOwner: documentOwner ?? '',
          path: job.sourcePath,
          contentType: job.contentType,
          filename: job.filename,
        });
        documents.markUploaded(job.path, result.links, result.attempt);
      } catch (error) {
        if (isCancellation(error)) throw error;
        documents.markFailed(job.path, describeFailure(error), activityAttempts(error));
      }
    };

    for (;;) {
      if (documents.hasPending()) {
        phase = 'uploading';
        if (searchStatus !== 'Running') setSearchStatus('Running');
        setCurrentDetails(`Uploading documents for order ${createdOrderId}`);
        await runWithConcurrency(documents.pendingJobs(), options.maxParallelUploads, upload);
        continue;
      }
      if (documents.allUploaded()) break;

      // Some documents failed for good: wait for an operator, the nightly replay, or the deadline.
      phase = 'awaiting-repair';
      repairDeadline ??= Date.now() + options.repairWindowMs;
      setSearchStatus('AwaitingRepair');
      const failedPaths = documents.failed().map((document) => document.path);
      setCurrentDetails(
        `Awaiting repair: ${failedPaths.length} document(s) failed. Signal retryUploads or update replaceDocument ` +
          `before ${new Date(repairDeadline).toISOString()}.`,
      );
      const repaired = await condition(
        () => documents.hasPending(),
        Math.max(repairDeadline - Date.now(), 1),
      );
      if (!repaired) {
        const failed = documents.failed();
        failOrder(
          ApplicationFailure.create({
            type: SERVICE_FAILURE_TYPES.repairDeadlinePassed,
            message: `Repair deadline passed with ${failed.length} document(s) still failing: ${failed
              .map((document) => `${document.path} (${document.lastError ?? 'unknown error'})`)
              .join('; ')}`,
            nonRetryable: true,
            details: [{ orderId: createdOrderId, failedDocuments: failed.map((document) => document.path) }],
          }),
        );
      }
    }

    // Let a replaceDocument update that is still running return its answer before the workflow completes.
    await condition(allHandlersFinished);
    phase = 'completed';
    setSearchStatus('Completed');
    setCurrentDetails(`Completed: order ${createdOrderId}, ${input.documents.length} document(s) uploaded`);
    return {
      orderRef: input.orderRef,
      orderId: createdOrderId,
      stockId,
      stockFallback: stockFallbackReason !== null,
      stockFallbackReason,
      documents: documents.view().map((document) => ({
        path: document.path,
        status: 'uploaded' as const,
        links: document.links ?? { original: null, thumbnail: null, download: null },
      })),
    };
  } catch (error) {
    // Whatever ends the run, operators must see it in the BadgeOrderStatus search attribute.
    if (searchStatus !== 'Failed') {
      phase = 'failed';
      failure = describeFailure(error);
      setSearchStatus(isCancellation(error) ? 'Cancelled' : 'Failed');
    }
    throw error;
  }
}
