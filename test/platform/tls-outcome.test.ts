/**
 * A TLS protocol failure proves a request never left only while the handshake is not done: against real TLS
 * servers on port 0 (a throwaway certificate the process trusts for the test), one that breaks the handshake and
 * one that breaks the connection after the request arrived.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { once } from 'node:events';
import { createPlatformClient } from '../../src/platform';
import { PlatformError } from '../../src/platform/errors';
import { TokenCache } from '../../src/platform/token-cache';
import { loopbackCertificate } from '../../tools/oidc/tls';
import { PASSWORD, rejectionOf, USERNAME } from './fake-http';

/** Bytes that are no TLS record: the client's TLS layer fails on them with an OpenSSL protocol code. */
const NOT_TLS = Buffer.from('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');

let folder: string;
let secureContext: tls.SecureContext;
let trustedBefore: string[];
const servers: Server[] = [];

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'tls-outcome-'));
  const certificate = loopbackCertificate(folder);
  secureContext = tls.createSecureContext({
    cert: certificate.cert,
    key: readFileSync(certificate.keyFile, 'utf8'),
  });
  trustedBefore = tls.getCACertificates('default');
  tls.setDefaultCACertificates([...trustedBefore, certificate.cert]);
});

afterAll(async () => {
  tls.setDefaultCACertificates(trustedBefore);
  for (const server of servers) {
    server.close();
    await once(server, 'close');
  }
  rmSync(folder, { recursive: true, force: true });
});

/** A TCP server on 127.0.0.1 whose connections `handle` answers; resolves with its port. */
async function listen(handle: (raw: Socket) => void): Promise<number> {
  const server = createServer((raw) => {
    raw.on('error', () => undefined);
    handle(raw);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function signInAt(port: number): Promise<PlatformError> {
  const client = createPlatformClient({
    baseUrl: `https://127.0.0.1:${port}`,
    credentials: { username: USERNAME, password: PASSWORD },
    tokenCache: new TokenCache(),
  });
  const error = await rejectionOf(client.authenticate());
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

it('counts a TLS protocol failure during the handshake as not sent', async () => {
  // The client hello is answered with bytes that are no TLS record.
  const port = await listen((raw) => raw.once('data', () => raw.end(NOT_TLS)));
  const error = await signInAt(port);
  expect(error.cause?.code).toMatch(/^(EPROTO|ERR_SSL_)/);
  expect(error.outcome).toBe('not-sent');
});

it('counts the same failure after the handshake, once the request has arrived, as maybe applied', async () => {
  let arrived = '';
  const port = await listen((raw) => {
    const secured = new tls.TLSSocket(raw, { isServer: true, secureContext });
    secured.on('error', () => undefined);
    // The request reaches the server; then bytes that are no TLS record break the connection.
    secured.once('data', (chunk: Buffer) => {
      arrived = chunk.toString('utf8');
      raw.end(NOT_TLS);
    });
  });
  const error = await signInAt(port);
  expect(arrived).toMatch(/^POST \/iam\/api\/v1\/auth\/jwt /);
  expect(error.cause?.code).toMatch(/^(EPROTO|ERR_SSL_)/);
  expect(error.outcome).toBe('maybe-applied');
});
