/**
 * The `replayFailedUploads` workflow, started every night by the `badge-nightly-upload-replay` Schedule: it
 * lists the open badge orders awaiting repair page by page and sends each `retryUploads`, so documents that
 * failed for a reason that has since gone away (the platform accepts the type again, an outage is over) are
 * uploaded without an operator. Long lists continue as new, carrying the page token and the counts.
 */
import {
  continueAsNew,
  log,
  proxyActivities,
  setCurrentDetails,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import type { ReplayActivities } from '../activities/replay';
import type {
  ReplayErrorSample,
  ReplayFailedUploadsCounts,
  ReplayFailedUploadsInput,
  ReplayFailedUploadsResult,
} from '../contract';

const DEFAULTS = { pageSize: 100, maxConcurrentSignals: 10, maxOrdersPerRun: 1000 } as const;
const MAX_ERROR_SAMPLES = 20;

const replay = proxyActivities<ReplayActivities>({
  // Listing is one RPC; signalling a page of orders takes a little longer, and heartbeats say it is alive.
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
  },
});

// A nightly run is short and holds no order's state: it moves to the newest worker version at its next task.
setWorkflowOptions(
  () =>
    workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: 'AUTO_UPGRADE' } : {},
  replayFailedUploads,
);

/** Replays the failed uploads of every order awaiting repair; returns how many it found and signalled. */
export async function replayFailedUploads(
  input: ReplayFailedUploadsInput = {},
): Promise<ReplayFailedUploadsResult> {
  const pageSize = input.pageSize ?? DEFAULTS.pageSize;
  const maxConcurrent = input.maxConcurrentSignals ?? DEFAULTS.maxConcurrentSignals;
  const maxOrdersPerRun = input.maxOrdersPerRun ?? DEFAULTS.maxOrdersPerRun;

  let counts: ReplayFailedUploadsCounts = input.continuation?.counts ?? {
    found: 0,
    signalled: 0,
    skipped: 0,
    errors: 0,
  };
  const errorSamples: ReplayErrorSample[] = [...(input.continuation?.errorSamples ?? [])];
  let nextPageToken: string | null = input.continuation?.nextPageToken ?? null;
  let handledThisRun = 0;
  // A page may repeat a run after the listing shifts; signal each run once.
  const seen = new Set<string>();

  do {
    const page = await replay.listAwaitingRepairOrders({ pageSize, nextPageToken });
    const fresh = page.runs.filter((run) => !seen.has(run.runId));
    fresh.forEach((run) => seen.add(run.runId));
    const outcome =
      fresh.length > 0
        ? await replay.signalRetryUploads({ runs: fresh, maxConcurrent })
        : { signalled: 0, skipped: 0, errors: [] };
    counts = {
      found: counts.found + fresh.length,
      signalled: counts.signalled + outcome.signalled,
      skipped: counts.skipped + outcome.skipped,
      errors: counts.errors + outcome.errors.length,
    };
    errorSamples.push(...outcome.errors.slice(0, Math.max(0, MAX_ERROR_SAMPLES - errorSamples.length)));
    handledThisRun += fresh.length;
    nextPageToken = page.nextPageToken;
    setCurrentDetails(
      `Found ${counts.found}, signalled ${counts.signalled}, skipped ${counts.skipped}, errors ${counts.errors}`,
    );

    if (
      nextPageToken !== null &&
      (handledThisRun >= maxOrdersPerRun || workflowInfo().continueAsNewSuggested)
    ) {
      log.info('continuing as new', { ...counts });
      await continueAsNew<typeof replayFailedUploads>({
        ...input,
        continuation: { nextPageToken, counts, errorSamples },
      });
    }
  } while (nextPageToken !== null);

  log.info('nightly replay done', { ...counts });
  return { ...counts, errorSamples };
}
