/**
 * The badge order activities: one per platform step, built from their dependencies by `createActivities` in
 * the worker. Each converts its errors to `ApplicationFailure`s at the boundary.
 */
import { basename } from 'node:path';
import { Context } from '@temporalio/activity';
import type { PlatformClient } from '../platform';
import type { DocumentsRoot } from '../documents';
import { toApplicationFailure } from './to-application-failure';
import type {
  AuthenticateResult,
  CreateOrderInput,
  CreateOrderResult,
  InspectDocumentInput,
  InspectDocumentResult,
  LookUpStockInput,
  LookUpStockResult,
  UploadDocumentInput,
  UploadDocumentResult,
} from './types';
import { hasStock } from '../platform';

export type * from './types';

/** What the activities need; built once per worker process. */
export interface ActivityDependencies {
  readonly platform: PlatformClient;
  readonly documentsRoot: DocumentsRoot;
  /** Least time between two upload heartbeats (the SDK throttles further). @default 1000 */
  readonly heartbeatIntervalMs?: number;
}

async function atBoundary<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toApplicationFailure(error, Context.current().info.attempt);
  }
}

/** Creates the activity functions the worker registers. */
export function createActivities(deps: ActivityDependencies) {
  const heartbeatIntervalMs = deps.heartbeatIntervalMs ?? 1_000;
  return {
    /** Warms this worker's token cache; returns only non-secret facts. */
    async authenticate(): Promise<AuthenticateResult> {
      return atBoundary(async () => {
        const session = await deps.platform.authenticate();
        return { userId: session.userId, expiresAt: session.expiresAt?.toISOString() ?? null };
      });
    },

    /** Tells whether the user's stocks list the given stock. */
    async lookUpStock(input: LookUpStockInput): Promise<LookUpStockResult> {
      return atBoundary(async () => {
        const list = await deps.platform.listStocks();
        return { listed: hasStock(list, input.stockId), stockCount: list.stocks.length };
      });
    },

    /** Creates the order; the idempotency key makes a repeat return the same order. */
    async createOrder(input: CreateOrderInput): Promise<CreateOrderResult> {
      return atBoundary(async () => {
        const payload = {
          vehicle: input.vehicle,
          badge: input.badge,
          ...(input.stockId === undefined ? {} : { stock_id: input.stockId }),
        };
        const order = await deps.platform.createOrder({ payload, idempotencyKey: input.idempotencyKey });
        return { orderId: order.orderId };
      });
    },

    /** Checks that a file exists under DOCUMENTS_ROOT and may be uploaded. */
    async inspectDocument(input: InspectDocumentInput): Promise<InspectDocumentResult> {
      return atBoundary(async () => {
        const document = await deps.documentsRoot.resolve(input.path);
        return { sizeBytes: document.sizeBytes };
      });
    },

    /** Streams one document to the platform, heartbeating its progress. */
    async uploadDocument(input: UploadDocumentInput): Promise<UploadDocumentResult> {
      const context = Context.current();
      return atBoundary(async () => {
        const document = await deps.documentsRoot.resolve(input.path);
        // Heartbeat on a timer, not only on progress: the platform may take long to answer after the last byte,
        // and the heartbeat says this worker is alive (a dead worker's upload is retried after the timeout).
        let bytesSent = 0;
        const beat = (): void => context.heartbeat({ bytesSent, sizeBytes: document.sizeBytes });
        beat();
        const timer = setInterval(beat, heartbeatIntervalMs);
        let uploaded;
        try {
          uploaded = await deps.platform.uploadDocument({
            filePath: document.absolutePath,
            orderId: input.orderId,
            documentOwner: input.documentOwner,
            idempotencyKey: input.idempotencyKey,
            contentType: input.contentType,
            filename: input.filename ?? basename(input.path),
            signal: context.cancellationSignal,
            onProgress: (sent) => {
              bytesSent = sent;
            },
          });
        } finally {
          clearInterval(timer);
        }
        return { links: uploaded.links, sizeBytes: document.sizeBytes, attempt: context.info.attempt };
      });
    },
  };
}
