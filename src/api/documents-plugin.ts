/**
 * `POST /v1/documents` inside the API app: the document store's upload route (`routes/documents.ts`) behind the
 * app's authentication (scope `orders:write`, as placing the order that names the document), rate limits and
 * problem details, and its entry in the OpenAPI document.
 */
import { documentStoreFromConfig, type DocumentStore } from '../documents';
import { apiPlugin, type ApiPluginRegistration } from './app';
import type { ApiConfig } from './config';
import { COMMON_PROBLEMS } from './operations';
import { jsonSchemaOf, problemResponses } from './openapi';
import {
  DOCUMENT_FILE_FIELD,
  DOCUMENT_UPLOAD_PROBLEM_STATUSES,
  DOCUMENTS_ROUTE,
  documentsRoutes,
  documentUploadRequestSchema,
  documentUploadResponseSchema,
} from './routes/documents';

/** The scope `POST /v1/documents` needs. */
export const DOCUMENTS_SCOPE = 'orders:write';

/** Options of {@link documentsPlugin}. */
export interface DocumentsPluginOptions {
  readonly store: DocumentStore;
  /** Largest document stored, in bytes (`MAX_DOCUMENT_BYTES`). */
  readonly maxBytes: number;
}

/**
 * The documents upload over the store the API's configuration names. The store is checked first: one that
 * cannot be written is found at start, not at the first upload.
 */
export async function documentsPluginFromConfig(
  documents: ApiConfig['documents'],
): Promise<ApiPluginRegistration> {
  const maxBytes = documents.maxDocumentBytes;
  const store = documentStoreFromConfig(documents.store, {
    documentsRoot: documents.documentsRoot,
    maxBytes,
  });
  await store.check();
  return documentsPlugin({ store, maxBytes });
}

/** The documents upload as a plugin of {@link buildApiApp}'s `plugins`. */
export function documentsPlugin(options: DocumentsPluginOptions): ApiPluginRegistration {
  const statuses = [...new Set<number>([...COMMON_PROBLEMS, ...DOCUMENT_UPLOAD_PROBLEM_STATUSES])].sort(
    (a, b) => a - b,
  );
  return apiPlugin(
    documentsRoutes,
    { store: options.store, maxBytes: options.maxBytes, routeConfig: { scope: DOCUMENTS_SCOPE } },
    {
      paths: {
        [DOCUMENTS_ROUTE]: {
          post: {
            operationId: 'uploadDocument',
            summary: 'Store a document, to name it in an order by reference',
            description:
              `Streams one file (multipart/form-data, part "${DOCUMENT_FILE_FIELD}") into the document store and ` +
              `answers its content-addressed reference; name it in an order as \`{ "ref": … }\`. Storing the ` +
              `same bytes again answers the same reference. At most ${options.maxBytes} bytes.\n\n` +
              `Scope: \`${DOCUMENTS_SCOPE}\`.`,
            security: [{ apiKey: [] }, { bearer: [DOCUMENTS_SCOPE] }],
            requestBody: {
              required: true,
              content: {
                'multipart/form-data': { schema: { $ref: '#/components/schemas/DocumentUpload' } },
              },
            },
            responses: {
              '201': {
                description: 'Stored: the reference, the size and the content type',
                content: {
                  'application/json': { schema: { $ref: '#/components/schemas/DocumentStored' } },
                },
              },
              ...problemResponses(statuses),
            },
          },
        },
      },
      schemas: {
        DocumentUpload: jsonSchemaOf(documentUploadRequestSchema, 'input'),
        DocumentStored: jsonSchemaOf(documentUploadResponseSchema, 'output'),
      },
    },
  );
}
