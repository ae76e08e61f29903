/**
 * Worker Deployment Versioning on a real dev server: an order started on build A stays pinned to A (a
 * running order never replays on code it did not start with), while new orders go to build B once B is the
 * current version. Real workers, real sandbox.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { useTestStack, type TestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';

const DEPLOYMENT = 'badge-orders-versioning-test';
const ALL_TYPES = ['image/jpeg', 'image/png', 'application/pdf'];

/** Starts an in-process worker that polls as `buildId` of the test deployment; the stack stops it. */
async function startVersionedWorker(stack: TestStack, buildId: string): Promise<void> {
  await stack.local.startWorker({
    config: { versioning: { enabled: true, deploymentName: DEPLOYMENT, buildId } },
  });
}

/**
 * Makes `buildId` the current version once the server has seen its workers poll, and returns only when the
 * new routing has reached every partition of the task queues: setting the version is accepted before it
 * propagates, and a workflow started in between still goes to the previous build.
 */
async function setCurrentVersion(client: Client, buildId: string): Promise<void> {
  const namespace = client.options.namespace;
  await pollUntil(
    () =>
      client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: DEPLOYMENT,
        buildId,
        identity: 'versioning-test',
      }),
    () => true,
    { what: `version ${buildId} becoming current` },
  );
  await pollUntil(
    () => client.workflowService.describeWorkerDeployment({ namespace, deploymentName: DEPLOYMENT }),
    ({ workerDeploymentInfo: info }) =>
      info?.routingConfig?.currentDeploymentVersion?.buildId === buildId &&
      info.routingConfigUpdateState ===
        temporal.api.enums.v1.RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_COMPLETED,
    { what: `version ${buildId} propagated to the task queues` },
  );
}

/** The build a workflow run is pinned to, from its description. */
async function pinnedBuild(stack: TestStack, orderRef: string): Promise<string | undefined> {
  const description = await stack.orders.getHandle(orderRef).describe();
  const versioning = description.raw.workflowExecutionInfo?.versioningInfo;
  return versioning?.deploymentVersion?.buildId ?? undefined;
}

describe('Worker Deployment Versioning', () => {
  const stack = useTestStack();

  it('keeps a running order on the build it started on while new orders go to the new build', async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    await startVersionedWorker(stack, 'build-a');
    await setCurrentVersion(stack.temporal.client, 'build-a');

    const first = await stack.orders.startOrder({
      orderRef: 'versioned-1',
      vehicle: { plate: 'V-1' },
      badge: { type: 'green' },
      documents: [{ path: stack.writeDocument('versioned-1/scan.jpg', 'a scan') }],
    });
    await pollUntil(
      () => stack.orders.status('versioned-1'),
      (status) => status.searchStatus === 'AwaitingRepair',
      { what: 'the first order awaiting repair on build A' },
    );
    expect(await pinnedBuild(stack, 'versioned-1')).toBe('build-a');

    await startVersionedWorker(stack, 'build-b');
    await setCurrentVersion(stack.temporal.client, 'build-b');
    await stack.sandbox.control.setRules({ acceptedContentTypes: ALL_TYPES });
    const second = await stack.orders.startOrder({
      orderRef: 'versioned-2',
      vehicle: { plate: 'V-2' },
      badge: { type: 'green' },
      documents: [{ path: stack.writeDocument('versioned-2/photo.jpg', 'a photo') }],
    });
    await second.handle.result();
    expect(await pinnedBuild(stack, 'versioned-2')).toBe('build-b');

    // The first order finishes where it started, although build B is current now.
    await stack.orders.retryUploads('versioned-1');
    const result = await first.handle.result();
    expect(result.documents[0]?.status).toBe('uploaded');
    expect(await pinnedBuild(stack, 'versioned-1')).toBe('build-a');
    const history = await first.handle.fetchHistory();
    const builds = new Set(
      (history.events ?? [])
        .filter((event) => event.workflowTaskCompletedEventAttributes)
        .map(
          (event) => event.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId ?? 'unversioned',
        ),
    );
    expect([...builds]).toEqual(['build-a']);
  });
});
