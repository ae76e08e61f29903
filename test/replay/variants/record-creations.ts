/**
 * A workflow interceptor for replay tests: reports the stock every `createOrder` is scheduled with through the
 * `creations` sink (called during replay too), so a test sees what the replayed code asks the platform for.
 */
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** The sink the interceptor reports to. */
export interface CreationSinks extends Sinks {
  creations: { created(stockId: string | number | null): void };
}

const { creations } = proxySinks<CreationSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity(input, next) {
        if (input.activityType === 'createOrder') {
          const [order] = input.args as [{ stockId?: string | number }];
          creations.created(order.stockId ?? null);
        }
        return next(input);
      },
    },
  ],
});
