import { BADGE_ONLY_USER, PLATFORM_PATHS } from '../../src/sandbox';
import { useSandbox } from './fixture';
import { authHeaders, createOrder, errorOf, http, orderPayload, tokenFor } from './helpers';

const sandbox = useSandbox({ signIn: true, resetEach: 'state' });

describe('stocks', () => {
  it("lists the user's stocks", async () => {
    const response = await http.get(`${sandbox.baseUrl}${PLATFORM_PATHS.stocks}`, {
      headers: authHeaders(sandbox.token),
    });
    expect(response.status).toBe(200);
    expect(response.data).toEqual({
      data: [
        { stock_id: 1001, name: 'Green badge stock A', badge_type: 'green', available: 250 },
        { stock_id: 1002, name: 'Green badge stock B', badge_type: 'green', available: 40 },
        { stock_id: 1003, name: 'Green badge stock (retired)', badge_type: 'green', available: 0 },
      ],
    });
  });
});

describe('order creation', () => {
  it('answers 201 with the created order, ids increasing from 5001', async () => {
    const first = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(1001));
    expect(first.status).toBe(201);
    expect(first.data).toEqual({
      id: 5001,
      stock_id: 1001,
      vehicle: orderPayload().vehicle,
      badge: orderPayload().badge,
      status: 'created',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
    });
    const second = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload());
    expect(second.status).toBe(201);
    expect(second.data).toMatchObject({ id: 5002, stock_id: null });
  });

  it('answers 404 for a stock the user does not have', async () => {
    const response = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(9999));
    expect(response.status).toBe(404);
    expect(errorOf(response)).toMatchObject({ status: 404, code: 'stock_not_found' });
    // Another user's stock is as unknown as a made-up one.
    const foreign = await createOrder(
      sandbox.baseUrl,
      sandbox.token,
      orderPayload(BADGE_ONLY_USER.stocks[0]?.stock_id),
    );
    expect(foreign.status).toBe(404);
    // A retired stock is still listed, but ordering from it answers 404 too.
    const retired = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(1003));
    expect(retired.status).toBe(404);
    expect((await sandbox.control.state()).orders).toHaveLength(0);
  });

  it.each([
    ['no vehicle', { badge: {} }, 'vehicle'],
    ['no badge', { vehicle: {} }, 'badge'],
    ['a vehicle that is not an object', { vehicle: 'VW', badge: {} }, 'vehicle'],
    ['a badge that is an array', { vehicle: {}, badge: [] }, 'badge'],
    ['a malformed stock_id', { vehicle: {}, badge: {}, stock_id: 'abc' }, 'stock_id'],
    ['a body that is not an object', [1, 2], 'body'],
  ])('answers 422 for %s, naming the field', async (_case, body, field) => {
    const response = await createOrder(sandbox.baseUrl, sandbox.token, body);
    expect(response.status).toBe(422);
    expect(errorOf(response)).toMatchObject({ status: 422, code: 'validation_failed', field });
  });

  it.each([
    ['broken JSON', 'application/json', '{"vehicle":'],
    ['an empty JSON body', 'application/json', ''],
    ['plain text', 'text/plain', 'vehicle=VW'],
    ['an unknown content type', 'application/xml', '<order/>'],
  ])('answers 422 for %s', async (_case, contentType, body) => {
    const response = await http.post(`${sandbox.baseUrl}${PLATFORM_PATHS.orders}`, body, {
      headers: { ...authHeaders(sandbox.token), 'content-type': contentType },
      transformRequest: [(data: unknown) => data],
    });
    expect(response.status).toBe(422);
    expect(errorOf(response)).toMatchObject({ status: 422, code: 'validation_failed' });
  });

  it('accepts a numeric string stock_id', async () => {
    const response = await createOrder(sandbox.baseUrl, sandbox.token, {
      ...orderPayload(),
      stock_id: '1002',
    });
    expect(response.status).toBe(201);
    expect(response.data.stock_id).toBe(1002);
  });
});

describe('idempotency keys on orders', () => {
  it('returns the first response and stores one order for a repeated key', async () => {
    const first = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(1001), 'order-key-1');
    const second = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(1001), 'order-key-1');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.data).toEqual(first.data);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const state = await sandbox.control.state();
    expect(state.orders).toHaveLength(1);
    expect(state.idempotencyKeys).toEqual([
      expect.objectContaining({
        userId: '4711',
        route: 'orders',
        key: 'order-key-1',
        state: 'completed',
        status: 201,
      }),
    ]);
    expect((await sandbox.control.stats()).idempotentReplays).toBe(1);
  });

  it('does not remember failed requests, so the fixed request may reuse the key', async () => {
    const invalid = await createOrder(sandbox.baseUrl, sandbox.token, { vehicle: {} }, 'order-key-2');
    expect(invalid.status).toBe(422);
    const unknownStock = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(9999), 'order-key-2');
    expect(unknownStock.status).toBe(404);
    expect((await sandbox.control.state()).idempotencyKeys).toEqual([]);
    const fixed = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(1001), 'order-key-2');
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    expect((await sandbox.control.state()).orders).toHaveLength(1);
  });

  it('scopes keys per user and per route', async () => {
    const otherToken = await tokenFor(sandbox.baseUrl, BADGE_ONLY_USER);
    const mine = await createOrder(sandbox.baseUrl, sandbox.token, orderPayload(), 'shared-key');
    const theirs = await createOrder(sandbox.baseUrl, otherToken, orderPayload(), 'shared-key');
    expect(theirs.status).toBe(201);
    expect(theirs.data.id).not.toBe(mine.data.id);
    expect((await sandbox.control.state()).orders).toHaveLength(2);
  });

  it('creates a new order for every request without a key', async () => {
    await createOrder(sandbox.baseUrl, sandbox.token, orderPayload());
    await createOrder(sandbox.baseUrl, sandbox.token, orderPayload());
    expect((await sandbox.control.state()).orders.map((order) => order.id)).toEqual(['5001', '5002']);
  });
});
