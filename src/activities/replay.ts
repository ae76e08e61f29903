/**
 * Activities of the nightly replay (`replayFailedUploads`): list the orders awaiting repair page by page, and
 * send them `retryUploads` with bounded concurrency. They talk to Temporal itself, so they get a `Client`.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { BadgeOrderStatus } from '../workflow-contract';
import { retryUploadsSignal } from '../workflow-messages';
import type { ReplayErrorSample } from '../contract';
import { badgeOrdersQuery, listRunPage, type ListedRun, type RunPage } from '../temporal/visibility';
import { runWithConcurrency } from '../concurrency';

/** Input of `listAwaitingRepairOrders`. */
interface ListAwaitingRepairInput {
  readonly pageSize: number;
  /** The previous page's token (base64), or null for the first page. */
  readonly nextPageToken: string | null;
}

/** Input of `signalRetryUploads`. */
interface SignalRetryUploadsInput {
  readonly runs: readonly ListedRun[];
  readonly maxConcurrent: number;
}

/** What `signalRetryUploads` did with each listed run. */
interface SignalRetryUploadsResult {
  readonly signalled: number;
  readonly skipped: number;
  readonly errors: readonly ReplayErrorSample[];
}

/** Creates the replay activities the worker registers next to the order activities, with a client of its namespace. */
export function createReplayActivities(deps: { readonly client: Client }) {
  const { client } = deps;

  /**
   * Signals one order if it still awaits repair; visibility may be behind, so its own state decides. A listed
   * run that has continued as new since goes on in a newer run, which a listing newest first has passed: that
   * one is asked instead.
   */
  async function signalIfAwaitingRepair(run: ListedRun): Promise<'signalled' | 'skipped'> {
    let handle = client.workflow.getHandle(run.workflowId, run.runId);
    try {
      let description = await handle.describe();
      if (description.status.name === 'CONTINUED_AS_NEW') {
        handle = client.workflow.getHandle(run.workflowId);
        description = await handle.describe();
      }
      const awaiting =
        description.status.name === 'RUNNING' &&
        description.typedSearchAttributes.get(BadgeOrderStatus) === 'AwaitingRepair';
      if (!awaiting) return 'skipped';
      // Documents held for a person (the platform may have stored them) stay held.
      await handle.signal(retryUploadsSignal, { skipHeld: true });
      return 'signalled';
    } catch (error) {
      // Closed between listing and signalling: nothing left to repair.
      if (error instanceof WorkflowNotFoundError) return 'skipped';
      throw error;
    }
  }

  return {
    /** One page of open badge orders whose `BadgeOrderStatus` is `AwaitingRepair`. */
    async listAwaitingRepairOrders(input: ListAwaitingRepairInput): Promise<RunPage> {
      return listRunPage(client, {
        query: badgeOrdersQuery({ status: 'AwaitingRepair', openOnly: true }),
        pageSize: input.pageSize,
        nextPageToken: input.nextPageToken,
      });
    },

    /**
     * Sends `retryUploads` to every run that still awaits repair, at most `maxConcurrent` at once. One order's
     * failure is counted, not thrown, so a retry of this activity does not signal the others twice.
     */
    async signalRetryUploads(input: SignalRetryUploadsInput): Promise<SignalRetryUploadsResult> {
      const context = Context.current();
      let signalled = 0;
      let skipped = 0;
      const errors: ReplayErrorSample[] = [];
      await runWithConcurrency(input.runs, Math.max(1, input.maxConcurrent), async (run) => {
        try {
          const outcome = await signalIfAwaitingRepair(run);
          if (outcome === 'signalled') signalled += 1;
          else skipped += 1;
        } catch (error) {
          errors.push({
            workflowId: run.workflowId,
            message: error instanceof Error ? error.message : String(error),
          });
        }
        context.heartbeat({ done: signalled + skipped + errors.length, of: input.runs.length });
      });
      return { signalled, skipped, errors };
    },
  };
}

/** The replay activities' type, for `proxyActivities` in workflow code. */
export type ReplayActivities = ReturnType<typeof createReplayActivities>;
