/**
 * The peer: the badge order a user would first write on Temporal with no help from us. One regular activity per
 * step (sign in, stock lookup, create, each upload, all uploads at once), one retry policy for all of them, no
 * payload encryption, no search attributes, no summaries, no holds, no idempotency keys. The bench runs it
 * against the same sandbox, with the same documents and worker settings as badgeOrder.
 *
 * Deterministic workflow code.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { PeerActivities } from './activities';

/** Input of {@link peerOrder}. */
export interface PeerOrderInput {
  readonly stockId?: number;
  readonly vehicle: Record<string, unknown>;
  readonly badge: Record<string, unknown>;
  /** Document paths under the worker's documents root. */
  readonly documents: readonly string[];
}

/** Result of {@link peerOrder}. */
export interface PeerOrderResult {
  readonly orderId: string;
  readonly documents: number;
}

const { signIn, lookUpStock, createOrder, uploadDocument } = proxyActivities<PeerActivities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
  },
});

/** Places one badge order and uploads its documents. */
export async function peerOrder(input: PeerOrderInput): Promise<PeerOrderResult> {
  const { token, userId } = await signIn();
  const withStock = input.stockId !== undefined && (await lookUpStock({ token, stockId: input.stockId }));
  const { orderId } = await createOrder({
    token,
    vehicle: input.vehicle,
    badge: input.badge,
    ...(withStock && { stockId: input.stockId }),
  });
  await Promise.all(input.documents.map((path) => uploadDocument({ token, userId, orderId, path })));
  return { orderId, documents: input.documents.length };
}
