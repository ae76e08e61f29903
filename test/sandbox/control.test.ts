import { DEMO_USER, SandboxControl, SandboxControlError, startSandbox } from '../../src/sandbox';
import { useSandbox } from './fixture';
import { createOrder, errorOf, http, orderPayload, smallFile, tokenFor, uploadDocument } from './helpers';

const sandbox = useSandbox({
  controlToken: 'test-control-token',
  rules: { maxUploadBytes: 1234 },
  faults: { failNext: { route: 'orders', kind: 'error-500' } },
});

describe('control API authentication', () => {
  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer nope' }],
  ])('answers 401 with %s', async (_case, headers) => {
    const response = await http.get(`${sandbox.baseUrl}/_sandbox/state`, { headers });
    expect(response.status).toBe(401);
    expect(errorOf(response)).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it("rejects a user's access token", async () => {
    const userToken = await tokenFor(sandbox.baseUrl, DEMO_USER);
    const response = await http.get(`${sandbox.baseUrl}/_sandbox/stats`, {
      headers: { authorization: `Bearer ${userToken}` },
    });
    expect(response.status).toBe(401);
  });

  it('makes SandboxControl throw SandboxControlError with the status', async () => {
    const wrong = new SandboxControl({ baseUrl: sandbox.baseUrl, controlToken: 'nope' });
    await expect(wrong.state()).rejects.toBeInstanceOf(SandboxControlError);
    await expect(wrong.state()).rejects.toMatchObject({ status: 401 });
  });

  it('uses the given control token and a random one by default', async () => {
    expect(sandbox.controlToken).toBe('test-control-token');
    const other = await startSandbox();
    try {
      expect(other.controlToken).toMatch(/^[0-9a-f]{64}$/);
      await expect(other.control.stats()).resolves.toMatchObject({ totalRequests: 0 });
    } finally {
      await other.close();
    }
  });
});

