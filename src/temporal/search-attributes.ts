/** Makes sure the service's custom search attributes exist on the namespace (idempotent). */
import { temporal } from '@temporalio/proto';
import { BADGE_SEARCH_ATTRIBUTES } from '../workflow-contract';

/**
 * Adds whichever of the badge search attributes are missing; says which names it added and which existed. On
 * Temporal Cloud the operator API may refuse; the error then says to add them with `tcld` or the Cloud UI.
 */
export async function ensureSearchAttributes(
  connection: { readonly operatorService: temporal.api.operatorservice.v1.OperatorService },
  namespace: string,
) {
  const current = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(current.customAttributes ?? {}));
  const missing = BADGE_SEARCH_ATTRIBUTES.filter((key) => !known.has(key.name));
  if (missing.length > 0) {
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(
          // Every badge search attribute is a Keyword.
          missing.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
        ),
      });
    } catch (error) {
      throw new Error(
        `Could not add search attributes ${missing.map((key) => key.name).join(', ')} to namespace ${namespace} ` +
          `(${(error as Error).message}). On Temporal Cloud add them as Keyword with tcld or the Cloud UI.`,
      );
    }
  }
  return {
    added: missing.map((key) => key.name),
    existing: BADGE_SEARCH_ATTRIBUTES.filter((key) => known.has(key.name)).map((key) => key.name),
  };
}
