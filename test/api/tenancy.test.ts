/**
 * Backends are tenants. Two clients (`writer`, with its read-only key `reader`, and `other`) against a real dev
 * server, the sandbox, a worker and the local document store: neither sees, lists, reuses or collides with the
 * other's orders, document references or failed order references; an order's files come only from its client's
 * folder, whatever links lie there; operators see every order; orders placed before clients had workflow ids of
 * their own stay their client's.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/common';
import { INPUT_HASH_MEMO_KEY, orderInputHash } from '../../src/api/input-hash';
import { badgeOrderWorkflowId, parseBadgeOrderInput } from '../../src/contract';
import { problemSchema } from '../../src/http-contract';
import { BadgeOrderClient, WORKFLOW_TYPES } from '../../src/workflow-contract';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';
import {
  documentUploadResponseSchema,
  localApiDocuments,
  orderAcceptedSchema,
  orderPageSchema,
  orderViewSchema,
  startTestApi,
  TEST_KEYS,
  type TestApi,
} from './api-server';

type Key = keyof typeof TEST_KEYS;

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

describe('tenancy of the HTTP API', () => {
  const stack = useTestStack({ worker: true });
  let api: TestApi;

  beforeAll(async () => {
    const documents = await localApiDocuments(stack.documentsRoot);
    api = await startTestApi({ orders: stack.orders, documents });
  });
  afterAll(async () => {
    await api?.close();
  });
  afterEach(async () => {
    await stack.sandbox.control.setRules({
      acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf'],
    });
  });

  async function call(method: string, path: string, key: Key, body?: unknown): Promise<Answer> {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: {
        'x-api-key': TEST_KEYS[key].key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  }

  const fieldErrors = (answer: Answer): { field: string; message: string }[] =>
    problemSchema.parse(answer.body).errors ?? [];

  /** A body naming a file in `client`'s own folder. */
  function orderBody(client: string, orderRef: string, name = 'scan.pdf'): Record<string, unknown> {
    return {
      vehicle: { licensePlate: `T-EN ${client}` },
      badge: { type: 'green' },
      documents: [
        { path: stack.writeDocument(`clients/${client}/${orderRef}/${name}`, `${client}'s ${name}`) },
      ],
    };
  }

  /** Uploads `bytes` with the file part's content type `type`; answers what the API stored. */
  async function uploadAs(key: Key, bytes: Buffer, type: string) {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), 'scan.bin');
    const answer = await fetch(`${api.url}/v1/documents`, {
      method: 'POST',
      body: form,
      headers: { 'x-api-key': TEST_KEYS[key].key },
    });
    expect(answer.status).toBe(201);
    return documentUploadResponseSchema.parse(await answer.json());
  }

  const upload = async (key: Key, bytes: Buffer): Promise<string> =>
    (await uploadAs(key, bytes, 'application/pdf')).ref;

  /** Every order a key lists (all pages). */
  async function listAll(key: Key, query = ''): Promise<{ orderRef: string; clientId: string | null }[]> {
    const listed: { orderRef: string; clientId: string | null }[] = [];
    let token: string | null = null;
    do {
      const suffix: string = token === null ? '' : `&pageToken=${encodeURIComponent(token)}`;
      const answer = await call('GET', `/v1/orders?pageSize=100${query}${suffix}`, key);
      expect(answer.status).toBe(200);
      const page = orderPageSchema.parse(answer.body);
      listed.push(...page.orders.map(({ orderRef, clientId }) => ({ orderRef, clientId })));
      token = page.nextPageToken;
    } while (token !== null);
    return listed;
  }

  it('gives two clients with the same orderRef two orders, each seen only by its own client', async () => {
    const orderRef = 'tenant-shared';
    const mine = await call('PUT', `/v1/orders/${orderRef}`, 'writer', orderBody('writer', orderRef));
    const theirs = await call('PUT', `/v1/orders/${orderRef}`, 'other', orderBody('other', orderRef));
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    const writerResult = await stack.orders.getHandle({ orderRef, clientId: 'writer' }).result();
    const otherResult = await stack.orders.getHandle({ orderRef, clientId: 'other' }).result();
    expect(writerResult.orderId).not.toBe(otherResult.orderId);
    expect(writerResult.documents.map((document) => document.path)).toEqual([
      `clients/writer/${orderRef}/scan.pdf`,
    ]);

    // Each reads its own under the same orderRef: never the other's documents, ids or links.
    for (const [key, client, result] of [
      ['reader', 'writer', writerResult],
      ['other', 'other', otherResult],
    ] as const) {
      const view = orderViewSchema.parse((await call('GET', `/v1/orders/${orderRef}`, key)).body);
      expect(view).toMatchObject({ orderRef, clientId: client, orderId: String(result.orderId) });
      expect(view.result?.documents.map((document) => document.path)).toEqual([
        `clients/${client}/${orderRef}/scan.pdf`,
      ]);
    }
    // The platform holds two orders, each with its client's file.
    for (const result of [writerResult, otherResult]) {
      expect(await stack.sandbox.control.listDocuments({ orderId: result.orderId })).toHaveLength(1);
    }
  });

  it("answers 404 for another client's order, lists only a client's own, and lets operators see all", async () => {
    const orderRef = 'tenant-writer-only';
    expect(
      (await call('PUT', `/v1/orders/${orderRef}`, 'writer', orderBody('writer', orderRef))).status,
    ).toBe(201);
    await stack.orders.getHandle({ orderRef, clientId: 'writer' }).result();

    // Not found, exactly as an order that does not exist: no oracle.
    const unknown = await call('GET', '/v1/orders/tenant-no-such-order', 'other');
    for (const path of [`/v1/orders/${orderRef}`, `/v1/orders/${orderRef}?clientId=writer`]) {
      const refused = await call('GET', path, 'other');
      expect(refused.status).toBe(404);
      expect(problemSchema.parse(refused.body)).toMatchObject({
        code: 'order-not-found',
        detail: `There is no order ${orderRef}`,
      });
      expect(problemSchema.parse(unknown.body).code).toBe('order-not-found');
    }
    // A client's list is its own; naming another client in it needs ops.
    const otherSees = await pollUntil(
      () => listAll('other'),
      (listed) => listed.some((order) => order.orderRef === 'tenant-shared'),
      { what: "the other client's order in visibility" },
    );
    expect(otherSees.every((order) => order.clientId === 'other')).toBe(true);
    expect(otherSees.map((order) => order.orderRef)).not.toContain(orderRef);
    expect((await call('GET', '/v1/orders?clientId=writer', 'other')).status).toBe(403);
    const writerSees = await pollUntil(
      () => listAll('reader'),
      (listed) => listed.some((order) => order.orderRef === orderRef),
      { what: "the writer's order in visibility" },
    );
    expect(writerSees.every((order) => order.clientId === 'writer')).toBe(true);
    // A page token of one client's listing is no token of another's.
    const firstPage = orderPageSchema.parse((await call('GET', '/v1/orders?pageSize=1', 'reader')).body);
    expect(firstPage.nextPageToken).not.toBeNull();
    const stolen = await call(
      'GET',
      `/v1/orders?pageSize=1&pageToken=${encodeURIComponent(firstPage.nextPageToken ?? '')}`,
      'other',
    );
    expect(fieldErrors(stolen).map((error) => error.field)).toEqual(['query.pageToken']);

    // Operators: every client's orders, each named by its client.
    const operatorView = await call('GET', `/v1/orders/${orderRef}?clientId=writer`, 'operator');
    expect(orderViewSchema.parse(operatorView.body)).toMatchObject({ orderRef, clientId: 'writer' });
    expect((await call('GET', `/v1/orders/${orderRef}`, 'operator')).status).toBe(404);
    const all = await listAll('operator');
    expect(new Set(all.map((order) => order.clientId))).toEqual(new Set(['writer', 'other']));
    expect((await listAll('operator', '&clientId=other')).every((order) => order.clientId === 'other')).toBe(
      true,
    );
    // Retry, replace and reconcile are operators' (and name the client like any order route).
    expect((await call('POST', `/v1/orders/${orderRef}/retry`, 'other')).status).toBe(403);
    const closed = await call('POST', `/v1/orders/${orderRef}/retry?clientId=writer`, 'operator');
    expect(problemSchema.parse(closed.body).code).toBe('order-closed');
  });

  it("refuses another client's document reference exactly like an unknown one, naming the field", async () => {
    const bytes = randomBytes(5_000);
    const writerRef = await upload('writer', bytes);
    const put = (key: Key, orderRef: string, ref: string): Promise<Answer> =>
      call('PUT', `/v1/orders/${orderRef}`, key, {
        vehicle: { licensePlate: 'R-EF 1' },
        badge: { type: 'green' },
        documents: [{ ref }],
      });
    const stolen = await put('other', 'tenant-ref-stolen', writerRef);
    const unknown = await put('other', 'tenant-ref-unknown', `sha256:${'0'.repeat(64)}`);
    expect(stolen.status).toBe(400);
    expect(fieldErrors(stolen)).toEqual([
      {
        field: 'body.documents.0.ref',
        message: 'is not a document this client stored: upload it with POST /v1/documents first',
      },
    ]);
    expect(fieldErrors(unknown)).toEqual(fieldErrors(stolen));
    for (const orderRef of ['tenant-ref-stolen', 'tenant-ref-unknown']) {
      await expect(stack.orders.getHandle({ orderRef, clientId: 'other' }).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );
    }
    // The same bytes stored by `other` are its own too; the owner's order goes through.
    expect(await upload('other', bytes)).toBe(writerRef);
    expect((await put('other', 'tenant-ref-own', writerRef)).status).toBe(201);
    expect((await put('writer', 'tenant-ref-own', writerRef)).status).toBe(201);
  });

  it("answers each client the content type it stored the same bytes with, and uploads each client's order with its own", async () => {
    const bytes = randomBytes(6_000);
    const writers = await uploadAs('writer', bytes, 'image/png');
    // The other client guesses a type: the answer is its own, never the writer's, so it learns nothing.
    const probe = await uploadAs('other', bytes, 'x-probe/guess');
    expect(probe).toEqual({ ...writers, contentType: 'x-probe/guess' });
    expect(writers.contentType).toBe('image/png');
    const others = await uploadAs('other', bytes, 'application/pdf');
    expect(others).toEqual({ ...writers, contentType: 'application/pdf' });

    // Each order names the reference without a content type: each is uploaded with its own client's.
    const body = {
      vehicle: { licensePlate: 'C-TY 1' },
      badge: { type: 'green' },
      documents: [{ ref: writers.ref }],
    };
    for (const key of ['writer', 'other'] as const) {
      expect((await call('PUT', '/v1/orders/tenant-content-type', key, body)).status).toBe(201);
    }
    // The idempotency hash is over what the caller sent, not the content type filled in: the same PUT
    // attaches, also after the client stored the bytes again with another type (its order keeps the type it
    // started with).
    expect((await uploadAs('other', bytes, 'image/jpeg')).contentType).toBe('image/jpeg');
    const again = await call('PUT', '/v1/orders/tenant-content-type', 'other', body);
    expect(again.status).toBe(200);
    expect(orderAcceptedSchema.parse(again.body).created).toBe(false);
    for (const [clientId, contentType] of [
      ['writer', 'image/png'],
      ['other', 'application/pdf'],
    ] as const) {
      const result = await stack.orders.getHandle({ orderRef: 'tenant-content-type', clientId }).result();
      const onPlatform = await stack.sandbox.control.listDocuments({ orderId: String(result.orderId) });
      expect(onPlatform.map((document) => [document.sha256, document.content_type])).toEqual([
        [writers.ref.slice('sha256:'.length), contentType],
      ]);
    }
  });

  it("replaces a document only with its client's own reference or a file in its folder (400 naming body.newPath), before the order hears of it", async () => {
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['image/png'] });
    const orderRef = 'tenant-replace';
    expect(
      (await call('PUT', `/v1/orders/${orderRef}`, 'writer', orderBody('writer', orderRef))).status,
    ).toBe(201);
    const handle = stack.orders.getHandle({ orderRef, clientId: 'writer' });
    await pollUntil(
      () => stack.orders.status({ orderRef, clientId: 'writer' }),
      (view) => view.searchStatus === 'AwaitingRepair',
      { what: 'the refused document to await repair' },
    );
    const replace = (newPath: string): Promise<Answer> =>
      call('POST', `/v1/orders/${orderRef}/documents/0/replace?clientId=writer`, 'operator', { newPath });

    const othersRef = await upload('other', randomBytes(4_000));
    expect(fieldErrors(await replace(othersRef))).toEqual([
      {
        field: 'body.newPath',
        message: 'is not a document this client stored: upload it with POST /v1/documents first',
      },
    ]);
    const othersFile = stack.writeDocument('clients/other/tenant-replace/scan.pdf', "other's scan");
    expect(fieldErrors(await replace(othersFile))).toEqual([
      {
        field: 'body.newPath',
        message: "must be inside clients/writer/ (this client's folder under DOCUMENTS_ROOT)",
      },
    ]);
    const history = await handle.fetchHistory();
    expect(history.events?.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toEqual(
      [],
    );

    // The writer's own upload replaces it, with the type the writer stored it with (the other client stored
    // the same bytes first, as a type the platform now refuses).
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    const ownBytes = randomBytes(4_000);
    await uploadAs('other', ownBytes, 'image/png');
    const ownRef = await upload('writer', ownBytes);
    const replaced = await replace(ownRef);
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ sourcePath: ownRef, status: 'uploaded' });
  });

  it("takes path documents only from the client's own folder, and the worker follows no link out of it", async () => {
    const intoWriters = await call('PUT', '/v1/orders/tenant-path', 'other', {
      ...orderBody('other', 'tenant-path'),
      documents: [{ path: stack.writeDocument('clients/writer/tenant-path/secret.pdf', "writer's secret") }],
    });
    expect(fieldErrors(intoWriters)).toEqual([
      {
        field: 'body.documents.0.path',
        message: "must be inside clients/other/ (this client's folder under DOCUMENTS_ROOT)",
      },
    ]);
    const setByUs = await call('PUT', '/v1/orders/tenant-path', 'other', {
      ...orderBody('other', 'tenant-path'),
      documentsFolder: 'clients/writer',
    });
    expect(fieldErrors(setByUs).map((error) => error.field)).toEqual(['body.documentsFolder']);

    // A link inside the client's folder to the other client's folder: the path passes the API's check, and
    // the worker, opening it, refuses the file it leads to.
    mkdirSync(join(stack.documentsRoot, 'clients/other'), { recursive: true });
    symlinkSync(
      join(stack.documentsRoot, 'clients/writer'),
      join(stack.documentsRoot, 'clients/other/linked'),
    );
    const linked = await call('PUT', '/v1/orders/tenant-linked', 'other', {
      vehicle: { licensePlate: 'L-NK 1' },
      badge: { type: 'green' },
      documents: [{ path: 'clients/other/linked/tenant-path/secret.pdf' }],
    });
    expect(linked.status).toBe(201);
    const status = await pollUntil(
      () => stack.orders.status({ orderRef: 'tenant-linked', clientId: 'other' }),
      (view) => view.searchStatus === 'AwaitingRepair',
      { what: 'the linked document to be refused' },
    );
    expect(status.documents[0]?.lastError).toContain(
      'resolves outside clients/other/ (symlink escape refused)',
    );
    expect(status.orderId).not.toBeNull();
    expect(await stack.sandbox.control.listDocuments({ orderId: String(status.orderId) })).toEqual([]);
  });

  it("never meets another client's failed orderRef", async () => {
    // The writer's order fails after the platform created it: placing that ref again is refused for the writer.
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['image/png'] });
    const orderRef = 'tenant-failed';
    const failing = {
      ...orderBody('writer', orderRef),
      options: { repairWindowMs: 1_000 },
    };
    expect((await call('PUT', `/v1/orders/${orderRef}`, 'writer', failing)).status).toBe(201);
    await expect(stack.orders.getHandle({ orderRef, clientId: 'writer' }).result()).rejects.toThrow();
    await stack.sandbox.control.setRules({ acceptedContentTypes: ['application/pdf'] });
    const again = await call('PUT', `/v1/orders/${orderRef}`, 'writer', failing);
    expect(problemSchema.parse(again.body)).toMatchObject({ status: 409, code: 'order-may-exist' });
    // The other client's order of that ref is its own, new one.
    const theirs = await call('PUT', `/v1/orders/${orderRef}`, 'other', orderBody('other', orderRef));
    expect(theirs.status).toBe(201);
    const result = await stack.orders.getHandle({ orderRef, clientId: 'other' }).result();
    expect(result.documents).toHaveLength(1);
  });

  it('keeps an order its client placed before orders had client ids of their own', async () => {
    // As 0.3.0 placed it through the API: workflow id badge-order-<orderRef>, the client only in the input, no
    // BadgeOrderClient, the memo the hash of that input (0.3.0 set no documentsFolder).
    const orderRef = 'tenant-legacy';
    const body = orderBody('writer', orderRef);
    const input = parseBadgeOrderInput({ ...body, orderRef, clientId: 'writer' });
    const legacy = await stack.temporal.client.workflow.start(WORKFLOW_TYPES.badgeOrder, {
      taskQueue: stack.taskQueue,
      workflowId: badgeOrderWorkflowId(orderRef),
      args: [input],
      memo: { [INPUT_HASH_MEMO_KEY]: orderInputHash(input) },
    });
    await legacy.result();
    expect((await legacy.describe()).typedSearchAttributes.get(BadgeOrderClient)).toBeUndefined();

    // Its client finds it under its orderRef; another client does not.
    const view = orderViewSchema.parse((await call('GET', `/v1/orders/${orderRef}`, 'reader')).body);
    expect(view.workflowId).toBe(badgeOrderWorkflowId(orderRef));
    expect((await call('GET', `/v1/orders/${orderRef}`, 'other')).status).toBe(404);
    // Placing it again never places it twice: the same input attaches to the old order, another is refused.
    const again = await call('PUT', `/v1/orders/${orderRef}`, 'writer', body);
    expect(again.status).toBe(200);
    expect(orderAcceptedSchema.parse(again.body)).toMatchObject({
      created: false,
      workflowId: badgeOrderWorkflowId(orderRef),
      runId: legacy.firstExecutionRunId,
    });
    const different = await call('PUT', `/v1/orders/${orderRef}`, 'writer', {
      ...body,
      badge: { type: 'red' },
    });
    expect(problemSchema.parse(different.body).code).toBe('order-conflict');
    await expect(stack.orders.getHandle({ orderRef, clientId: 'writer' }).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
    // The other client's order of that ref is new and its own.
    expect((await call('PUT', `/v1/orders/${orderRef}`, 'other', orderBody('other', orderRef))).status).toBe(
      201,
    );
  });
});
