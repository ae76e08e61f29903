/**
 * Documents in the API app: `POST /v1/documents` (the document store's upload route, `routes/documents.ts`)
 * behind the app's authentication (scope `orders:write`, as placing the order that names the document), rate
 * limits and problem details, and its entry in the OpenAPI document. The same store answers, for the orders
 * routes, whether a reference belongs to the caller.
 */
import { documentStoreFromConfig, type DocumentStore } from '../documents';
import type { FastifyInstance } from 'fastify';
import { principalOf } from './auth';
import { uploadLimitsSchema, type ApiConfig } from './config';
import {
  COMMON_PROBLEMS,
  DOCUMENTS_ROUTE,
  documentUploadRequestSchema,
  documentUploadResponseSchema,
} from '../http-contract';
import { jsonSchemaOf, problemResponses, type JsonSchema, type OpenApiPaths } from './openapi';
import {
  DOCUMENT_FILE_FIELD,
  DOCUMENT_UPLOAD_PROBLEM_STATUSES,
  documentsRoutes,
  type UploadLimits,
} from './routes/documents';

/** The scope `POST /v1/documents` needs. */
const DOCUMENTS_SCOPE = 'orders:write';

/** The API's documents: where uploads are stored, and what one client may upload. */
export interface ApiDocuments {
  readonly store: DocumentStore;
  /** Largest document stored, in bytes (`MAX_DOCUMENT_BYTES`). */
  readonly maxBytes: number;
  readonly uploads: UploadLimits;
}

/**
 * The documents of the API's configuration. The store is checked first: one that cannot be written is found at
 * start, not at the first upload.
 */
export async function apiDocumentsFromConfig(
  documents: Pick<ApiConfig['documents'], 'documentsRoot' | 'maxDocumentBytes' | 'store'> & {
    /** @default see `uploadLimitsSchema` */
    readonly uploads?: UploadLimits;
  },
): Promise<ApiDocuments> {
  const maxBytes = documents.maxDocumentBytes;
  const store = documentStoreFromConfig(documents.store, {
    documentsRoot: documents.documentsRoot,
    maxBytes,
  });
  await store.check();
  return { store, maxBytes, uploads: documents.uploads ?? uploadLimitsSchema.parse({}) };
}

/** The OpenAPI paths and schemas of the upload route with these limits. */
export function documentsOpenApi(documents: Pick<ApiDocuments, 'maxBytes' | 'uploads'>): {
  readonly paths: OpenApiPaths;
  readonly schemas: Readonly<Record<string, JsonSchema>>;
} {
  const statuses = [...new Set<number>([...COMMON_PROBLEMS, ...DOCUMENT_UPLOAD_PROBLEM_STATUSES])].sort(
    (a, b) => a - b,
  );
  return {
    paths: {
      [DOCUMENTS_ROUTE]: {
        post: {
          operationId: 'uploadDocument',
          summary: 'Store a document, to name it in an order by reference',
          description:
            `Streams one file (multipart/form-data, part "${DOCUMENT_FILE_FIELD}") into the document store and ` +
            `answers its content-addressed reference; name it in an order as \`{ "ref": … }\`. Only the client ` +
            `that stored a document may name it. Storing the same bytes again answers the same reference. At ` +
            `most ${documents.maxBytes} bytes; at most ${documents.uploads.maxConcurrent} uploads at once and ` +
            `${documents.uploads.quotaBytes} bytes per ${documents.uploads.quotaWindowMs / 1000} s per client.\n\n` +
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
  };
}

/** Registers the upload route over the API's documents, behind the app's authentication. */
export function registerDocumentsRoutes(app: FastifyInstance, documents: ApiDocuments): void {
  void app.register(documentsRoutes, {
    store: documents.store,
    maxBytes: documents.maxBytes,
    limits: documents.uploads,
    ownerOf: (request) => principalOf(request).clientId,
    routeConfig: { scope: DOCUMENTS_SCOPE },
  });
}
