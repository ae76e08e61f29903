/**
 * The workflow interceptor that counts how each badge order ends (completed, failed, cancelled), wherever in the
 * workflow it ends. Bundled with the workflows (`WORKFLOW_INTERCEPTOR_MODULES`); the SDK's workflow meter records
 * nothing while replaying, so a replayed history is not counted twice. Document uploads are counted where the
 * workflow records their outcome (`src/workflows/upload-documents.ts`), which costs no promise of its own.
 */
import {
  ApplicationFailure,
  ContinueAsNew,
  isCancellation,
  metricMeter,
  workflowInfo,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import { WORKFLOW_TYPES } from '../workflow-contract';
import { METRIC_NAMES } from './names';

function failureTypeOf(error: unknown): string {
  const cause = error instanceof ApplicationFailure ? error : null;
  return cause?.type ?? (error instanceof Error ? error.name : 'unknown');
}

/**
 * Counts how each badge order ends. It chains one promise rather than wrap the call in an async function: the
 * SDK captures a stack for every promise a workflow creates, so each extra await costs an order CPU time.
 */
class OrderOutcomeInterceptor implements WorkflowInboundCallsInterceptor {
  execute(
    input: WorkflowExecuteInput,
    next: Next<WorkflowInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    if (workflowInfo().workflowType !== WORKFLOW_TYPES.badgeOrder) return next(input);
    const orders = metricMeter.createCounter(METRIC_NAMES.orders, '1', 'Badge orders that ended, by outcome');
    return next(input).then(
      (result) => {
        orders.add(1, { outcome: 'completed', failure_type: 'none' });
        return result;
      },
      (error: unknown) => {
        if (!(error instanceof ContinueAsNew)) {
          const outcome = isCancellation(error) ? 'cancelled' : 'failed';
          orders.add(1, { outcome, failure_type: outcome === 'failed' ? failureTypeOf(error) : 'none' });
        }
        throw error;
      },
    );
  }
}

/** Picked up by the bundler from `WORKFLOW_INTERCEPTOR_MODULES`. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new OrderOutcomeInterceptor()],
});
