/**
 * What the codec server spends on a caller: credentials are checked before the body is read, and bodies,
 * payload counts, requests in progress, connections and silent connections are bounded. Real HTTP on port 0;
 * no Temporal server is needed, the payloads come from the codec itself.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import {
  startCodecServer,
  type CodecServerOptions,
  type RunningCodecServer,
} from '../../src/codec/codec-server';
import { generatePayloadKeyEntry, parsePayloadKeys } from '../../src/codec/key-ring';

const UI_ORIGIN = 'http://127.0.0.1:8233';
const TOKEN = 'limits-test-token-0123456789';
const keys = parsePayloadKeys(generatePayloadKeyEntry('limits'));
const plainPayload = {
  metadata: { encoding: Buffer.from('json/plain').toString('base64') },
  data: Buffer.from('{"licensePlate":"B-LI 1"}').toString('base64'),
};

/** A server for one test, stopped afterwards. */
async function withServer(
  options: Partial<CodecServerOptions>,
  test: (server: RunningCodecServer) => Promise<void>,
): Promise<void> {
  const server = await startCodecServer({ keys, corsOrigin: UI_ORIGIN, token: TOKEN, port: 0, ...options });
  try {
    await test(server);
  } finally {
    await server.close();
  }
}

const post = (server: RunningCodecServer, path: string, body: string, token = TOKEN): Promise<Response> =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });

interface PartialUpload {
  /** The answer, as soon as the server gives one. */
  readonly response: Promise<{ status: number; body: string }>;
  /** Bytes of the body written so far. */
  readonly sent: () => number;
  /** Sends the rest of the body: `rest`, or padding up to the announced length. */
  finish(rest?: string): void;
}

/**
 * Starts a POST whose headers announce `totalBytes` (or a chunked body when null) and sends only `firstBytes`
 * of it: the request stays open until {@link PartialUpload.finish}.
 */
