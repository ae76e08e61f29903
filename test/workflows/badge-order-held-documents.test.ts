/**
 * Documents held for a person (`BADGE_UPLOAD_UNKNOWN_OUTCOME=hold`): an upload that may have stored the file is
 * not sent again, not even by the nightly replay; a person checks the platform and answers `reconcileDocument`
 * (stored under an id, or not stored). Real dev server, real sandbox over HTTP, a real worker process.
 */
import { ReconcileDocumentRejectedError } from '../../src/client/badge-orders-client';
import type { ReplayFailedUploadsResult } from '../../src/contract';
import { WORKFLOW_TYPES } from '../../src/workflow-contract';
import { badgeOrdersQuery, listRunPage } from '../../src/temporal/visibility';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'B-HD 1', fuel: 'diesel' };
const badge = { type: 'green' };

describe('badgeOrder holding uploads that may have stored the file', () => {
  const stack = useTestStack({ worker: true, resetSandbox: true });

  it('leaves held documents to the nightly replay untouched, and completes with the answers a person gives', async () => {
    // One upload is stored and answered 500, the other answered 500 unstored: neither outcome is known.
    await stack.sandbox.control.setFaults({
      failNext: [
        { route: 'documents', kind: 'commit-then-500' },
        { route: 'documents', kind: 'error-500' },
      ],
    });
    const paths = [
      stack.writeDocument('held/front.jpg', 'front of the car'),
      stack.writeDocument('held/back.jpg', 'back of the car'),
    ];
    await stack.withWorkerProcess({ BADGE_UPLOAD_UNKNOWN_OUTCOME: 'hold' }, async () => {
      const started = await stack.orders.startOrder({
        orderRef: 'held-1',
        vehicle,
        badge,
        documents: paths.map((path) => ({ path })),
      });
      const waiting = await pollUntil(
        () => stack.orders.status('held-1'),
        (status) => status.phase === 'awaiting-repair',
        { what: 'held-1 awaiting repair' },
      );
      expect(waiting.documents.map(({ status, held, attempts }) => ({ status, held, attempts }))).toEqual([
        { status: 'failed', held: true, attempts: 1 },
        { status: 'failed', held: true, attempts: 1 },
      ]);
      // What the operator sees on the order's page (Current details): what is held and how to answer it.
      const metadata = await started.handle.query<{ currentDetails?: string }>(
        '__temporal_workflow_metadata',
      );
      expect(metadata.currentDetails).toMatch(
        /2 document\(s\) failed\. 2 of them may be stored on the platform: check it, then update reconcileDocument/,
      );
      const [stored, ...others] = (await stack.sandbox.control.state()).documents;
      expect(others).toHaveLength(0);
      // Each held document shows the key to ask the platform about; the platform holds one of them.
      const storedPath =
        waiting.documents.find((document) => document.idempotencyKey === stored?.idempotency_key)?.path ?? '';
      expect(paths).toContain(storedPath);
      const unstoredPath = paths.find((path) => path !== storedPath) ?? '';

      // The nightly replay finds the order and signals it; the order sends neither held document again.
      await pollUntil(
        () =>
          listRunPage(stack.temporal.client, {
            query: badgeOrdersQuery({ status: 'AwaitingRepair', openOnly: true }),
            pageSize: 10,
          }),
        (page) => page.runs.some((run) => run.workflowId === started.handle.workflowId),
        { what: 'visibility to list held-1 as awaiting repair' },
      );
      const replay = (await stack.temporal.client.workflow.execute(WORKFLOW_TYPES.replayFailedUploads, {
        taskQueue: stack.taskQueue,
        workflowId: 'held-1-nightly',
        args: [{}],
      })) as ReplayFailedUploadsResult;
      expect(replay).toMatchObject({ found: 1, signalled: 1, errors: 0 });

      // Taken after the replay's signal (history orders them): the stored document is still held, so the
      // answer applies; had the signal queued it again, the answer would be refused.
      const answered = await stack.orders.reconcileDocument('held-1', {
        path: storedPath,
        documentId: stored?.id ?? '',
      });
      expect(answered.documents.find((document) => document.path === storedPath)).toMatchObject({
        status: 'uploaded',
        documentId: stored?.id,
        held: false,
        lastError: null,
      });
      expect(answered.documents.find((document) => document.path === unstoredPath)).toMatchObject({
        status: 'failed',
        held: true,
      });
      expect((await stack.sandbox.control.state()).documents).toHaveLength(1);

      await expect(
        stack.orders.reconcileDocument('held-1', { path: storedPath, notStored: true }),
      ).rejects.toThrow(ReconcileDocumentRejectedError);
      await expect(
        stack.orders.reconcileDocument('held-1', { path: 'held/none.jpg', notStored: true }),
      ).rejects.toThrow(/no document held\/none\.jpg/);

      await stack.orders.reconcileDocument('held-1', { path: unstoredPath, notStored: true });
      const result = await started.handle.result();

      const platform = (await stack.sandbox.control.state()).documents;
      expect(platform).toHaveLength(2);
      expect(
        result.documents.map(({ path, status, possibleDuplicate }) => ({ path, status, possibleDuplicate })),
      ).toEqual(paths.map((path) => ({ path, status: 'uploaded', possibleDuplicate: false })));
      expect(result.documents.map((document) => document.documentId).sort()).toEqual(
        platform.map((document) => document.id).sort(),
      );
      expect(new Set(platform.map((document) => document.idempotency_key)).size).toBe(2);
    });
  });

  it('refuses an answer about a document that failed where the platform cannot hold it', async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    const path = stack.writeDocument('held/refused.jpg', 'a type the platform refuses');
    const started = await stack.orders.startOrder({
      orderRef: 'held-2',
      vehicle,
      badge,
      documents: [{ path }],
    });
    const waiting = await pollUntil(
      () => stack.orders.status('held-2'),
      (status) => status.phase === 'awaiting-repair',
      { what: 'held-2 awaiting repair' },
    );
    expect(waiting.documents[0]).toMatchObject({ status: 'failed', held: false });

    await expect(stack.orders.reconcileDocument('held-2', { path, documentId: 'doc-1' })).rejects.toThrow(
      /failed but is not held: retryUploads or replaceDocument sends it again/,
    );
    expect((await stack.orders.status('held-2')).documents[0]?.status).toBe('failed');
    await started.handle.terminate('test over');
  });
});
