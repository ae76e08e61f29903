/**
 * Workflow interceptors that count outcomes as the workflow sees them: each badge order's end (completed,
 * failed, cancelled) and each document upload's end after all its retries (uploaded, failed). Bundled with the
 * workflows (`WORKFLOW_INTERCEPTOR_MODULES`); the SDK's workflow meter records nothing while replaying, so a
 * replayed history is not counted twice.
 */
import {
  ApplicationFailure,
  ContinueAsNew,
  isCancellation,
  metricMeter,
  workflowInfo,
  type ActivityInput,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { WORKFLOW_TYPES } from '../workflow-contract';
import { METRIC_NAMES } from './names';

const UPLOAD_ACTIVITY = 'uploadDocument';

function failureTypeOf(error: unknown): string {
  const cause = error instanceof ApplicationFailure ? error : null;
  return cause?.type ?? (error instanceof Error ? error.name : 'unknown');
}

/**
 * Counts how each badge order ends. The interceptors chain promises rather than wrap calls in async functions:
 * the SDK captures a stack for every promise a workflow creates, so each extra await costs an order CPU time.
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

/** Counts how each document upload ends, once its retries are over; other activities pass straight through. */
class DocumentOutcomeInterceptor implements WorkflowOutboundCallsInterceptor {
  scheduleActivity(
    input: ActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
  ): Promise<unknown> {
    if (input.activityType !== UPLOAD_ACTIVITY) return next(input);
    const documents = metricMeter.createCounter(
      METRIC_NAMES.documents,
      '1',
      'Document uploads that ended after all retries, by outcome',
    );
    return next(input).then(
      (result) => {
        documents.add(1, { outcome: 'uploaded' });
        return result;
      },
      (error: unknown) => {
        if (!isCancellation(error)) documents.add(1, { outcome: 'failed' });
        throw error;
      },
    );
  }
}

/** Picked up by the bundler from `WORKFLOW_INTERCEPTOR_MODULES`. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new OrderOutcomeInterceptor()],
  outbound: [new DocumentOutcomeInterceptor()],
});
