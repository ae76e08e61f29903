/** Step: check that a replacement file under DOCUMENTS_ROOT may be uploaded, before an operator's swap is taken. */
import { atBoundary } from './boundary';
import type { ActivityDependencies } from './dependencies';
import type { InspectDocumentInput, InspectDocumentResult } from './types';

/** Creates the `inspectDocument` activity. */
export function inspectDocumentActivity(
  deps: ActivityDependencies,
): (input: InspectDocumentInput) => Promise<InspectDocumentResult> {
  return async function inspectDocument(input) {
    return atBoundary(async () => {
      const document = await deps.documentsRoot.inspect(input.path);
      return { sizeBytes: document.sizeBytes };
    });
  };
}
