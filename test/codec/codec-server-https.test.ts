/**
 * What the production Web UI needs from the codec server to pass the operator's access token: an `https://`
 * endpoint (the UI sends the token to no other) and a CORS preflight that allows the headers it sends
 * (`authorization` and `authorization-extras`). Over real HTTPS with a throwaway certificate for 127.0.0.1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCodecServer, type RunningCodecServer } from '../../src/codec/codec-server';
import { generatePayloadKeyEntry, parsePayloadKeys } from '../../src/codec/key-ring';
import { loadCodecServerConfig } from '../../src/config';
import { loopbackCertificate, type LoopbackCertificate } from '../../tools/oidc/tls';

const UI_ORIGIN = 'http://127.0.0.1:8080';
const TOKEN = 'codec-https-token-0123456789';

let folder: string;
let certificate: LoopbackCertificate;
let server: RunningCodecServer;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'codec-https-'));
  certificate = loopbackCertificate(folder);
  server = await startCodecServer({
    keys: parsePayloadKeys(generatePayloadKeyEntry('https-test')),
    corsOrigin: UI_ORIGIN,
    token: TOKEN,
    port: 0,
    tls: { cert: certificate.cert, key: readFileSync(certificate.keyFile, 'utf8') },
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** One request over HTTPS trusting only the test certificate; resolves with status and headers. */
function call(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ readonly status: number; readonly headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolveAnswer, reject) => {
    const request = httpsRequest(
      `${server.url}${path}`,
      { method, headers, ca: certificate.cert },
      (response) => {
        response.resume();
        response.once('end', () =>
          resolveAnswer({ status: response.statusCode ?? 0, headers: response.headers }),
        );
      },
    );
    request.once('error', reject);
    request.end(body);
  });
}

describe('codec server over HTTPS', () => {
  it('serves https:// with the configured certificate', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const answer = await call(
      'POST',
      '/decode',
      { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      '{"payloads":[]}',
    );
    expect(answer.status).toBe(200);
    const refused = await call('POST', '/decode', { 'content-type': 'application/json' }, '{}');
    expect(refused.status).toBe(401);
  });

  it('allows the headers the Web UI sends with the access token in its preflight (authorization-extras too)', async () => {
    const answer = await call('OPTIONS', '/decode', {
      origin: UI_ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,authorization-extras,content-type,x-namespace',
    });
    expect(answer.status).toBe(204);
    const allowed = String(answer.headers['access-control-allow-headers'] ?? '')
      .split(',')
      .map((header) => header.trim().toLowerCase());
    expect(allowed).toEqual(
      expect.arrayContaining(['authorization', 'authorization-extras', 'content-type', 'x-namespace']),
    );
  });
});

describe('codec server TLS configuration', () => {
  const base = { PAYLOAD_KEYS: generatePayloadKeyEntry('config-test'), CODEC_SERVER_TOKEN: TOKEN };

  it('takes both TLS files', () => {
    const config = loadCodecServerConfig({
      ...base,
      CODEC_TLS_CERT_FILE: '/c.pem',
      CODEC_TLS_KEY_FILE: '/k.pem',
    });
    expect([config.tlsCertFile, config.tlsKeyFile]).toEqual(['/c.pem', '/k.pem']);
  });

  it('refuses one TLS file without the other, naming the missing variable', () => {
    expect(() => loadCodecServerConfig({ ...base, CODEC_TLS_CERT_FILE: '/c.pem' })).toThrow(
      /CODEC_TLS_KEY_FILE/,
    );
    expect(() => loadCodecServerConfig({ ...base, CODEC_TLS_KEY_FILE: '/k.pem' })).toThrow(
      /CODEC_TLS_CERT_FILE/,
    );
  });
});