function partialUpload(
  server: RunningCodecServer,
  options: {
    readonly totalBytes: number | null;
    readonly firstBytes: number;
    readonly headers?: Record<string, string>;
    readonly onContinue?: () => void;
  },
): PartialUpload {
  const url = new URL('/decode', server.url);
  let sent = 0;
  const request = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    agent: false,
    headers: {
      'content-type': 'application/json',
      ...(options.totalBytes === null ? {} : { 'content-length': String(options.totalBytes) }),
      ...options.headers,
    },
  });
  // The server may close the connection once it has answered; what it answered is what the tests look at.
  request.on('error', () => undefined);
  const response = new Promise<{ status: number; body: string }>((resolve) => {
    request.once('response', (message: IncomingMessage) => {
      const chunks: Buffer[] = [];
      message.on('data', (chunk: Buffer) => chunks.push(chunk));
      message.on('error', () => undefined);
      message.on('close', () =>
        resolve({ status: message.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
  });
  const write = (bytes: number): void => {
    request.write(Buffer.alloc(bytes, 0x20));
    sent += bytes;
  };
  if (options.onContinue) request.once('continue', options.onContinue);
  if (options.headers?.expect === undefined) write(options.firstBytes);
  else request.flushHeaders();
  return {
    response,
    sent: () => sent,
    finish(rest) {
      if (rest !== undefined) request.write(rest);
      else if (options.totalBytes !== null && options.totalBytes > sent) write(options.totalBytes - sent);
      request.end();
    },
  };
}

describe('codec server limits', () => {
  it.each([
    ['a 31 MiB body (under the old 32 MiB limit)', 31 * 1024 * 1024],
    ['a chunked body of unknown length', null],
  ])(
    'refuses an unauthenticated caller with 401 before reading %s',
    async (_, totalBytes) => {
      await withServer({}, async (server) => {
        const upload = partialUpload(server, { totalBytes, firstBytes: 64 * 1024 });
        // The answer comes while the body is still incomplete: the server never waited for it, never parsed it.
        const answer = await upload.response;
        expect(answer.status).toBe(401);
        expect(JSON.parse(answer.body)).toMatchObject({ code: 'UNAUTHORIZED' });
        expect(upload.sent()).toBe(64 * 1024);
      });
    },
    30_000,
  );

  it('refuses a wrong token of any length, and accepts the right one', async () => {
    await withServer({}, async (server) => {
      const body = JSON.stringify({ payloads: [plainPayload] });
      for (const wrong of [
        'x',
        'short',
        `${TOKEN}-and-more`,
        TOKEN.toUpperCase(),
        'ä'.repeat(TOKEN.length),
      ]) {
        const response = await post(server, '/encode', body, wrong);
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer');
      }
      expect((await post(server, '/encode', body)).status).toBe(200);
    });
  });

  it('refuses more payloads than the limit with 413, before parsing a flood of tiny ones', async () => {
    await withServer({}, async (server) => {
      const payloads = (count: number): string =>
        JSON.stringify({ payloads: Array(count).fill(plainPayload) });
      expect((await post(server, '/encode', payloads(1000))).status).toBe(200);
      const tooMany = await post(server, '/encode', payloads(1001));
      expect(tooMany.status).toBe(413);
      expect(await tooMany.json()).toEqual({
        error: 'At most 1000 payloads per request',
        code: 'TOO_MANY_PAYLOADS',
      });
      // The review's attack: a body full of empty payloads (here 3 MiB of them, under the body limit).
      const flood = `{"payloads":[${Array(1024 * 1024)
        .fill('{}')
        .join(',')}]}`;
      const flooded = await post(server, '/decode', flood);
      expect(flooded.status).toBe(413);
      expect(((await flooded.json()) as { code: string }).code).toBe('TOO_MANY_PAYLOADS');
    });
  });

  it('refuses an authorised body above the body limit from its length, without reading it', async () => {
    await withServer({}, async (server) => {
      const upload = partialUpload(server, {
        totalBytes: 5 * 1024 * 1024,
        firstBytes: 1024,
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const answer = await upload.response;
      expect(answer.status).toBe(413);
      expect(upload.sent()).toBe(1024);
    });
  }, 30_000);

  it('answers a malformed body with 400 without quoting it back', async () => {
    await withServer({}, async (server) => {
      const response = await post(server, '/decode', '{"payloads":[{"data":"B-SECRET-PLATE" ');
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ error: 'The body is not valid JSON', code: 'INVALID_JSON' });
      expect(text).not.toContain('SECRET');
    });
  });

  it('answers 503 while the limit of requests in progress is reached, and serves again after', async () => {
    await withServer({ limits: { maxConcurrentRequests: 1 } }, async (server) => {
      const body = JSON.stringify({ payloads: [plainPayload] });
      // "Expect: 100-continue" makes the server say when it has taken the request (and its slot) in hand.
      let continued!: () => void;
      const taken = new Promise<void>((resolve) => (continued = resolve));
      const first = partialUpload(server, {
        totalBytes: Buffer.byteLength(body),
        firstBytes: 0,
        headers: { authorization: `Bearer ${TOKEN}`, expect: '100-continue' },
        onContinue: continued,
      });
      await taken;
      const busy = await post(server, '/encode', body);
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
      first.finish(body);
      expect((await first.response).status).toBe(200);
      expect((await post(server, '/encode', body)).status).toBe(200);
    });
  });

  it('closes a connection on which nothing moves', async () => {
    await withServer(
      { limits: { idleTimeoutMs: 200, headersTimeoutMs: 200, requestTimeoutMs: 400 } },
      async (server) => {
        const url = new URL(server.url);
        const socket = connect(Number(url.port), url.hostname);
        const received: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => received.push(chunk));
        socket.on('error', () => undefined);
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.write(`POST /decode HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${TOKEN}\r\n`);
        await closed;
        const answer = Buffer.concat(received).toString('utf8');
        expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
      },
    );
  });

  it('closes connections above the connection limit', async () => {
    await withServer({ limits: { maxConnections: 1 } }, async (server) => {
      const url = new URL(server.url);
      const open = (): Promise<Socket> =>
        new Promise((resolve) => {
          const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
          socket.on('error', () => undefined);
        });
      const first = await open();
      const second = await open();
      const secondData: Buffer[] = [];
      second.on('data', (chunk: Buffer) => secondData.push(chunk));
      await new Promise<void>((resolve) => second.once('close', () => resolve()));
      expect(secondData).toEqual([]);
      // The first connection is still served.
      const body = JSON.stringify({ payloads: [plainPayload] });
      const answer = new Promise<string>((resolve) => {
        let text = '';
        first.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          if (text.includes('\r\n\r\n')) resolve(text);
        });
      });
      first.write(
        `POST /encode HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      expect(await answer).toMatch(/^HTTP\/1\.1 200 /);
      first.destroy();
    });
  });
});
