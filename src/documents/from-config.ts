/** Builds the configured document store, for the worker (which opens documents) and the HTTP API (which puts). */
import { join } from 'node:path';
import type { DocumentStoreConfig } from '../config';
import { createLocalDocumentStore } from './local-store';
import { createS3DocumentStore } from './s3-store';
import type { DocumentStore } from './store';

/** Folder of the local store under DOCUMENTS_ROOT when `DOCUMENT_STORE_LOCAL_ROOT` is not set. */
const DEFAULT_LOCAL_STORE_FOLDER = '.document-store';

/** What {@link documentStoreFromConfig} needs besides the store's own settings. */
interface DocumentStoreContext {
  /** DOCUMENTS_ROOT, under which the local store lives by default. */
  readonly documentsRoot: string;
  /** Largest document opened for upload (`MAX_DOCUMENT_BYTES`). */
  readonly maxBytes: number;
}

/** The store the configuration names. Call `check()` on it at start-up. */
export function documentStoreFromConfig(
  config: DocumentStoreConfig,
  context: DocumentStoreContext,
): DocumentStore {
  if (config.kind === 'local') {
    return createLocalDocumentStore({
      root: config.root ?? join(context.documentsRoot, DEFAULT_LOCAL_STORE_FOLDER),
      maxBytes: context.maxBytes,
    });
  }
  return createS3DocumentStore({ ...config, maxBytes: context.maxBytes });
}
