/**
 * The API as `npm run api` assembles it: documents uploaded through `POST /v1/documents` are named in an order
 * by reference and reach the platform; the order records the caller's key id as its `clientId`, so its webhooks
 * are signed with that client's secret; a callback URL the workers would refuse is refused at once. Real dev
 * server, real sandbox, a worker with webhook secrets, a receiver over HTTP.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/common';
import { referenceKeys } from '../../src/documents/store';
import { problemSchema } from '../../src/http-contract';
import { useTestStack } from '../helpers/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';
import { pollUntil } from '../../tools/dev/poll';
import {
  documentUploadResponseSchema,
  localApiDocuments,
  startTestApi,
  TEST_KEYS,
  type TestApi,
} from './api-server';

/** One secret per API key id, and the default for orders without a client. */
const SECRETS = { writer: 'writer-secret-0123456789abcdef', default: 'default-secret-0123456789abcd' };
const MAX_BYTES = 4 * 1024 * 1024;
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('the API with the document store and webhooks', () => {
  const stack = useTestStack({ resetSandbox: true });
  let receiver: WebhookReceiver;
  let api: TestApi;
  let strictApi: TestApi;

  beforeAll(async () => {
    receiver = await startWebhookReceiver(stack.local, { secrets: SECRETS });
    await stack.local.startWorker({
      config: { webhooks: { secrets: SECRETS, allowHttpLoopback: true, allowedHosts: [] } },
    });

    // The store as the API builds it from DOCUMENT_STORE (unset: local, under DOCUMENTS_ROOT, as the worker's).
    const documents = await localApiDocuments(stack.documentsRoot, MAX_BYTES);
    api = await startTestApi({
      orders: stack.orders,
      documents,
      webhooks: { allowHttpLoopback: true },
    });
    // As `WEBHOOK_ALLOW_HTTP_LOOPBACK=false` and `WEBHOOK_ALLOWED_HOSTS=hooks.example.com,*.partner.example`.
    strictApi = await startTestApi({
      orders: stack.orders,
      webhooks: { allowHttpLoopback: false, allowedHosts: ['hooks.example.com', '*.partner.example'] },
    });
  });
  afterAll(async () => {
    await api?.close();
    await strictApi?.close();
  });

  const upload = (key: keyof typeof TEST_KEYS | null, bytes: Buffer, type: string): Promise<Response> => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), 'scan.bin');
    return fetch(`${api.url}/v1/documents`, {
      method: 'POST',
      body: form,
      headers: key === null ? {} : { 'x-api-key': TEST_KEYS[key].key },
    });
  };

  const putOrder = (target: TestApi, orderRef: string, body: Record<string, unknown>): Promise<Response> =>
    fetch(`${target.url}/v1/orders/${orderRef}`, {
      method: 'PUT',
      headers: { 'x-api-key': TEST_KEYS.writer.key, 'content-type': 'application/json' },
      body: JSON.stringify({ vehicle: { licensePlate: 'B-API 77' }, badge: { type: 'green' }, ...body }),
    });

  it('stores an upload, and an order naming it by reference puts exactly those bytes on the platform', async () => {
    const photo = randomBytes(600_000);
    const answer = await upload('writer', photo, 'image/jpeg');
    expect(answer.status).toBe(201);
    const stored = documentUploadResponseSchema.parse(await answer.json());
    expect(stored).toEqual({
      ref: `sha256:${sha256(photo)}`,
      sizeBytes: photo.length,
      contentType: 'image/jpeg',
    });

    const placed = await putOrder(api, 'api-by-ref', { documents: [{ ref: stored.ref }] });
    expect(placed.status).toBe(201);
    const result = await stack.orders.getHandle({ orderRef: 'api-by-ref', clientId: 'writer' }).result();
    expect(result.documents.map((document) => document.status)).toEqual(['uploaded']);
    const onPlatform = await stack.sandbox.control.listDocuments({ orderId: result.orderId });
    expect(onPlatform.map((document) => [document.sha256, document.content_type])).toEqual([
      [sha256(photo), 'image/jpeg'],
    ]);
  });

  it('answers a PUT naming a reference 503 document-store-unavailable, with retry-after, while the store fails; nothing starts', async () => {
    const answer = await upload('writer', randomBytes(3_000), 'application/pdf');
    const { ref } = documentUploadResponseSchema.parse(await answer.json());
    // The writer's mark of the document cannot be written (a folder where its file is): the store fails.
    const mark = join(stack.documentsRoot, '.document-store', referenceKeys(ref).owners, 'writer');
    rmSync(mark);
    mkdirSync(mark);
    try {
      const placed = await putOrder(api, 'api-store-failing', { documents: [{ ref }] });
      expect(placed.status).toBe(503);
      expect(placed.headers.get('retry-after')).toBe('5');
      expect(problemSchema.parse(await placed.json()).code).toBe('document-store-unavailable');
      await expect(
        stack.orders.getHandle({ orderRef: 'api-store-failing', clientId: 'writer' }).describe(),
      ).rejects.toThrow(WorkflowNotFoundError);
    } finally {
      rmSync(mark, { recursive: true });
    }
  });

  it('needs orders:write to upload, and refuses a file over the limit as a problem naming the field', async () => {
    const missing = await upload(null, Buffer.from('x'), 'image/png');
    expect(missing.status).toBe(401);
    expect(problemSchema.parse(await missing.json()).code).toBe('unauthenticated');
    const reader = await upload('reader', Buffer.from('x'), 'image/png');
    expect(reader.status).toBe(403);
    expect(problemSchema.parse(await reader.json()).code).toBe('insufficient-scope');
    const tooLarge = await upload('writer', Buffer.alloc(MAX_BYTES + 1, 1), 'image/png');
    expect(tooLarge.status).toBe(413);
    const problem = problemSchema.parse(await tooLarge.json());
    expect(problem).toMatchObject({
      code: 'document-too-large',
      errors: [expect.objectContaining({ field: 'file' })],
    });
    // The upload's problems are the API's problems: the same schema describes them.
    expect(problemSchema.safeParse(problem).success).toBe(true);
  });

  it("records the caller's key id as the order's client: its webhooks are signed with that client's secret", async () => {
    const placed = await putOrder(api, 'api-webhooks', {
      documents: [{ path: stack.writeDocument('clients/writer/api-webhooks/form.pdf', '%PDF-1.4 form') }],
      callbackUrl: `${receiver.baseUrl}/hooks`,
    });
    expect(placed.status).toBe(201);
    await stack.orders.getHandle({ orderRef: 'api-webhooks', clientId: 'writer' }).result();
    const completed = await pollUntil(
      () => Promise.resolve(receiver.deliveries.filter(({ event }) => event.orderRef === 'api-webhooks')),
      (events) => events.some(({ event }) => event.type === 'order.completed'),
      { what: 'the order.completed webhook of api-webhooks', timeoutMs: 60_000 },
    );
    expect(completed.map(({ signer }) => signer)).toEqual(completed.map(() => 'writer'));
  });

  it('refuses a clientId in the body, and callback URLs the workers would refuse, naming the field', async () => {
    const withClient = await putOrder(api, 'api-client-given', {
      documents: [{ path: 'clients/writer/x.pdf' }],
      clientId: 'someone-else',
    });
    expect(withClient.status).toBe(400);
    expect(problemSchema.parse(await withClient.json()).errors?.map((error) => error.field)).toEqual([
      'body.clientId',
    ]);
    const loopback = await putOrder(strictApi, 'api-loopback-hook', {
      documents: [{ path: 'clients/writer/x.pdf' }],
      callbackUrl: `${receiver.baseUrl}/hooks`,
    });
    expect(loopback.status).toBe(400);
    const problem = problemSchema.parse(await loopback.json());
    expect(problem.errors).toEqual([
      {
        field: 'body.callbackUrl',
        message: 'must be an https:// URL (http:// to this machine is switched off)',
      },
    ]);
    const internal = await putOrder(strictApi, 'api-internal-hook', {
      documents: [{ path: 'clients/writer/x.pdf' }],
      callbackUrl: 'https://billing.internal.example/hooks',
    });
    expect(internal.status).toBe(400);
    expect(problemSchema.parse(await internal.json()).errors).toEqual([
      {
        field: 'body.callbackUrl',
        message:
          'must be on a host this service delivers webhooks to (billing.internal.example is not one; ask its operators)',
      },
    ]);
    // Nothing was started for any of them.
    for (const orderRef of ['api-client-given', 'api-loopback-hook', 'api-internal-hook']) {
      await expect(stack.orders.getHandle({ orderRef, clientId: 'writer' }).describe()).rejects.toThrow(
        WorkflowNotFoundError,
      );
    }
  });
});
