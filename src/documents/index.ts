/** Access to the files under DOCUMENTS_ROOT: open once, check the open handle, stream from it. */
export {
  assertDocumentsRootReadable,
  createDocumentsRoot,
  withOpenedDocument,
  type DocumentsRoot,
  type DocumentsRootOptions,
  type HandleLocation,
  type InspectedDocument,
  type OpenedDocument,
  type ResolvedDocument,
  type UploadSource,
} from './documents-root';
export { DocumentUnavailableError, InvalidDocumentError } from './errors';
