/**
 * The demo's HTTP API part against a real dev server, sandbox and worker: the order placed through the API
 * reaches the platform with the uploaded bytes, and the `curl` commands the demo prints work as printed when a
 * shell runs them (the upload answers the same reference, the PUT attaches, the GET shows the order).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  curlCommands,
  DEMO_API_CLIENT,
  placeOrderThroughApi,
  startDemoApi,
  type DemoApi,
  type DemoApiOrder,
} from '../../../tools/demo/api-order';
import { useTestStack } from '../../helpers/stack';

const run = promisify(execFile);

describe('the demo’s order through the HTTP API', () => {
  const stack = useTestStack({ worker: true });
  let api: DemoApi;

  beforeAll(async () => {
    api = await startDemoApi({ orders: stack.orders, documentsRoot: stack.documentsRoot });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('places the order, and prints curl commands that repeat it', async () => {
    stack.writeDocument('registration.pdf', '%PDF-1.4\n% demo vehicle registration\n');
    const order: DemoApiOrder = {
      orderRef: 'demo-api-test',
      body: { stockId: 1001, vehicle: { licensePlate: 'B-AP 1717' }, badge: { type: 'green' } },
      documentPath: join(stack.documentsRoot, 'registration.pdf'),
      contentType: 'application/pdf',
    };
    const placed = await placeOrderThroughApi(api, order);
    expect(placed.putStatus).toBe(201);
    const bytes = readFileSync(order.documentPath);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(placed.ref).toBe(`sha256:${sha256}`);

    const result = await stack.orders
      .getHandle({ orderRef: order.orderRef, clientId: DEMO_API_CLIENT })
      .result();
    expect(result.documents.map((document) => document.status)).toEqual(['uploaded']);
    const onPlatform = await stack.sandbox.control.listDocuments({ orderId: result.orderId });
    expect(onPlatform.map((document) => [document.sha256, document.content_type])).toEqual([
      [sha256, 'application/pdf'],
    ]);

    // The commands as printed, each run by a shell after the `export` line, with -w for the status code.
    const [exports, upload, put, get, ...rest] = curlCommands(api, order, placed);
    expect(rest).toEqual([]);
    expect(exports).toContain(api.key);
    const shell = async (command: string | undefined): Promise<{ status: number; body: unknown }> => {
      const { stdout } = await run('sh', ['-c', `${exports}\n${command} -w '\\n%{http_code}'`]);
      const lines = stdout.trimEnd().split('\n');
      const status = Number(lines.pop());
      return { status, body: JSON.parse(lines.join('\n')) as unknown };
    };
    expect(await shell(upload)).toEqual({
      status: 201,
      body: { ref: placed.ref, sizeBytes: bytes.length, contentType: 'application/pdf' },
    });
    expect(await shell(put)).toMatchObject({ status: 200, body: { created: false } });
    expect(await shell(get)).toMatchObject({
      status: 200,
      body: { orderRef: order.orderRef, status: 'Completed', orderId: String(result.orderId) },
    });
    // Without the key the same GET is refused: the printed key is what authorises it.
    const { stdout } = await run('sh', [
      '-c',
      `${exports}\nunset BADGE_API_KEY\n${get} -o /dev/null -w '%{http_code}'`,
    ]);
    expect(stdout).toBe('401');
  });
});
