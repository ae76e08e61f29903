/**
 * The demo's HTTP API part: the API (`src/api`, as `npm run api` assembles it, with the local document store)
 * in this process on a free loopback port with a freshly generated key; one order placed through it the way a
 * backend in any language would (`POST /v1/documents`, then `PUT /v1/orders/{orderRef}` naming the document by
 * reference); and the `curl` commands that do the same by hand.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { buildApiApp } from '../../src/api/app';
import { API_KEY_HEADER, createAuthenticator, hashApiKey, newApiKey } from '../../src/api/auth';
import { API_SCOPES } from '../../src/api/config';
import { apiDocumentsFromConfig } from '../../src/api/documents-plugin';
import type { BadgeOrdersClient } from '../../src/client/badge-orders-client';

/** The API as the demo runs it. */
export interface DemoApi {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The demo's API key (all scopes); it exists only while the demo runs. */
  readonly key: string;
  close(): Promise<void>;
}

/** Options of {@link startDemoApi}. */
export interface StartDemoApiOptions {
  readonly orders: BadgeOrdersClient;
  /** The workers' DOCUMENTS_ROOT: the local store lives under it, where the workers look. */
  readonly documentsRoot: string;
}

/** The demo API key's id, so the client that owns the order placed through the API. */
export const DEMO_API_CLIENT = 'demo';

/** Largest upload the demo's API takes. */
const MAX_DOCUMENT_BYTES = 100 * 1024 * 1024;

/** Starts the API on a free loopback port with a new key holding every scope. */
export async function startDemoApi(options: StartDemoApiOptions): Promise<DemoApi> {
  const key = newApiKey();
  const documents = await apiDocumentsFromConfig({
    store: { kind: 'local' },
    documentsRoot: options.documentsRoot,
    maxDocumentBytes: MAX_DOCUMENT_BYTES,
  });
  const app = await buildApiApp({
    orders: options.orders,
    authenticator: createAuthenticator({
      apiKeys: [{ id: DEMO_API_CLIENT, sha256: hashApiKey(key), scopes: [...API_SCOPES] }],
    }),
    documents,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, key, close: () => app.close() };
}

/** The order the demo places through the API: its body without documents, and one file to upload. */
export interface DemoApiOrder {
  readonly orderRef: string;
  /** The `PUT` body's fields other than `documents` (vehicle, badge, stockId, …). */
  readonly body: Readonly<Record<string, unknown>>;
  /** The document to upload, an absolute path. */
  readonly documentPath: string;
  readonly contentType: string;
}

/** What placing the order answered. */
export interface PlacedApiOrder {
  /** The stored document's reference (`sha256:<hex>`). */
  readonly ref: string;
  /** The `PUT` answer's status: 201 new, 200 when the same order already existed. */
  readonly putStatus: number;
  /** The `PUT` body sent, documents included. */
  readonly putBody: Readonly<Record<string, unknown>>;
}

/** Uploads the document, then places the order naming it by reference; throws on any other status. */
export async function placeOrderThroughApi(api: DemoApi, order: DemoApiOrder): Promise<PlacedApiOrder> {
  const form = new FormData();
  form.append(
    'file',
    new Blob([readFileSync(order.documentPath)], { type: order.contentType }),
    basename(order.documentPath),
  );
  const uploaded = await fetch(`${api.url}/v1/documents`, {
    method: 'POST',
    headers: { [API_KEY_HEADER]: api.key },
    body: form,
  });
  if (uploaded.status !== 201) {
    throw new Error(`POST /v1/documents answered ${uploaded.status}: ${await uploaded.text()}`);
  }
  const { ref } = (await uploaded.json()) as { ref: string };
  const putBody = { ...order.body, documents: [{ ref }] };
  const placed = await fetch(`${api.url}/v1/orders/${encodeURIComponent(order.orderRef)}`, {
    method: 'PUT',
    headers: { [API_KEY_HEADER]: api.key, 'content-type': 'application/json' },
    body: JSON.stringify(putBody),
  });
  if (placed.status !== 201 && placed.status !== 200) {
    throw new Error(`PUT /v1/orders/${order.orderRef} answered ${placed.status}: ${await placed.text()}`);
  }
  return { ref, putStatus: placed.status, putBody };
}

/** Single-quotes a value for a POSIX shell. */
const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * The commands that repeat what {@link placeOrderThroughApi} did, for a shell: the variables first, then the
 * upload (answers the same reference: content-addressed), the `PUT` (answers 200: the same input attaches to
 * the order) and the status `GET`.
 */
export function curlCommands(api: DemoApi, order: DemoApiOrder, placed: PlacedApiOrder): string[] {
  const path = `/v1/orders/${encodeURIComponent(order.orderRef)}`;
  return [
    `export BADGE_API=${api.url} BADGE_API_KEY=${api.key}`,
    `curl -sS -X POST "$BADGE_API/v1/documents" -H "X-API-Key: $BADGE_API_KEY" ` +
      `-F ${shellQuote(`file=@${order.documentPath};type=${order.contentType}`)}`,
    `curl -sS -X PUT "$BADGE_API${path}" -H "X-API-Key: $BADGE_API_KEY" ` +
      `-H 'Content-Type: application/json' -d ${shellQuote(JSON.stringify(placed.putBody))}`,
    `curl -sS "$BADGE_API${path}" -H "X-API-Key: $BADGE_API_KEY"`,
  ];
}
