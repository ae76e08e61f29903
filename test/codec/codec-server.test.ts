/**
 * The codec server against real encrypted histories: a real dev server, the sandbox and a worker with the
 * stack's random key; requests over HTTP as the Web UI and the CLI send them.
 */
import type { Payload } from '@temporalio/common';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { startCodecServer, type RunningCodecServer } from '../../src/codec/codec-server';
import { generatePayloadKeyEntry, parsePayloadKeys } from '../../src/codec/key-ring';
import { jwtAccessTokenVerifier } from '../../src/codec/ui-access-token';
import { badgeOrderWorkflowId } from '../../src/contract';
import { WORKFLOW_TYPES } from '../../src/workflow-contract';
import { startTestStack, type InProcessWorker, type TestStack } from '../helpers/stack';

const UI_ORIGIN = 'http://127.0.0.1:8233';
const TOKEN = 'codec-test-token-0123456789';
const vehicle = { licensePlate: 'K-CO 4711', vin: 'WVWZZZ1JZXW000002', fuel: 'petrol' };
const badge = { type: 'green', validFrom: '2027-03-01' };

interface JsonPayload {
  metadata: Record<string, string>;
  data: string;
}
const toJson = (payload: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value ?? new Uint8Array()).toString('base64'),
    ]),
  ),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});
const plainText = (payloads: readonly JsonPayload[]): string =>
  payloads.map((payload) => Buffer.from(payload.data, 'base64').toString('utf8')).join('\n');

