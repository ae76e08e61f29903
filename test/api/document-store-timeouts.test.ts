/**
 * A document store that stops answering holds no request of the API: a claim of a reference an order names is
 * given up after API_OPERATION_TIMEOUT_MS (503, retry), and an S3 call after DOCUMENT_STORE_S3_TIMEOUT_MS. The
 * store is an S3 endpoint that accepts connections and never answers; the routes refuse before Temporal is
 * asked, so the orders client has a connection that is never opened.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { buildApiApp } from '../../src/api/app';
import { createAuthenticator } from '../../src/api/auth';
import { uploadLimitsSchema } from '../../src/api/config';
import { BadgeOrdersClient } from '../../src/client/badge-orders-client';
import { createS3DocumentStore } from '../../src/documents';
import { problemSchema } from '../../src/http-contract';
import { CleanupList } from '../../tools/stack';
import { startStalledServer, type StalledServer } from '../helpers/stalled-server';
import { TEST_KEYS, testKeyEntries } from './api-server';

const cleanups = new CleanupList();
let stalled: StalledServer;
beforeAll(async () => {
  stalled = await startStalledServer();
  cleanups.add('stalled S3', () => stalled.close());
});
afterAll(() => cleanups.run());

/** The API over real HTTP with a store on the stalled endpoint, S3 calls given up after `s3TimeoutMs`. */
async function apiOnStalledStore(s3TimeoutMs: number): Promise<string> {
  const store = createS3DocumentStore({
    bucket: 'documents',
    endpoint: stalled.url,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test-secret' },
    maxBytes: 1024 * 1024,
    timeoutMs: s3TimeoutMs,
  });
  const app = await buildApiApp({
    orders: new BadgeOrdersClient({
      client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
    }),
    authenticator: createAuthenticator({ apiKeys: testKeyEntries() }),
    limits: { operationTimeoutMs: 300 },
    documents: { store, maxBytes: 1024 * 1024, uploads: uploadLimitsSchema.parse({}) },
  });
  cleanups.add('an API', () => app.close());
  return app.listen({ host: '127.0.0.1', port: 0 });
}

const asProblem = async (response: Response) => problemSchema.parse(await response.json());

describe('a document store that does not answer', () => {
  it('turns an order naming a reference away with 503 after API_OPERATION_TIMEOUT_MS, not holding it', async () => {
    // S3's own limit far beyond the API's: the API's decides.
    const url = await apiOnStalledStore(10 * 60_000);
    const response = await fetch(`${url}/v1/orders/stalled-1`, {
      method: 'PUT',
      headers: { 'x-api-key': TEST_KEYS.writer.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        vehicle: { plate: 'B-XY 1' },
        badge: { colour: 'green' },
        documents: [{ ref: `sha256:${randomBytes(32).toString('hex')}` }],
      }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await asProblem(response)).toMatchObject({ code: 'document-store-unavailable' });
  });

  it('answers an upload 503 once S3 has not answered for DOCUMENT_STORE_S3_TIMEOUT_MS', async () => {
    const url = await apiOnStalledStore(200);
    const form = new FormData();
    form.append('file', new Blob([randomBytes(1000)], { type: 'image/png' }), 'scan.png');
    const response = await fetch(`${url}/v1/documents`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEYS.writer.key },
      body: form,
    });
    expect(response.status).toBe(503);
    expect(await asProblem(response)).toMatchObject({ code: 'document-store-unavailable' });
  });
});
