/**
 * Failure text kept in workflow state is bounded (issue 21): `describeFailure` and a document's `lastError`
 * hold at most MAX_FAILURE_DESCRIPTION_LENGTH characters, however long the platform's message was.
 */
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { DocumentTracker } from '../../src/workflows/document-tracker';
import { capLength, describeFailure, MAX_FAILURE_DESCRIPTION_LENGTH } from '../../src/workflows/failures';

const huge = 'x'.repeat(1_000_000);

describe('failure text in workflow state', () => {
  it('caps describeFailure, keeping the start of the message', () => {
    const failure = new ActivityFailure(
      'activity failed',
      'uploadDocument',
      '1',
      RetryState.MAXIMUM_ATTEMPTS_REACHED,
      undefined,
      ApplicationFailure.create({ type: 'SERVER_ERROR', message: `upstream said ${huge}` }),
    );
    const description = describeFailure(failure);
    expect(description.length).toBeLessThanOrEqual(MAX_FAILURE_DESCRIPTION_LENGTH);
    expect(description.startsWith('SERVER_ERROR: upstream said xxx')).toBe(true);
    expect(description.endsWith('…')).toBe(true);
    expect(describeFailure(new Error(huge)).length).toBeLessThanOrEqual(MAX_FAILURE_DESCRIPTION_LENGTH);
    // Short text is left alone.
    expect(describeFailure(ApplicationFailure.create({ type: 'VALIDATION', message: 'bad' }))).toBe(
      'VALIDATION: bad',
    );
  });

  it("caps a document's lastError, whatever the caller passes", () => {
    const tracker = new DocumentTracker([{ path: 'a.pdf' }], 'wf');
    tracker.markFailed('a.pdf', { error: huge, attempts: 1, mayHaveBeenStored: false, held: false });
    const [document] = tracker.view();
    expect(document?.lastError?.length).toBeLessThanOrEqual(MAX_FAILURE_DESCRIPTION_LENGTH);
    expect(document?.lastError?.startsWith('xxx')).toBe(true);
  });

  it('never cuts a character in half', () => {
    const emoji = '😀'.repeat(MAX_FAILURE_DESCRIPTION_LENGTH + 5);
    const capped = capLength(emoji);
    expect(Array.from(capped).length).toBe(MAX_FAILURE_DESCRIPTION_LENGTH);
    expect(capped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
