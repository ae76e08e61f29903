/**
 * Access to the files under DOCUMENTS_ROOT (open once, check the open handle, stream from it), and the document
 * store (documents named by content, in a local folder or S3-compatible storage).
 */
export {
  assertDocumentsRootReadable,
  createDocumentsRoot,
  withOpenedDocument,
  type DocumentsRoot,
  type HandleLocation,
  type OpenedDocument,
} from './documents-root';
export { DocumentRefusedError, DocumentUnavailableError, InvalidDocumentError } from './errors';
export { documentStoreFromConfig } from './from-config';
export { createLocalDocumentStore } from './local-store';
export { createS3DocumentStore } from './s3-store';
export {
  defaultReferenceFilename,
  type DocumentStore,
  type OpenedStoredDocument,
  type PutDocumentInput,
} from './store';
