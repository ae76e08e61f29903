/**
 * The floor's activities: the same names as the badge order activities, doing nothing. They return at once
 * with results of the same kind, so what the floor measures is Temporal's own cost of running the steps.
 */

/** Input of the floor's `createOrder`: the order data travels as the badge order's does. */
export interface FloorCreateOrderInput {
  readonly idempotencyKey: string;
  readonly vehicle: Record<string, unknown>;
  readonly badge: Record<string, unknown>;
  readonly stockId?: string | number;
}

/** Input of the floor's `uploadDocument`: the same fields as the badge order's. */
export interface FloorUploadInput {
  readonly idempotencyKey: string;
  readonly orderId: number;
  readonly documentOwner: string | number;
  readonly path: string;
}

/** Creates the no-op activities (a factory, like `createActivities`, so both workers are built alike). */
export function createFloorActivities() {
  let nextOrderId = 1;
  return {
    /** Does nothing; answers like `authenticate`. */
    authenticate(): Promise<{ userId: string | null; expiresAt: string | null }> {
      return Promise.resolve({ userId: '4711', expiresAt: null });
    },
    /** Does nothing; answers like `lookUpStock`. */
    lookUpStock(_input: { stockId: string | number }): Promise<{ listed: boolean; stockCount: number }> {
      return Promise.resolve({ listed: true, stockCount: 1 });
    },
    /** Does nothing; answers like `createOrder`. */
    createOrder(_input: FloorCreateOrderInput): Promise<{ orderId: number }> {
      return Promise.resolve({ orderId: nextOrderId++ });
    },
    /** Does nothing; answers like `uploadDocument`. */
    uploadDocument(_input: FloorUploadInput): Promise<{
      links: { original: null; thumbnail: null; download: null };
      sizeBytes: number;
      attempt: number;
    }> {
      return Promise.resolve({
        links: { original: null, thumbnail: null, download: null },
        sizeBytes: 0,
        attempt: 1,
      });
    },
  };
}

/** The floor's activity functions, for the workflow's `proxyActivities`. */
export type FloorActivities = ReturnType<typeof createFloorActivities>;
