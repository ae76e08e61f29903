/**
 * The foundation: a real dev server started by our helper, with the project's search attributes, runs a
 * workflow on a real worker, and leaves nothing running once stopped.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { BADGE_SEARCH_ATTRIBUTES, BadgeOrderStatus } from '../../../src/workflow-contract';
import {
  bundleWorkflows,
  startTestTemporal,
  uniqueTaskQueue,
  type TestTemporal,
} from '../../helpers/temporal';
import * as probeActivities from '../../fixtures/probe-activities';
import type { probe } from '../../fixtures/probe-workflows';
import { isProcessAlive } from '../../../tools/dev/child-process';
import { isListening } from '../../helpers/liveness';

describe('Temporal dev server helper', () => {
  let temporal: TestTemporal;

  beforeAll(async () => {
    temporal = await startTestTemporal({ uiPort: 0 });
  });

  afterAll(async () => {
    await temporal?.teardown();
  });

  it('registers the search attributes the service needs', async () => {
    const response = await temporal.connection.operatorService.listSearchAttributes({
      namespace: temporal.server.namespace,
    });
    for (const key of BADGE_SEARCH_ATTRIBUTES) {
      expect(Object.keys(response.customAttributes ?? {})).toContain(key.name);
    }
  });

  it('serves the Web UI over HTTP', async () => {
    expect(temporal.server.uiUrl).not.toBeNull();
    const response = await fetch(temporal.server.uiUrl ?? '');
    expect(response.status).toBe(200);
  });

  it('runs a workflow on a real worker and indexes its search attribute', async () => {
    const taskQueue = uniqueTaskQueue('probe');
    const connection = await NativeConnection.connect({ address: temporal.server.address });
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: await bundleWorkflows(require.resolve('../../fixtures/probe-workflows')),
      activities: probeActivities,
    });
    const result = await worker.runUntil(
      temporal.client.workflow.execute<typeof probe>('probe', {
        taskQueue,
        workflowId: taskQueue,
        args: ['jest'],
      }),
    );
    await connection.close();
    expect(result).toBe(`hello jest, from pid ${process.pid}`);

    const handle = temporal.client.workflow.getHandle(taskQueue);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(BadgeOrderStatus)).toBe('Completed');
  });
});

describe('stopping the dev server', () => {
  it('leaves no process and no listening port behind', async () => {
    const temporal = await startTestTemporal();
    const { address, pid } = temporal.server;
    expect(await isListening(address)).toBe(true);
    await temporal.teardown();
    expect(await isListening(address)).toBe(false);
    expect(pid).not.toBeNull();
    expect(isProcessAlive(pid ?? 0)).toBe(false);
  });
});
