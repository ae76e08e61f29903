/** The documents of an order, without a server: keys, retries, replacements and the duplicate flag. */
import { DocumentTracker } from '../../src/workflows/document-tracker';

const links = { original: 'https://p/o', thumbnail: 'https://p/t' };

describe('DocumentTracker', () => {
  it('gives each document its own key, and a replaced one a new key, sent and shown alike', () => {
    const tracker = new DocumentTracker([{ path: 'a.jpg' }, { path: 'b.jpg' }], 'wf');
    const shownKeys = () => tracker.view().map((document) => document.idempotencyKey);
    expect(tracker.pendingJobs().map((job) => job.idempotencyKey)).toEqual(['wf:doc:0', 'wf:doc:1']);
    expect(shownKeys()).toEqual(['wf:doc:0', 'wf:doc:1']);
    tracker.markUploading('b.jpg');
    tracker.markFailed('b.jpg', {
      error: 'VALIDATION: 422',
      attempts: 1,
      mayHaveBeenStored: false,
      held: false,
    });
    tracker.replace('b.jpg', 'b-fixed.jpg', 'image/jpeg');
    expect(tracker.pendingJobs()).toEqual([
      expect.objectContaining({ path: 'a.jpg', idempotencyKey: 'wf:doc:0' }),
      expect.objectContaining({ path: 'b.jpg', sourcePath: 'b-fixed.jpg', idempotencyKey: 'wf:doc:1:r1' }),
    ]);
    expect(shownKeys()).toEqual(['wf:doc:0', 'wf:doc:1:r1']);
    // Another owner is another request: every failed document gets a new key.
    tracker.markFailed('a.jpg', {
      error: 'FORBIDDEN: 403',
      attempts: 1,
      mayHaveBeenStored: false,
      held: false,
    });
    tracker.requeueFailed({ newKeys: true });
    expect(shownKeys()).toEqual(['wf:doc:0:r1', 'wf:doc:1:r1']);
  });

  it('flags a document that succeeds after a failure that may have stored it', () => {
    const tracker = new DocumentTracker([{ path: 'a.jpg' }, { path: 'b.jpg' }], 'wf');
    tracker.markFailed('a.jpg', {
      error: 'SERVER_ERROR: 500',
      attempts: 3,
      mayHaveBeenStored: true,
      held: false,
    });
    tracker.markFailed('b.jpg', {
      error: 'VALIDATION: 422',
      attempts: 1,
      mayHaveBeenStored: false,
      held: false,
    });
    expect(tracker.requeueFailed({ newKeys: false })).toBe(2);
    tracker.markUploaded('a.jpg', { documentId: 'd-1', links, attempts: 1, possibleDuplicate: false });
    tracker.markUploaded('b.jpg', { documentId: null, links, attempts: 1, possibleDuplicate: false });
    expect(tracker.view()).toEqual([
      expect.objectContaining({ path: 'a.jpg', attempts: 4, documentId: 'd-1', possibleDuplicate: true }),
      expect.objectContaining({ path: 'b.jpg', attempts: 2, documentId: null, possibleDuplicate: false }),
    ]);
    expect(tracker.allUploaded()).toBe(true);
  });

  it('takes the flag from the upload itself, and forgets it for a replacement file', () => {
    const tracker = new DocumentTracker([{ path: 'a.jpg' }, { path: 'b.jpg' }], 'wf');
    tracker.markUploaded('a.jpg', { documentId: 'd', links, attempts: 2, possibleDuplicate: true });
    tracker.markFailed('b.jpg', { error: 'TIMEOUT', attempts: 1, mayHaveBeenStored: true, held: false });
    tracker.replace('b.jpg', 'c.jpg', undefined);
    tracker.markUploaded('b.jpg', { documentId: 'e', links, attempts: 1, possibleDuplicate: false });
    expect(tracker.view().map((document) => document.possibleDuplicate)).toEqual([true, false]);
  });

  it('leaves a held document to a person: skipped by the nightly requeue, answered stored or not stored', () => {
    const tracker = new DocumentTracker([{ path: 'a.jpg' }, { path: 'b.jpg' }, { path: 'c.jpg' }], 'wf');
    tracker.markFailed('a.jpg', {
      error: 'SERVER_ERROR: 500',
      attempts: 1,
      mayHaveBeenStored: true,
      held: true,
    });
    tracker.markFailed('b.jpg', {
      error: 'SERVER_ERROR: 500',
      attempts: 1,
      mayHaveBeenStored: true,
      held: true,
    });
    tracker.markFailed('c.jpg', {
      error: 'VALIDATION: 415',
      attempts: 1,
      mayHaveBeenStored: false,
      held: false,
    });
    expect(tracker.view().map((document) => document.held)).toEqual([true, true, false]);

    expect(tracker.requeueFailed({ newKeys: false, skipHeld: true })).toBe(1);
    expect(tracker.pendingJobs().map((job) => job.path)).toEqual(['c.jpg']);
    tracker.markUploaded('c.jpg', { documentId: 'd-c', links, attempts: 1, possibleDuplicate: false });

    tracker.reconcile('a.jpg', { documentId: 'd-a' });
    tracker.reconcile('b.jpg', { notStored: true });
    expect(tracker.view()).toEqual([
      expect.objectContaining({
        path: 'a.jpg',
        status: 'uploaded',
        documentId: 'd-a',
        lastError: null,
        held: false,
      }),
      expect.objectContaining({ path: 'b.jpg', status: 'pending', held: false }),
      expect.objectContaining({ path: 'c.jpg', status: 'uploaded' }),
    ]);
    // Sent again under its own key, and not flagged: the person found no copy.
    expect(tracker.pendingJobs()).toEqual([
      expect.objectContaining({ path: 'b.jpg', idempotencyKey: 'wf:doc:1' }),
    ]);
    tracker.markUploaded('b.jpg', { documentId: 'd-b', links, attempts: 1, possibleDuplicate: false });
    expect(tracker.view().map((document) => document.possibleDuplicate)).toEqual([false, false, false]);
    expect(tracker.allUploaded()).toBe(true);
  });

  it('queues a held document again when a person asks for every failed one (retryUploads without skipHeld)', () => {
    const tracker = new DocumentTracker([{ path: 'a.jpg' }], 'wf');
    tracker.markFailed('a.jpg', { error: 'TIMEOUT', attempts: 1, mayHaveBeenStored: true, held: true });
    expect(tracker.requeueFailed({ newKeys: false })).toBe(1);
    expect(tracker.view()[0]).toMatchObject({ status: 'pending', held: false });
  });
});
