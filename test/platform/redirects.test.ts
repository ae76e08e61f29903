/**
 * Redirects and the bearer token, against real HTTP servers on port 0: a GET may follow a redirect on the
 * platform's own origin, never to another one. Host names are resolved to loopback by the client's own
 * `lookup`, so a "subdomain" of the platform (which follow-redirects would hand the Authorization header to)
 * and another port are real other origins without DNS.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import { createPlatformClient } from '../../src/platform';
import { TokenCache } from '../../src/platform/token-cache';
import type { PlatformClient } from '../../src/platform';
import { makeJwt, PASSWORD, USERNAME } from './fake-http';

/** What one server saw: the Host header and whether an Authorization header came with it. */
interface Seen {
  readonly host: string;
  readonly path: string;
  readonly authorization: string | undefined;
}

type Behaviour = (request: IncomingMessage, response: ServerResponse) => void;

const token = makeJwt({ sub: '7', exp: Math.floor(Date.now() / 1000) + 3600 });

async function listen(handler: Behaviour): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    seen.push({
      host: request.headers.host ?? '',
      path: request.url ?? '',
      authorization: request.headers.authorization,
    });
    request.resume();
    request.once('end', () => handler(request, response));
  });
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
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
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
    await expect(clientFor(port).listStocks()).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
    const https = await platform(() => `https://platform.test:${other.port}/collect`);
    await expect(clientFor(https.port).listStocks()).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
    expect(other.seen).toEqual([]);
  });
});
