/**
 * An operator's `setDocumentOwner` on an order that also holds a document for a person: the platform checks the
 * owner (the keycloak profile), and the worker holds uploads of unknown outcome (`BADGE_UPLOAD_UNKNOWN_OUTCOME=hold`).
 * The correction sends again what the platform refused for its owner, never a document it may hold already. Real
 * dev server, real sandbox over HTTP, a real worker.
 */
import { createHash } from 'node:crypto';
import { DEMO_USER, subjectUuid } from '../../src/sandbox';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'B-OW 1', fuel: 'diesel' };
const badge = { type: 'green' };
const sha256 = (content: string): string => createHash('sha256').update(content).digest('hex');

describe('badgeOrder correcting its document owner while a document is held', () => {
  const stack = useTestStack({ sandbox: { profile: 'keycloak' } });

  beforeAll(async () => {
    await stack.local.startWorker({
      config: { platform: { ...stack.workerConfig.platform, uploadUnknownOutcome: 'hold' } },
    });
  });

  it('sends again only the documents refused for their owner; a held one stays held for a person', async () => {
    const orderRef = 'owner-held';
    const content = (name: string): string => `${name} of ${orderRef}`;
    const [front, back] = ['front.jpg', 'back.jpg'].map((name) =>
      stack.writeDocument(`${orderRef}/${name}`, content(name)),
    ) as [string, string];
    // One upload at a time, in order: the front's answer is a 500 (it may be stored: held), the back's a 422
    // for its owner (the token's UUID `sub`, which this platform refuses).
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'documents', kind: 'error-500' }] });
    const started = await stack.orders.startOrder({
      orderRef,
      vehicle,
      badge,
      documents: [{ path: front }, { path: back }],
      documentOwner: subjectUuid(DEMO_USER.id),
      options: { maxParallelUploads: 1 },
    });
    const waiting = await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.phase === 'awaiting-repair',
      { what: `${orderRef} awaiting repair` },
    );
    expect(waiting.documents.map(({ path, status, held }) => ({ path, status, held }))).toEqual([
      { path: front, status: 'failed', held: true },
      { path: back, status: 'failed', held: false },
    ]);
    expect(waiting.documents[1]?.lastError).toMatch(
      /document_owner .* refused: correct it with setDocumentOwner/,
    );
    const heldKey = waiting.documents[0]?.idempotencyKey;

    const corrected = await stack.orders.setDocumentOwner(orderRef, { documentOwner: DEMO_USER.id });
    expect(corrected.documents.map(({ path, status, held }) => ({ path, status, held }))).toEqual([
      { path: front, status: 'failed', held: true },
      { path: back, status: 'pending', held: false },
    ]);
    const repaired = await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.phase === 'awaiting-repair' && status.documents[1]?.status === 'uploaded',
      { what: `${orderRef} awaiting repair of the held document` },
    );
    // Still held under the key an operator asks the platform about; only the refused document was sent again.
    expect(repaired.documents[0]).toMatchObject({ status: 'failed', held: true, idempotencyKey: heldKey });
    const orderId = repaired.orderId ?? '-1';
    expect((await stack.sandbox.control.listDocuments({ orderId })).map((stored) => stored.sha256)).toEqual([
      sha256(content('back.jpg')),
    ]);

    // A person checks the platform (the 500 stored nothing) and answers: the front is sent, the order completes.
    await stack.orders.reconcileDocument(orderRef, { path: front, notStored: true });
    const result = await started.handle.result();
    const stored = (await stack.sandbox.control.state()).documents.filter(
      (document) => document.document_type_id === result.orderId,
    );
    expect(stored.map((document) => [document.sha256, document.document_owner]).sort()).toEqual(
      [
        [sha256(content('front.jpg')), DEMO_USER.id],
        [sha256(content('back.jpg')), DEMO_USER.id],
      ].sort(),
    );
  });
});
