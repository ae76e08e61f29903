/**
 * Redirects by their meaning (RFC 9110 §15.4), against real HTTP servers on port 0: a 307/308 is followed on the
 * platform's own origin with the same method, body, key and token; a 303 is read with a GET; a 301/302 after a
 * POST is not sent again; nothing goes to another origin, or from https to http. Host names are resolved to
 * loopback by the client's own `lookup`, so a "subdomain" of the platform (which follow-redirects would hand the
 * Authorization header to) and another port are real other origins without DNS.
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import axios from 'axios';
import { createPlatformClient } from '../../src/platform';
import { PlatformError } from '../../src/platform/errors';
import { TokenCache } from '../../src/platform/token-cache';
import type { PlatformClient } from '../../src/platform';
import { loopbackCertificate } from '../../tools/oidc/tls';
import { makeJwt, PASSWORD, rejectionOf, USERNAME } from './fake-http';

/** What one server saw of a request; `body` is complete once the request ended. */
interface Seen {
  readonly method: string;
  readonly host: string;
  readonly path: string;
  readonly authorization: string | undefined;
  readonly idempotencyKey: string | undefined;
  body: Buffer;
}

/** Answers a request; called once its body was read, or at once (before reading it) when `early` says so. */
type Behaviour = (request: IncomingMessage, response: ServerResponse) => void;

const token = makeJwt({ sub: '7', exp: Math.floor(Date.now() / 1000) + 3600 });

async function listen(
  handler: Behaviour,
  options: {
    readonly early?: (request: IncomingMessage) => boolean;
    readonly tls?: tls.SecureContextOptions;
  } = {},
): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    const record: Seen = {
      method: request.method ?? '',
      host: request.headers.host ?? '',
      path: request.url ?? '',
      authorization: request.headers.authorization,
      idempotencyKey: request.headers['idempotency-key'] as string | undefined,
      body: Buffer.alloc(0),
    };
    seen.push(record);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', () => undefined);
    request.once('end', () => {
      record.body = Buffer.concat(chunks);
    });
    if (options.early?.(request) === true) handler(request, response);
    else request.once('end', () => handler(request, response));
  };
  const server =
    options.tls === undefined ? createServer(onRequest) : createHttpsServer(options.tls, onRequest);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, seen };
}

function answerJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** A client for `http://platform.test:<port>` whose every host name resolves to 127.0.0.1. */
function clientFor(port: number): PlatformClient {
  return createPlatformClient({
    baseUrl: `http://platform.test:${port}`,
    credentials: { username: USERNAME, password: PASSWORD },
    tokenCache: new TokenCache(),
    http: axios.create({
      lookup: (_hostname, _options, callback) => callback(null, '127.0.0.1', 4),
    }),
  });
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

describe('redirects with a bearer token', () => {
  let other: { server: Server; port: number; seen: Seen[] };

  beforeEach(async () => {
    other = await listen((_request, response) => answerJson(response, 200, { data: [{ id: 666 }] }));
    servers.push(other.server);
  });

  /** The platform: issues a token, and redirects the stock list to `location(port)`. */
  async function platform(location: (port: number) => string): Promise<{ port: number; seen: Seen[] }> {
    let port = 0;
    const started = await listen((request, response) => {
      if (request.url?.endsWith('/auth/jwt')) return answerJson(response, 200, { access_token: token });
      if (request.url?.startsWith('/moved/')) return answerJson(response, 200, { data: [{ id: 1001 }] });
      if (request.url?.startsWith('/collect')) return answerJson(response, 200, { data: [{ id: 666 }] });
      response.writeHead(302, { Location: location(port) });
      response.end();
    });
    servers.push(started.server);
    port = started.port;
    return started;
  }

  it('follows a redirect on the same origin, with the token', async () => {
    const { port, seen } = await platform((own) => `http://platform.test:${own}/moved/stocks`);
    const list = await clientFor(port).listStocks();
    expect(list.stocks.map((stock) => stock.stockId)).toEqual(['1001']);
    expect(seen.find((request) => request.path === '/moved/stocks')?.authorization).toBe(`Bearer ${token}`);
  });

  it('refuses a redirect to a subdomain of the platform: the token never arrives there', async () => {
    const { port, seen } = await platform((own) => `http://evil.platform.test:${own}/collect`);
    const error = await clientFor(port)
      .listStocks()
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toMatchObject({ code: 'REDIRECTED', outcome: 'not-sent' });
    expect((error as Error).message).toContain('redirected to another origin (http://evil.platform.test:');
    expect((error as Error).message).not.toContain('/collect');
    const atOtherHost = seen.filter((request) => request.host.startsWith('evil.'));
    expect(atOtherHost).toEqual([]);
    expect(
      seen.filter((request) => request.authorization !== undefined).map((request) => request.host),
    ).toEqual([`platform.test:${port}`]);
  });

  it('refuses a redirect to another port or scheme: nothing reaches the other server', async () => {
    const { port } = await platform(() => `http://platform.test:${other.port}/collect`);
    await expect(clientFor(port).listStocks()).rejects.toMatchObject({ code: 'REDIRECTED' });
    const https = await platform(() => `https://platform.test:${other.port}/collect`);
    await expect(clientFor(https.port).listStocks()).rejects.toMatchObject({ code: 'REDIRECTED' });
    expect(other.seen).toEqual([]);
  });
});

const ORDERS = '/badge/v2/api/v1/orders';
const DOCUMENTS = '/document/api/v1/documents';
const ORDER = {
  payload: { vehicle: { plate: 'B-XY 123' }, badge: { colour: 'green' }, stock_id: '1001' },
  idempotencyKey: 'badge-order-r1:create',
};

describe('redirects of order creation and uploads', () => {
  let other: { server: Server; port: number; seen: Seen[] };

  beforeEach(async () => {
    other = await listen((_request, response) => answerJson(response, 201, { id: 666 }));
    servers.push(other.server);
  });

  /**
   * A platform that issues tokens, answers `redirect(path)` when it gives one, and else creates order 5001,
   * stores document doc-1, or serves order 5001 at GET /orders/5001.
   */
  async function platform(
    redirect: (path: string, port: number) => { status: number; location?: string } | undefined,
    options: Parameters<typeof listen>[1] = {},
  ): Promise<{ port: number; seen: Seen[] }> {
    let port = 0;
    const started = await listen((request, response) => {
      const path = request.url ?? '';
      if (path.endsWith('/auth/jwt')) return answerJson(response, 200, { access_token: token });
      const answer = redirect(path, port);
      if (answer !== undefined) {
        response.writeHead(answer.status, answer.location === undefined ? {} : { Location: answer.location });
        return response.end();
      }
      if (request.method === 'GET' && path === `${ORDERS}/5001`)
        return answerJson(response, 200, { id: 5001 });
      if (path.startsWith(DOCUMENTS)) return answerJson(response, 201, { id: 'doc-1' });
      return answerJson(response, 201, { id: 5001, status: 'created' });
    }, options);
    servers.push(started.server);
    port = started.port;
    return started;
  }

  const at = (seen: readonly Seen[], prefix: string): Seen[] =>
    seen.filter((request) => request.path.startsWith(prefix));

  it.each([307, 308])(
    'follows a %i on the same origin once, with the same method, body, Idempotency-Key and token',
    async (status) => {
      // Starlette's answer to a path without its trailing slash: nothing processed, a relative Location.
      const { port, seen } = await platform((path) =>
        path === ORDERS ? { status, location: `${ORDERS}/` } : undefined,
      );
      const created = await clientFor(port).createOrder(ORDER);
      expect(created.orderId).toBe('5001');
      const orders = at(seen, ORDERS);
      expect(orders.map((request) => [request.method, request.path])).toEqual([
        ['POST', ORDERS],
        ['POST', `${ORDERS}/`],
      ]);
      const [first, second] = orders as [Seen, Seen];
      expect(JSON.parse(second.body.toString('utf8'))).toEqual({ ...ORDER.payload, stock_id: 1001 });
      expect(second.body).toEqual(first.body);
      expect(second.idempotencyKey).toBe(ORDER.idempotencyKey);
      expect(second.authorization).toBe(`Bearer ${token}`);
    },
  );

  it('follows a 307 to another origin never: nothing and no token is sent there, and it says what to set', async () => {
    const { port, seen } = await platform((path) =>
      path === ORDERS ? { status: 307, location: `http://platform.test:${other.port}${ORDERS}/` } : undefined,
    );
    const error = (await rejectionOf(clientFor(port).createOrder(ORDER))) as PlatformError;
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'REDIRECTED', outcome: 'not-sent', retryable: false, status: 307 });
    expect(error.message).toContain(`redirected to another origin (http://platform.test:${other.port})`);
    expect(error.message).toContain('BADGE_BASE_URL');
    expect(other.seen).toEqual([]);
    expect(at(seen, ORDERS)).toHaveLength(1);
  });

  describe('over https', () => {
    let folder: string;
    let trustedBefore: string[];
    let secure: tls.SecureContextOptions;

    beforeAll(() => {
      folder = mkdtempSync(join(tmpdir(), 'redirects-'));
      const certificate = loopbackCertificate(folder);
      secure = { cert: certificate.cert, key: readFileSync(certificate.keyFile, 'utf8') };
      trustedBefore = tls.getCACertificates('default');
      tls.setDefaultCACertificates([...trustedBefore, certificate.cert]);
    });

    afterAll(() => {
      tls.setDefaultCACertificates(trustedBefore);
      rmSync(folder, { recursive: true, force: true });
    });

    it('follows a 307 on https, and refuses one from https to http', async () => {
      let downgrade = false;
      const { port, seen } = await platform(
        (path, own) =>
          path !== ORDERS
            ? undefined
            : { status: 307, location: downgrade ? `http://127.0.0.1:${own}${ORDERS}/` : `${ORDERS}/` },
        { tls: secure },
      );
      const client = createPlatformClient({
        baseUrl: `https://127.0.0.1:${port}`,
        credentials: { username: USERNAME, password: PASSWORD },
        tokenCache: new TokenCache(),
      });
      await expect(client.createOrder(ORDER)).resolves.toMatchObject({ orderId: '5001' });
      downgrade = true;
      const error = (await rejectionOf(client.createOrder(ORDER))) as PlatformError;
      expect(error).toMatchObject({ code: 'REDIRECTED', outcome: 'not-sent' });
      expect(error.message).toContain(`redirected from https to http (http://127.0.0.1:${port})`);
      // The https server saw the first creation twice (redirected, then created) and the second once.
      expect(at(seen, ORDERS).map((request) => request.path)).toEqual([ORDERS, `${ORDERS}/`, ORDERS]);
    });
  });

  it('reads the result of a 303 with a GET on the same origin, and sends the POST once', async () => {
    const { port, seen } = await platform((path) =>
      path === ORDERS ? { status: 303, location: `${ORDERS}/5001` } : undefined,
    );
    const created = await clientFor(port).createOrder(ORDER);
    expect(created.orderId).toBe('5001');
    const orders = at(seen, ORDERS);
    expect(orders.map((request) => [request.method, request.path])).toEqual([
      ['POST', ORDERS],
      ['GET', `${ORDERS}/5001`],
    ]);
    expect(orders[1]).toMatchObject({ authorization: `Bearer ${token}`, body: Buffer.alloc(0) });
  });

  it('counts a 303 whose result cannot be read as maybe applied: it was processed', async () => {
    const { port } = await platform((path) =>
      path === ORDERS
        ? { status: 303, location: `${ORDERS}/5002` }
        : path === `${ORDERS}/5002`
          ? { status: 404 }
          : undefined,
    );
    const error = (await rejectionOf(clientFor(port).createOrder(ORDER))) as PlatformError;
    expect(error).toMatchObject({ code: 'NOT_FOUND', outcome: 'maybe-applied', status: 404 });
    expect(error.message).toContain('303 See Other');
    const elsewhere = await platform((path) =>
      path === ORDERS ? { status: 303, location: `http://platform.test:${other.port}/orders/1` } : undefined,
    );
    await expect(clientFor(elsewhere.port).createOrder(ORDER)).rejects.toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      outcome: 'maybe-applied',
    });
    expect(other.seen).toEqual([]);
  });

  it.each([301, 302])(
    'counts a %i after a POST as not sent: sent once, never as a GET, and says what to set',
    async (status) => {
      const { port, seen } = await platform((path) =>
        path === ORDERS ? { status, location: `${ORDERS}/` } : undefined,
      );
      const error = (await rejectionOf(clientFor(port).createOrder(ORDER))) as PlatformError;
      expect(error).toMatchObject({ code: 'REDIRECTED', outcome: 'not-sent', retryable: false, status });
      expect(error.message).toBe(
        `POST ${ORDERS} failed with ${status} (${status === 301 ? 'Moved Permanently' : 'Found'}): redirected to ` +
          `${ORDERS}/, but a POST is not sent again after ${status}; nothing was processed: set BADGE_BASE_URL ` +
          'to where the platform serves its API',
      );
      expect(at(seen, ORDERS).map((request) => request.method)).toEqual(['POST']);
    },
  );

  it('sends the whole file again when an upload is answered 307 before its body was read', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'redirects-upload-'));
    try {
      const content = Buffer.alloc(512 * 1024, 'scan of the registration certificate ');
      const filePath = join(folder, 'scan.pdf');
      writeFileSync(filePath, content);
      const { port, seen } = await platform(
        (path) => (path === DOCUMENTS ? { status: 307, location: `${DOCUMENTS}/` } : undefined),
        { early: (request) => request.url === DOCUMENTS },
      );
      const uploaded = await clientFor(port).uploadDocument({
        filePath,
        orderId: '5001',
        documentOwner: '7',
        idempotencyKey: 'badge-order-r1:doc:0',
      });
      expect(uploaded.documentId).toBe('doc-1');
      const uploads = at(seen, DOCUMENTS);
      expect(uploads.map((request) => [request.method, request.path])).toEqual([
        ['POST', DOCUMENTS],
        ['POST', `${DOCUMENTS}/`],
      ]);
      const second = uploads[1] as Seen;
      expect(second.body.includes(content)).toBe(true);
      expect(second).toMatchObject({
        idempotencyKey: 'badge-order-r1:doc:0',
        authorization: `Bearer ${token}`,
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
