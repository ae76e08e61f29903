/**
 * Total deadlines, stall timeouts and aborts against a raw Node HTTP server on port 0 that misbehaves: it drips
 * its answer one byte at a time (which resets axios' idle timeout forever), or never reads the body. No
 * durations are asserted: the calls must end, and end as the right error.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createPlatformClient } from '../../src/platform';
import { PlatformError } from '../../src/platform/errors';
import { TokenCache } from '../../src/platform/token-cache';
import type { PlatformClient, PlatformClientOptions } from '../../src/platform';
import { FAILURE_TABLE } from '../../src/failure-types';
import { makeJwt, PASSWORD, USERNAME } from './fake-http';

type Behaviour = (request: IncomingMessage, response: ServerResponse) => void;

let server: Server;
let behaviour: Behaviour;
const timers = new Set<NodeJS.Timeout>();
const token = makeJwt({ sub: '7', exp: Math.floor(Date.now() / 1000) + 3600 });

function drip(response: ServerResponse): void {
  response.writeHead(201, { 'Content-Type': 'application/json' });
  response.write('{');
  const timer = setInterval(() => {
    if (response.destroyed || response.writableEnded) {
      clearInterval(timer);
      timers.delete(timer);
      return;
    }
    response.write(' ');
  }, 20);
  timers.add(timer);
}

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.endsWith('/auth/jwt')) {
      request.resume();
      request.once('end', () => {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ access_token: token }));
      });
      return;
    }
    behaviour(request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterEach(() => {
  for (const timer of timers) clearInterval(timer);
  timers.clear();
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

function client(timeouts: PlatformClientOptions['timeouts']): PlatformClient {
  const { port } = server.address() as AddressInfo;
  return createPlatformClient({
    baseUrl: `http://127.0.0.1:${port}`,
    credentials: { username: USERNAME, password: PASSWORD },
    tokenCache: new TokenCache(),
    timeouts,
  });
}

const order = { payload: { vehicle: {}, badge: {} }, idempotencyKey: 'k-1' };

describe('total deadline', () => {
  it('ends an order creation whose answer drips, as a TIMEOUT that may have taken effect', async () => {
    behaviour = (request, response) => {
      request.resume();
      request.once('end', () => drip(response));
    };
    const error = await client({ requestMs: 300 })
      .createOrder(order)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'TIMEOUT', outcome: 'maybe-applied', timeoutMs: 300 });
  });

  it('ends an upload whose answer drips, by the deadline derived from its size', async () => {
    behaviour = (request, response) => {
      request.resume();
      request.once('end', () => drip(response));
    };
    const error = await client({
      uploadMinMs: 300,
      minUploadBytesPerSecond: 1_000_000,
      uploadStallMs: 60_000,
    })
      .uploadDocument({
        source: { sizeBytes: 5, openStream: () => Readable.from([Buffer.from('hello')]) },
        filename: 'a.pdf',
        orderId: '1',
        documentOwner: '7',
        idempotencyKey: 'd-1',
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TIMEOUT' });
    expect(error).toMatchObject({ outcome: 'maybe-applied', timeoutMs: 300 });
  });
});

describe('stall timeout', () => {
  it('aborts an upload whose body stops moving', async () => {
    behaviour = (request) => {
      request.resume();
    };
    // Yields 5 of the announced 1000 bytes, then nothing: the body never moves again.
    const stuck = (): Readable => {
      let sent = false;
      return new Readable({
        read() {
          if (!sent) {
            sent = true;
            this.push(Buffer.from('hello'));
          }
        },
      });
    };
    const error = await client({ uploadMinMs: 600_000, uploadStallMs: 200 })
      .uploadDocument({
        source: { sizeBytes: 1000, openStream: stuck },
        filename: 'a.pdf',
        orderId: '1',
        documentOwner: '7',
        idempotencyKey: 'd-2',
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TIMEOUT' });
    expect(error).toMatchObject({ outcome: 'maybe-applied', timeoutMs: 200 });
    expect((error as Error).message).toMatch(/no body byte moved/);
  });
});

describe('abort', () => {
  it('surfaces the caller’s abort reason, never a platform error', async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    behaviour = (request) => {
      request.resume();
      arrived();
    };
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    const pending = client({ requestMs: 600_000 })
      .createOrder({ ...order, signal: controller.signal })
      .catch((e: unknown) => e);
    await requestArrived;
    controller.abort(reason);
    expect(await pending).toBe(reason);
  });

  it('rejects at once with an already aborted signal', async () => {
    const controller = new AbortController();
    const reason = new Error('gone');
    controller.abort(reason);
    const c = client({});
    await expect(c.authenticate({ signal: controller.signal })).rejects.toBe(reason);
    await expect(c.listStocks({ signal: controller.signal })).rejects.toBe(reason);
    await expect(c.createOrder({ ...order, signal: controller.signal })).rejects.toBe(reason);
  });
});

describe('upload source errors', () => {
  /** Uploads from a source whose first read fails with `failure`; resolves to what the upload threw. */
  function uploadFromBrokenSource(failure: Error, idempotencyKey: string): Promise<unknown> {
    behaviour = (request, response) => {
      request.resume();
      request.once('end', () => response.writeHead(201).end('{}'));
    };
    const broken = (): Readable =>
      new Readable({
        read() {
          this.destroy(failure);
        },
      });
    return client({})
      .uploadDocument({
        source: { sizeBytes: 10, openStream: broken },
        filename: 'a.pdf',
        orderId: '1',
        documentOwner: '7',
        idempotencyKey,
      })
      .catch((e: unknown) => e);
  }

  it('passes a read error that carries a failure type through as is', async () => {
    const failure = Object.assign(new Error('disk went away'), { code: 'DOCUMENT_UNAVAILABLE' });
    expect(await uploadFromBrokenSource(failure, 'd-3')).toBe(failure);
  });

  it.each([
    ['EIO', 'DOCUMENT_UNAVAILABLE', true],
    ['ENOENT', 'FILE_ERROR', false],
    [undefined, 'FILE_ERROR', false],
  ])('turns a source read error %s into %s, not sent', async (fsCode, code, retryable) => {
    const failure = Object.assign(new Error('read failed'), fsCode === undefined ? {} : { code: fsCode });
    expect(await uploadFromBrokenSource(failure, 'd-4')).toMatchObject({ code, outcome: 'not-sent' });
    expect(FAILURE_TABLE[code as keyof typeof FAILURE_TABLE].retryable).toBe(retryable);
  });
});
