/**
 * A platform whose ids pass 2^53 (the sandbox's `int64` profile: orders near 2^63 and documents near 1.8·10^19,
 * sent as bare JSON numbers, where doubles lie 1,024 apart): every order completes with each document linked to
 * its own order, and an operator reconciles a held order with such an id from the Web UI (an update sent by name
 * with a JSON string argument, encoded by the codec server, as the UI sends it: here with the Temporal CLI), with
 * `ops reconcile` and through the HTTP API. A property test then shows that any order id of up to 40 digits
 * survives the platform's answer, the workflow's state, the upload, the status query and the API unchanged.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { BadgeOrderId } from '../../src/workflow-contract';
import {
  badgeOrderWorkflowId,
  type BadgeOrderInput,
  type BadgeOrderResult,
  type BadgeOrderStatusView,
} from '../../src/contract';
import type { BadgeOrderHandle } from '../../src/client/badge-orders-client';
import { startTestApi, TEST_KEYS, type TestApi } from '../api/api-server';
import { runOpsOn } from '../helpers/ops';
import { useTestStack } from '../helpers/stack';
import { useTemporalCli } from '../helpers/temporal-cli';
import { pollUntil } from '../../tools/dev/poll';

const CODEC_TOKEN = 'int64-ids-codec-token-0123456789';
const TWO_TO_53 = 2n ** 53n;
const sha256 = (content: string): string => createHash('sha256').update(content).digest('hex');

describe('badgeOrder against a platform whose ids pass 2^53', () => {
  const stack = useTestStack({ sandbox: { profile: 'int64' }, worker: true });
  const cli = useTemporalCli(stack, { token: CODEC_TOKEN });
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({ orders: stack.orders });
  });
  afterAll(async () => {
    await api?.close();
  });
  afterEach(async () => {
    await stack.sandbox.control.setFaults({});
  });

  function orderOf(orderRef: string, count: number): BadgeOrderInput {
    const documents = Array.from({ length: count }, (_, index) => ({
      path: stack.writeDocument(`${orderRef}/${index}.pdf`, `%PDF ${orderRef} ${index}`),
    }));
    return { orderRef, vehicle: { licensePlate: `I-64 ${orderRef}` }, badge: { type: 'green' }, documents };
  }

  /**
   * What the platform holds for a finished order: exactly one order with the result's id, and each of its
   * documents stored linked to that order by exactly those digits, under the document id the result names.
   */
  async function expectLinkedToItsOwnOrder(result: BadgeOrderResult, count: number): Promise<void> {
    const state = await stack.sandbox.control.state();
    const orders = state.orders.filter((order) =>
      order.idempotency_key?.startsWith(`badge-order-${result.orderRef}:`),
    );
    expect(orders.map((order) => order.id)).toEqual([result.orderId]);
    expect(BigInt(result.orderId)).toBeGreaterThan(TWO_TO_53);
    for (let index = 0; index < count; index += 1) {
      const copies = state.documents.filter(
        (document) => document.sha256 === sha256(`%PDF ${result.orderRef} ${index}`),
      );
      expect(copies.length).toBeGreaterThan(0);
      expect(copies.map((document) => document.document_type_id)).toEqual(copies.map(() => result.orderId));
      const documentId = result.documents[index]?.documentId ?? null;
      expect(copies.map((document) => document.id)).toContain(documentId);
      expect(BigInt(documentId ?? '0')).toBeGreaterThan(TWO_TO_53);
    }
  }

  /** The order as the operator sees it: status query, search attribute, and the API's answer as text. */
  async function expectShownEverywhere(orderRef: string, orderId: string): Promise<void> {
    expect((await stack.orders.status(orderRef)).orderId).toBe(orderId);
    const description = await stack.orders.getHandle(orderRef).describe();
    expect(description.typedSearchAttributes.get(BadgeOrderId)).toBe(orderId);
    // Started here without a client: an operator reads it through the API, naming no client (`-`).
    const response = await fetch(`${api.url}/v1/orders/${orderRef}?clientId=-`, {
      headers: { 'x-api-key': TEST_KEYS.operator.key },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text) as { orderId: unknown; result: { orderId: unknown } | null };
    expect(body.orderId).toBe(orderId);
    expect(body.result?.orderId).toBe(orderId);
    expect(text).toContain(`"orderId":"${orderId}"`);
  }

  /** Starts an order whose creation the platform stores and then fails, and waits for the hold. */
  async function heldOrder(
    orderRef: string,
  ): Promise<{ handle: BadgeOrderHandle; createdId: string; view: BadgeOrderStatusView }> {
    await stack.sandbox.control.setFaults({ failNext: [{ route: 'orders', kind: 'commit-then-500' }] });
    const started = await stack.orders.startOrder(orderOf(orderRef, 2));
    const view = await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.searchStatus === 'AwaitingReconciliation',
      { what: `${orderRef} awaiting reconciliation` },
    );
    // The operator's check: the platform's record of the key the creation was sent with.
    const created = await stack.sandbox.control.listOrders({
      idempotencyKey: view.reconciliation?.idempotencyKey ?? '',
    });
    expect(created).toHaveLength(1);
    return { handle: started.handle, createdId: created[0]?.id ?? '', view };
  }

  it('completes every order with each document linked to its own order', async () => {
    const refs = Array.from({ length: 6 }, (_, index) => `int64-${index}`);
    const results = await Promise.all(
      refs.map(async (orderRef) => (await stack.orders.startOrder(orderOf(orderRef, 2))).handle.result()),
    );
    for (const result of results) await expectLinkedToItsOwnOrder(result, 2);
    expect(new Set(results.map((result) => result.orderId)).size).toBe(refs.length);
    // Read through a double, these ids would have named at most two orders: the profile bites.
    expect(new Set(results.map((result) => Number(result.orderId))).size).toBeLessThan(refs.length);
    for (const result of results) await expectShownEverywhere(result.orderRef, result.orderId);
  });

  it('is reconciled from the Web UI: the update by name, its argument JSON with the id as a string', async () => {
    const { handle, createdId } = await heldOrder('int64-web-ui');
    const { code, stdout, stderr } = await cli.run([
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      badgeOrderWorkflowId('int64-web-ui'),
      '--name',
      'reconcileOrder',
      '--input',
      JSON.stringify({ orderId: createdId }),
    ]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    // The update's answer, decoded by the codec server, names the order by its digits.
    expect(stdout).toContain(createdId);
    const result = await handle.result();
    expect(result.orderId).toBe(createdId);
    await expectLinkedToItsOwnOrder(result, 2);
    await expectShownEverywhere('int64-web-ui', createdId);
  });

  it('is reconciled with ops reconcile --order-id, every digit kept', async () => {
    const { handle, createdId } = await heldOrder('int64-ops');
    const run = await runOpsOn(stack, ['--json', 'reconcile', 'int64-ops', '--order-id', createdId]);
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    expect((JSON.parse(run.out) as BadgeOrderStatusView).orderId).toBe(createdId);
    const result = await handle.result();
    expect(result.orderId).toBe(createdId);
    await expectLinkedToItsOwnOrder(result, 2);
  });

  it('is reconciled through the API, which refuses the id as a rounded JSON number and names the field', async () => {
    const { handle, createdId } = await heldOrder('int64-api');
    const reconcile = (body: string): Promise<Response> =>
      fetch(`${api.url}/v1/orders/int64-api/reconcile?clientId=-`, {
        method: 'POST',
        headers: { 'x-api-key': TEST_KEYS.operator.key, 'content-type': 'application/json' },
        body,
      });

    // A bare number of 19 digits has lost its last digits in JSON.parse before any check sees it.
    const rounded = await reconcile(`{"orderId":${createdId}}`);
    expect(rounded.status).toBe(400);
    expect(await rounded.json()).toMatchObject({
      code: 'invalid-input',
      errors: [
        {
          field: 'body.orderId',
          message: 'is beyond 2^53 and cannot arrive intact as a JSON number: send it as a string',
        },
      ],
    });
    expect((await stack.orders.status('int64-api')).searchStatus).toBe('AwaitingReconciliation');

    const answered = await reconcile(JSON.stringify({ orderId: createdId }));
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as BadgeOrderStatusView).orderId).toBe(createdId);
    const result = await handle.result();
    expect(result.orderId).toBe(createdId);
    await expectLinkedToItsOwnOrder(result, 2);
    await expectShownEverywhere('int64-api', createdId);
  });

  it('keeps any order id of up to 40 digits from the answer through state, upload, status and API', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[1-9]\d{0,39}$/), async (digits) => {
        run += 1;
        const orderRef = `int64-property-${run}`;
        // The platform numbers its next order with these digits and sends them as a bare JSON number.
        await stack.sandbox.control.reset({ firstOrderId: digits });
        const started = await stack.orders.startOrder(orderOf(orderRef, 1));
        const result = await started.handle.result();
        expect(result.orderId).toBe(digits);
        // The upload: the platform received these digits as document_type_id and linked the document.
        const linked = await stack.sandbox.control.listDocuments({ orderId: digits });
        expect(linked.map((document) => document.sha256)).toEqual([sha256(`%PDF ${orderRef} 0`)]);
        await expectShownEverywhere(orderRef, digits);
      }),
      {
        numRuns: 12,
        examples: [['9223372036854775807'], ['18446744073709551615'], ['9'.repeat(40)], ['7']],
      },
    );
  });
});