describe('codec server', () => {
  let stack: TestStack;
  let worker: InProcessWorker;
  let server: RunningCodecServer;
  let inputPayloads: JsonPayload[];

  beforeAll(async () => {
    stack = await startTestStack();
    worker = await stack.startWorker();
    stack.writeDocument('codec/form.pdf', '%PDF-1.4 codec');
    const started = await stack.orders.startOrder({
      orderRef: 'codec-1',
      vehicle,
      badge,
      documents: [{ path: 'codec/form.pdf' }],
    });
    await started.handle.result();
    const history = await stack.temporal.rawClient.workflow
      .getHandle(badgeOrderWorkflowId('codec-1'))
      .fetchHistory();
    inputPayloads = (history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? []).map(
      toJson,
    );
    server = await startCodecServer({
      keys: stack.payloadKeys,
      corsOrigin: UI_ORIGIN,
      token: TOKEN,
      port: 0,
    });
  });

  afterAll(async () => {
    await server?.close();
    await worker?.stop();
    await stack?.teardown();
  });

  const post = (path: string, headers: Record<string, string>, body: unknown, base = server.url) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
      body: JSON.stringify(body),
    });

  it('stores the order encrypted: the raw input is unreadable', () => {
    expect(inputPayloads).toHaveLength(1);
    expect(plainText(inputPayloads)).not.toContain(vehicle.licensePlate);
  });

  it('answers the UI’s CORS preflight for the allowed origin', async () => {
    const response = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: UI_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace,authorization',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(response.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect(response.headers.get('access-control-allow-headers')).toMatch(/x-namespace/);
  });

  it('decodes real history payloads for the allowed origin with a valid token', async () => {
    const response = await post(
      '/decode',
      { origin: UI_ORIGIN, authorization: `Bearer ${TOKEN}` },
      {
        payloads: inputPayloads,
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    const body = (await response.json()) as { payloads: JsonPayload[] };
    expect(plainText(body.payloads)).toContain(vehicle.licensePlate);
    expect(Buffer.from(body.payloads[0]?.metadata.encoding ?? '', 'base64').toString()).toBe('json/plain');
  });

  it('serves the CLI’s /{namespace}/decode without an Origin', async () => {
    const response = await post(
      '/default/decode',
      { authorization: `Bearer ${TOKEN}` },
      { payloads: inputPayloads },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(plainText(((await response.json()) as { payloads: JsonPayload[] }).payloads)).toContain(
      vehicle.vin,
    );
  });

  it('refuses a missing or wrong token', async () => {
    const missing = await post('/decode', { origin: UI_ORIGIN }, { payloads: inputPayloads });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const missingText = await missing.text();
    expect(missingText).not.toContain(vehicle.licensePlate);
    const wrong = await post(
      '/decode',
      { authorization: 'Bearer not-the-token' },
      { payloads: inputPayloads },
    );
    expect(wrong.status).toBe(401);
  });

  it('refuses a foreign origin, at the preflight and on the request itself', async () => {
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const request = await post(
      '/decode',
      { origin: 'https://evil.example', authorization: `Bearer ${TOKEN}` },
      {
        payloads: inputPayloads,
      },
    );
    expect(request.status).toBe(403);
    expect(await request.text()).not.toContain(vehicle.licensePlate);
  });

  it('round-trips /encode and /decode, and rejects a malformed body', async () => {
    const plain = {
      metadata: { encoding: Buffer.from('json/plain').toString('base64') },
      data: 'eyJhIjoxfQ==',
    };
    const encoded = await post('/encode', { authorization: `Bearer ${TOKEN}` }, { payloads: [plain] });
    const encodedBody = (await encoded.json()) as { payloads: JsonPayload[] };
    expect(
      Buffer.from(encodedBody.payloads[0]?.metadata['encryption-key-id'] ?? '', 'base64').toString(),
    ).toBe(stack.payloadKeys.encryptKeyId);
    const decoded = await post('/decode', { authorization: `Bearer ${TOKEN}` }, encodedBody);
    expect(((await decoded.json()) as { payloads: JsonPayload[] }).payloads).toEqual([plain]);
    const malformed = await post('/decode', { authorization: `Bearer ${TOKEN}` }, { payload: [] });
    expect(malformed.status).toBe(400);
  });

  it('answers a wrong key with a clear error naming the payload’s key id, not the server’s', async () => {
    const other = await startCodecServer({
      keys: parsePayloadKeys(generatePayloadKeyEntry('other-key')),
      corsOrigin: UI_ORIGIN,
      token: TOKEN,
      port: 0,
    });
    try {
      const response = await post(
        '/decode',
        { authorization: `Bearer ${TOKEN}` },
        { payloads: inputPayloads },
        other.url,
      );
      expect(response.status).toBe(422);
      const text = await response.text();
      const body = JSON.parse(text) as { error: string; keyId: string };
      expect(body.keyId).toBe(stack.payloadKeys.encryptKeyId);
      expect(body.error).toBe(
        'Payload encrypted with key "test-stack" cannot be decrypted: this codec server does not have that key',
      );
      // The ids the server holds are not a caller's business.
      expect(text).not.toContain('other-key');
    } finally {
      await other.close();
    }
  });

  it('accepts the Web UI’s passed access token when it is a valid JWT of the identity provider', async () => {
    const provider = await generateKeyPair('RS256');
    const stranger = await generateKeyPair('RS256');
    const jwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(provider.publicKey)), alg: 'RS256' }] });
    const uiServer = await startCodecServer({
      keys: stack.payloadKeys,
      corsOrigin: UI_ORIGIN,
      port: 0,
      verifyUiAccessToken: jwtAccessTokenVerifier({
        keys: jwks,
        issuer: 'https://idp.example',
        audience: 'temporal-ui',
      }),
    });
    const sign = (key: KeyLike, audience = 'temporal-ui'): Promise<string> =>
      new SignJWT({ sub: 'operator' })
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuer('https://idp.example')
        .setAudience(audience)
        .setExpirationTime('5m')
        .sign(key);
    try {
      const decode = async (token: string): Promise<number> =>
        (
          await post(
            '/decode',
            { origin: UI_ORIGIN, authorization: `Bearer ${token}` },
            { payloads: inputPayloads },
            uiServer.url,
          )
        ).status;
      expect(await decode(await sign(provider.privateKey))).toBe(200);
      expect(await decode(await sign(stranger.privateKey))).toBe(401);
      expect(await decode(await sign(provider.privateKey, 'another-app'))).toBe(401);
    } finally {
      await uiServer.close();
    }
  });

  it('refuses to start without credentials except on loopback for the local demo', async () => {
    await expect(
      startCodecServer({ keys: stack.payloadKeys, corsOrigin: UI_ORIGIN, port: 0, host: '0.0.0.0' }),
    ).rejects.toThrow(/needs a token/);
    await expect(
      startCodecServer({
        keys: stack.payloadKeys,
        corsOrigin: UI_ORIGIN,
        port: 0,
        host: '0.0.0.0',
        allowUnauthenticatedOnLoopback: true,
      }),
    ).rejects.toThrow(/loopback/);
    const demo = await startCodecServer({
      keys: stack.payloadKeys,
      corsOrigin: UI_ORIGIN,
      port: 0,
      allowUnauthenticatedOnLoopback: true,
    });
    try {
      expect(
        (await post('/decode', { origin: UI_ORIGIN }, { payloads: inputPayloads }, demo.url)).status,
      ).toBe(200);
    } finally {
      await demo.close();
    }
  });

  it('runs an order started without encryption (as before it was switched on) to completion', async () => {
    stack.writeDocument('codec/legacy.pdf', '%PDF-1.4 legacy');
    const handle = await stack.temporal.rawClient.workflow.start(WORKFLOW_TYPES.badgeOrder, {
      taskQueue: stack.taskQueue,
      workflowId: badgeOrderWorkflowId('codec-legacy'),
      args: [{ orderRef: 'codec-legacy', vehicle, badge, documents: [{ path: 'codec/legacy.pdf' }] }],
    });
    // The worker encrypts what it writes now: the raw client cannot read the result, the codec client can.
    const result = await stack.orders.getHandle('codec-legacy').result();
    expect(result).toMatchObject({ orderRef: 'codec-legacy', documents: [{ status: 'uploaded' }] });
    await expect(handle.result()).rejects.toThrow(/binary\/encrypted/);
    const state = await stack.sandbox.control.state();
    expect(state.orders.map((placed) => placed.vehicle)).toContainEqual(vehicle);
  });
});
