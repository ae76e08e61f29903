/**
 * The document collector against a real dev server, the sandbox, a worker and the local document store, with
 * every document past its grace period: it deletes what no order needs, and never a document that an order
 * waiting in `AwaitingRepair` names, that an order is still uploading, or that is being uploaded to the API.
 * Those orders then complete with exactly their bytes on the platform.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { collectDocuments } from '../../src/api/document-collector';
import type { ApiDocuments } from '../../src/api/documents-plugin';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';
import {
  documentUploadResponseSchema,
  localApiDocuments,
  startTestApi,
  TEST_KEYS,
  type TestApi,
} from './api-server';

const ALL_TYPES = ['image/jpeg', 'image/png', 'application/pdf'];
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('the document collector', () => {
  const stack = useTestStack({ worker: true, resetSandbox: true });
  let api: TestApi;
  let documents: ApiDocuments;

  beforeAll(async () => {
    documents = await localApiDocuments(stack.documentsRoot);
    api = await startTestApi({ orders: stack.orders, documents });
  });
  afterAll(async () => {
    await api?.close();
  });

  const headers = { 'x-api-key': TEST_KEYS.writer.key };

  async function upload(bytes: Buffer, type: string): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), 'scan.bin');
    const answer = await fetch(`${api.url}/v1/documents`, { method: 'POST', body: form, headers });
    expect(answer.status).toBe(201);
    return documentUploadResponseSchema.parse(await answer.json()).ref;
  }

  async function placeOrder(orderRef: string, ref: string): Promise<void> {
    const answer = await fetch(`${api.url}/v1/orders/${orderRef}`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ vehicle: { plate: 'GC-1' }, badge: { type: 'green' }, documents: [{ ref }] }),
    });
    expect(answer.status).toBe(201);
  }

  /** Runs a round as if every document had been stored more than its grace period ago. */
  const collectEverythingUnused = () =>
    collectDocuments({
      store: documents.store,
      orders: stack.orders,
      graceMs: 60_000,
      now: () => Date.now() + 120_000,
    });

  it('keeps the documents of an order awaiting repair, of an upload in progress and of a running upload', async () => {
    // An order whose document the platform refuses: it waits in AwaitingRepair.
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    const awaitingBytes = randomBytes(30_000);
    const awaitingRef = await upload(awaitingBytes, 'image/png');
    await placeOrder('gc-awaiting-repair', awaitingRef);
    await pollUntil(
      () => stack.orders.status({ orderRef: 'gc-awaiting-repair', clientId: 'writer' }),
      (status) => status.searchStatus === 'AwaitingRepair',
      { what: 'the order to await repair' },
    );

    // An order still uploading its document: the platform answers 503 until told otherwise.
    await stack.sandbox.control.setFaults({
      failNext: [{ route: 'documents', count: 10_000, kind: 'error-503' }],
    });
    const uploadingBytes = randomBytes(40_000);
    const uploadingRef = await upload(uploadingBytes, 'application/pdf');
    await placeOrder('gc-uploading', uploadingRef);
    await pollUntil(
      () => stack.sandbox.control.stats(),
      (stats) => (stats.faults['error-503'] ?? 0) > 0,
      { what: 'the platform to have refused the upload once' },
    );
    await pollUntil(
      () => stack.orders.status({ orderRef: 'gc-uploading', clientId: 'writer' }),
      (status) => status.documents[0]?.status === 'uploading',
      { what: 'the order to be uploading' },
    );

    // A document no order names, and one that a completed order named: both unused.
    const orphanRef = await upload(randomBytes(10_000), 'application/pdf');

    // An upload to the API in progress: half its body sent.
    const inFlightBytes = randomBytes(50_000);
    const boundary = `----gc${randomBytes(6).toString('hex')}`;
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="late.pdf"\r\n` +
          `Content-Type: application/pdf\r\n\r\n`,
      ),
      inFlightBytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const request = httpRequest(`${api.url}/v1/documents`, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(body.length),
      },
    });
    const inFlight = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.once('error', reject);
      request.once('response', (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.once('end', () => resolve({ status: response.statusCode ?? 0, text }));
      });
    });
    request.write(body.subarray(0, 30_000));

    const result = await collectEverythingUnused();
    expect(result).toMatchObject({ inUse: 2, deleted: 1 });
    expect(await documents.store.claim(orphanRef, 'writer')).toBeNull();
    expect(await documents.store.claim(awaitingRef, 'writer')).toEqual({ contentType: 'image/png' });
    expect(await documents.store.claim(uploadingRef, 'writer')).toEqual({ contentType: 'application/pdf' });

    // The upload in progress finishes after the round, and is stored.
    request.end(body.subarray(30_000));
    const late = await inFlight;
    expect(late.status).toBe(201);
    const lateRef = documentUploadResponseSchema.parse(JSON.parse(late.text)).ref;
    expect(lateRef).toBe(`sha256:${sha256(inFlightBytes)}`);
    expect(await documents.store.claim(lateRef, 'writer')).toEqual({ contentType: 'application/pdf' });

    // Both orders finish with their own bytes on the platform.
    await stack.sandbox.control.setFaults({});
    const uploaded = await stack.orders.getHandle({ orderRef: 'gc-uploading', clientId: 'writer' }).result();
    await stack.sandbox.control.setRules({ acceptedContentTypes: ALL_TYPES });
    await stack.orders.retryUploads({ orderRef: 'gc-awaiting-repair', clientId: 'writer' });
    const repaired = await stack.orders
      .getHandle({ orderRef: 'gc-awaiting-repair', clientId: 'writer' })
      .result();
    for (const [result, bytes] of [
      [uploaded, uploadingBytes],
      [repaired, awaitingBytes],
    ] as const) {
      const onPlatform = await stack.sandbox.control.listDocuments({ orderId: result.orderId });
      expect(onPlatform.map((document) => document.sha256)).toEqual([sha256(bytes)]);
    }

    // Now nothing runs: the next round takes what the closed orders named, and the late upload too.
    const after = await collectEverythingUnused();
    expect(after).toMatchObject({ inUse: 0, deleted: 3 });
    expect(await documents.store.listStored()).toEqual([]);
  });
});
