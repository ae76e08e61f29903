/**
 * Step: check that a replacement document may be uploaded (a file under DOCUMENTS_ROOT, or a reference in the
 * document store), before an operator's swap is taken.
 */
import { isDocumentReference } from '../contract';
import { atBoundary } from './boundary';
import type { ActivityDependencies } from './dependencies';
import type { InspectDocumentInput, InspectDocumentResult } from './types';

/** Creates the `inspectDocument` activity. */
export function inspectDocumentActivity(
  deps: ActivityDependencies,
): (input: InspectDocumentInput) => Promise<InspectDocumentResult> {
  return atBoundary(async (input) => {
    if (isDocumentReference(input.path)) {
      const stored = await deps.documentStore.inspect({ ref: input.path });
      return { sizeBytes: stored.sizeBytes };
    }
    const document = await deps.documentsRoot.inspect(input.path, { within: input.documentsFolder });
    return { sizeBytes: document.sizeBytes };
  });
}
