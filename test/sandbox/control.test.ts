import { DEMO_USER, SandboxControl, SandboxControlError, startSandbox } from '../../src/sandbox';
import type { RunningSandbox } from '../../src/sandbox';
import { createOrder, errorOf, http, orderPayload, tokenFor } from './helpers';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({
    controlToken: 'test-control-token',
    rules: { maxUploadBytes: 1234 },
    faults: { failNext: { route: 'orders', kind: 'error-500' } },
  });
});
afterAll(async () => {
  await sandbox.close();
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
    expect(state.orders).toEqual([
      expect.objectContaining({ id: expect.any(Number) as number, user_id: '4711' }),
    ]);
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

  it('answers 404 with the error body for unknown paths', async () => {
    const response = await http.get(`${sandbox.baseUrl}/badge/v2/api/v1/nothing`);
    expect(response.status).toBe(404);
    expect(errorOf(response)).toMatchObject({ status: 404, code: 'not_found' });
  });
});
