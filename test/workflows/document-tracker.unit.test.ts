/** The documents of an order, without a server: keys, retries, replacements and the duplicate flag. */
import { DocumentTracker } from '../../src/workflows/document-tracker';

const links = { original: 'https://p/o', thumbnail: 'https://p/t' };

describe('DocumentTracker', () => {
  it('gives each document its own key, and a replaced one a new key', () => {
    const tracker = new DocumentTracker([{ path: 'a.jpg' }, { path: 'b.jpg' }], 'wf');
    expect(tracker.pendingJobs().map((job) => job.idempotencyKey)).toEqual(['wf:doc:0', 'wf:doc:1']);
    tracker.markUploading('b.jpg');
    tracker.markFailed('b.jpg', { error: 'VALIDATION: 422', attempts: 1, mayHaveBeenStored: false });
    tracker.replace('b.jpg', 'b-fixed.jpg', 'image/jpeg');
    expect(tracker.pendingJobs()).toEqual([
      expect.objectContaining({ path: 'a.jpg', idempotencyKey: 'wf:doc:0' }),
      expect.objectContaining({ path: 'b.jpg', sourcePath: 'b-fixed.jpg', idempotencyKey: 'wf:doc:1:r1' }),
    ]);
  });

  it('flags a document that succeeds after a failure that may have stored it', () => {
    const tracker = new DocumentTracker([{ path: 'a.jpg' }, { path: 'b.jpg' }], 'wf');
    tracker.markFailed('a.jpg', { error: 'SERVER_ERROR: 500', attempts: 3, mayHaveBeenStored: true });
    tracker.markFailed('b.jpg', { error: 'VALIDATION: 422', attempts: 1, mayHaveBeenStored: false });
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
    tracker.markFailed('b.jpg', { error: 'TIMEOUT', attempts: 1, mayHaveBeenStored: true });
    tracker.replace('b.jpg', 'c.jpg', undefined);
    tracker.markUploaded('b.jpg', { documentId: 'e', links, attempts: 1, possibleDuplicate: false });
    expect(tracker.view().map((document) => document.possibleDuplicate)).toEqual([true, false]);
  });
});
