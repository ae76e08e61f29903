/**
 * Access to the files under DOCUMENTS_ROOT (open once, check the open handle, stream from it), and the document
 * store (documents named by content, in a local folder or S3-compatible storage).
 */
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
} from './documents-root';
export {
  DocumentRefusedError,
  DocumentUnavailableError,
  InvalidDocumentError,
  type DocumentRefusal,
} from './errors';
export {
  DEFAULT_LOCAL_STORE_FOLDER,
  documentStoreFromConfig,
  type DocumentStoreContext,
} from './from-config';
export { createLocalDocumentStore, type LocalDocumentStoreOptions } from './local-store';
export { createS3DocumentStore, type S3Credentials, type S3DocumentStoreOptions } from './s3-store';
export {
  defaultReferenceFilename,
  type DocumentReference,
  type DocumentStore,
  type DocumentToOpen,
  type OpenedStoredDocument,
  type PutDocumentInput,
} from './store';