describe('configuration endpoints', () => {
  it('reports the start configuration', async () => {
    expect(await sandbox.control.faults()).toEqual({
      failNext: [{ route: 'orders', count: 1, kind: 'error-500' }],
    });
    expect(await sandbox.control.rules()).toEqual({
      acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf'],
      maxUploadBytes: 1234,
      tokenTtlSeconds: 900,
    });
  });

  it('replaces the fault configuration as a whole', async () => {
    const result = await sandbox.control.setFaults({ errorRate: 0.1, latencyMs: 5 });
    expect(result).toEqual({ errorRate: 0.1, latencyMs: 5 });
    expect(await sandbox.control.setFaults({})).toEqual({});
  });

  it('merges a rules update into the rules in force', async () => {
    const rules = await sandbox.control.setRules({ maxUploadBytes: 4096 });
    expect(rules).toEqual({
      acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf'],
      maxUploadBytes: 4096,
      tokenTtlSeconds: 900,
    });
  });

  it.each([
    ['/faults', { errorRate: 2 }, 'errorRate'],
    ['/faults', { failNext: { kind: 'explode' } }, 'failNext.0.kind'],
    ['/faults', { failNext: [{ route: 'nowhere', kind: 'drop' }] }, 'failNext.0.route'],
    ['/faults', { errorRate: 0.6, dropRate: 0.6 }, 'errorRate'],
    ['/faults', { latencyMs: { min: 5, max: 1 } }, 'latencyMs.min'],
    ['/faults', { unknownOption: true }, ''],
    ['/rules', { maxUploadBytes: -1 }, 'maxUploadBytes'],
    ['/rules', { acceptedContentTypes: 'image/png' }, 'acceptedContentTypes'],
    ['/rules', { tokenTtlSeconds: 0 }, 'tokenTtlSeconds'],
  ])('answers 400 naming the field for PUT %s %j', async (path, body, field) => {
    const response = await http.put(`${sandbox.baseUrl}/_sandbox${path}`, body, {
      headers: { authorization: `Bearer ${sandbox.controlToken}` },
    });
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ status: 400, code: 'validation_failed' });
    if (field) expect(errorOf(response)).toMatchObject({ field });
    expect(errorOf(response).message).toContain(field || 'unknownOption');
  });

  it('answers 400 for a body that is not JSON', async () => {
    const response = await http.put(`${sandbox.baseUrl}/_sandbox/faults`, '{nope', {
      headers: { authorization: `Bearer ${sandbox.controlToken}`, 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
  });

  it('rejects invalid start options', async () => {
    await expect(startSandbox({ faults: { errorRate: -1 } })).rejects.toThrow(/errorRate/);
  });
});

describe('state and reset', () => {
  it('shows orders and keys, and reset clears them but keeps users, faults and rules', async () => {
    await sandbox.control.setFaults({ retryAfterSeconds: 3 });
    const token = await tokenFor(sandbox.baseUrl, DEMO_USER);
    await createOrder(sandbox.baseUrl, token, orderPayload(), 'state-key');
    const state = await sandbox.control.state();
    expect(state.orders).toEqual([expect.objectContaining({ id: '5001', user_id: '4711' })]);
    expect(state.idempotencyKeys).toEqual([
      expect.objectContaining({ key: 'state-key', state: 'completed' }),
    ]);

    await sandbox.control.reset();
    expect(await sandbox.control.state()).toEqual({ orders: [], documents: [], idempotencyKeys: [] });
    expect((await sandbox.control.stats()).totalRequests).toBe(0);
    expect(await sandbox.control.faults()).toEqual({ retryAfterSeconds: 3 });
    // Users survive, and ids start again at 5001.
    const created = await createOrder(
      sandbox.baseUrl,
      await tokenFor(sandbox.baseUrl, DEMO_USER),
      orderPayload(),
    );
    expect(created.data.id).toBe(5001);
  });

  it('restarts order ids where reset is told this time, digit for digit, and at the profile start after', async () => {
    const token = await tokenFor(sandbox.baseUrl, DEMO_USER);
    const first = '1234567890123456789012345678901234567890';
    await sandbox.control.reset({ firstOrderId: first });
    const created = await createOrder(sandbox.baseUrl, token, orderPayload());
    // The wire carries the id as a bare JSON number of 40 digits; the ground truth shows the same digits.
    expect(created.data.id).toBe(BigInt(first));
    expect((await sandbox.control.listOrders()).map((order) => order.id)).toEqual([first]);
    await sandbox.control.reset();
    expect((await createOrder(sandbox.baseUrl, token, orderPayload())).data.id).toBe(5001);

    const refused = await http.post(
      `${sandbox.baseUrl}/_sandbox/reset`,
      JSON.stringify({ firstOrderId: '007' }),
      {
        headers: { authorization: `Bearer ${sandbox.controlToken}`, 'content-type': 'application/json' },
      },
    );
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toMatchObject({ code: 'validation_failed', field: 'firstOrderId' });
  });

  it('answers 404 with the error body for unknown paths', async () => {
    const response = await http.get(`${sandbox.baseUrl}/badge/v2/api/v1/nothing`);
    expect(response.status).toBe(404);
    expect(errorOf(response)).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('ground truth for harnesses', () => {
  beforeEach(async () => {
    await sandbox.control.setFaults({});
    await sandbox.control.reset();
  });

  async function upload(token: string, orderId: string, key?: string, bytes = 2048): Promise<void> {
    const response = await uploadDocument(
      sandbox.baseUrl,
      token,
      { document_type: 'badge', document_type_id: orderId, document_owner: '4711', file: smallFile(bytes) },
      key,
    );
    expect(response.status).toBe(201);
  }

  it('lists every order and document with its key, id, order and creation sequence', async () => {
    const token = await tokenFor(sandbox.baseUrl, DEMO_USER);
    await createOrder(sandbox.baseUrl, token, orderPayload(1001), 'order-a');
    await upload(token, '5001', 'doc-a1', 100);
    await createOrder(sandbox.baseUrl, token, orderPayload(), undefined);
    await upload(token, '5001', undefined, 200);
    await upload(token, '5002', 'doc-b1', 300);
    // A replayed key creates nothing new.
    await createOrder(sandbox.baseUrl, token, orderPayload(1001), 'order-a');

    expect(await sandbox.control.listOrders()).toEqual([
      {
        sequence: 1,
        id: '5001',
        user_id: '4711',
        stock_id: 1001,
        idempotency_key: 'order-a',
        created_at: expect.any(String) as string,
      },
      {
        sequence: 3,
        id: '5002',
        user_id: '4711',
        stock_id: null,
        idempotency_key: null,
        created_at: expect.any(String) as string,
      },
    ]);
    const documents = await sandbox.control.listDocuments();
    expect(documents.map((document) => [document.sequence, document.id, document.order_id])).toEqual([
      [2, 'doc-1', '5001'],
      [4, 'doc-2', '5001'],
      [5, 'doc-3', '5002'],
    ]);
    expect(documents[0]).toEqual({
      sequence: 2,
      id: 'doc-1',
      order_id: '5001',
      user_id: '4711',
      idempotency_key: 'doc-a1',
      size: 100,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
      filename: 'photo.jpg',
      content_type: 'image/jpeg',
      file_part: 'file',
      created_at: expect.any(String) as string,
    });

    expect(await sandbox.control.listOrders({ idempotencyKey: 'order-a' })).toEqual([
      expect.objectContaining({ id: '5001' }),
    ]);
    expect(await sandbox.control.listOrders({ idempotencyKey: 'never-sent' })).toEqual([]);
    expect(await sandbox.control.listOrders({ userId: '4712' })).toEqual([]);
    expect((await sandbox.control.listDocuments({ orderId: '5001' })).map((document) => document.id)).toEqual(
      ['doc-1', 'doc-2'],
    );
    expect(await sandbox.control.listDocuments({ idempotencyKey: 'doc-b1', orderId: '5002' })).toEqual([
      expect.objectContaining({ id: 'doc-3', size: 300 }),
    ]);
    // The full state carries the same bookkeeping.
    const state = await sandbox.control.state();
    expect(state.orders[0]).toMatchObject({ idempotency_key: 'order-a', sequence: 1 });
    expect(state.documents[2]).toMatchObject({ idempotency_key: 'doc-b1', sequence: 5, file_part: 'file' });

    await sandbox.control.reset();
    await createOrder(sandbox.baseUrl, token, orderPayload());
    expect(await sandbox.control.listOrders()).toEqual([
      expect.objectContaining({ sequence: 1, id: '5001' }),
    ]);
  });

  it('records orders that a commit-then-fail answered with an error', async () => {
    const token = await tokenFor(sandbox.baseUrl, DEMO_USER);
    await sandbox.control.setFaults({ failNext: { route: 'orders', kind: 'commit-then-500' } });
    expect((await createOrder(sandbox.baseUrl, token, orderPayload(), 'k')).status).toBe(500);
    expect(await sandbox.control.listOrders({ idempotencyKey: 'k' })).toEqual([
      expect.objectContaining({ id: '5001', idempotency_key: 'k' }),
    ]);
  });

  it.each([
    ['/orders?orderId=5001', 'orderId'],
    ['/documents?orderId=abc', 'orderId'],
    ['/orders?colour=green', 'query'],
  ])('answers 400 for GET %s', async (path, field) => {
    const response = await http.get(`${sandbox.baseUrl}/_sandbox${path}`, {
      headers: { authorization: `Bearer ${sandbox.controlToken}` },
    });
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ code: 'validation_failed', field });
  });

  it('reports the profile', async () => {
    expect(await sandbox.control.profile()).toMatchObject({ name: 'reference', idempotency: 'honoured' });
  });
});
