/**
 * A worker given no prebuilt workflow bundle (`npm run worker` without `WORKFLOW_BUNDLE_PATH`) bundles the
 * workflows itself at start, with the service's bundler options (interceptors, preloaded modules, the joined
 * modules of src/workflow-bundle.ts), and places orders as a worker given the image's bundle does.
 */
import { useTestStack } from '../helpers/stack';

describe('a worker without a prebuilt workflow bundle', () => {
  const stack = useTestStack();

  it('bundles the workflows at start and places an order with its documents', async () => {
    const taskQueue = 'bundled-at-start';
    // The stack stops the worker with the rest.
    await stack.local.startWorker({ taskQueue, bundleAtStart: true });
    const { handle } = await stack.local.orders(taskQueue).startOrder({
      orderRef: 'bundled-at-start-1',
      vehicle: { plate: 'B-1' },
      badge: { type: 'green' },
      documents: [{ path: stack.writeDocument('bundled-at-start-1/scan.pdf', 'a scan') }],
    });
    const result = await handle.result();

    const stored = await stack.sandbox.control.listDocuments({ orderId: result.orderId });
    expect(stored.map((document) => document.id)).toEqual([result.documents[0]?.documentId]);
    expect(result.documents.map((document) => document.status)).toEqual(['uploaded']);
  });
});
