/**
 * Log redaction: the process logger writes into a buffer, and no secret logged in any of the shapes real code
 * produces (nested configuration, HTTP headers, library errors with their request, causes, messages, child
 * bindings, the Temporal SDK's metadata) survives into a line; the facts around it do.
 */
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import { buildApiApp } from '../src/api/app';
import { createAuthenticator } from '../src/api/auth';
import { BadgeOrdersClient } from '../src/client/badge-orders-client';
import { startCodecServer } from '../src/codec/codec-server';
import { generatePayloadKeyEntry, parsePayloadKeys } from '../src/codec/key-ring';
import { createLogger, redactText, sdkLoggerFor } from '../src/logging';

/** A logger writing into memory, and the lines it wrote. */
function bufferLogger(): {
  logger: ReturnType<typeof createLogger>;
  text: () => string;
  lines: () => unknown[];
} {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  // pino writes synchronously to a plain stream's write(): no flushing to wait for.
  const logger = createLogger({ level: 'trace', name: 'redaction-test', destination });
  const text = (): string => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as unknown),
  };
}

/** Distinct secret values: each is asserted absent from the output by itself. */
const secret = (name: string): string => `s3cr3t-${name}-Zq8VwX`;

describe('log redaction', () => {
  it('redacts secret keys at any depth, in arrays and maps, whatever their case', () => {
    const { logger, text, lines } = bufferLogger();
    logger.info(
      {
        orderRef: 'order-1',
        config: { platform: { auth: { login: { user: 'demo', password: secret('deep-password') } } } },
        a: { b: { c: { d: { e: { f: { g: { passwd: secret('seven-levels') } } } } } } },
        clients: [{ name: 'ui', clientSecret: secret('client-secret') }],
        CLIENT_SECRET: secret('upper-secret'),
        refresh_token: secret('refresh-token'),
        accessToken: secret('access-token'),
        dbPassword: secret('db-password'),
        sessions: new Map([['s1', { sessionToken: secret('map-token') }]]),
        apiKey: secret('api-key'),
        privateKey: secret('private-key'),
        tokens: { access: secret('token-object') },
      },
      'configuration loaded',
    );
    const output = text();
    for (const name of [
      'deep-password',
      'seven-levels',
      'client-secret',
      'upper-secret',
      'refresh-token',
      'access-token',
      'db-password',
      'map-token',
      'api-key',
      'private-key',
      'token-object',
    ]) {
      expect(output).not.toContain(secret(name));
    }
    expect(lines()[0]).toMatchObject({
      msg: 'configuration loaded',
      orderRef: 'order-1',
      config: { platform: { auth: { login: { user: 'demo', password: '[redacted]' } } } },
      clients: [{ name: 'ui', clientSecret: '[redacted]' }],
      tokens: '[redacted]',
    });
  });

  it('redacts request and response headers: authorization, cookie, x-api-key and the like', () => {
    const { logger, text, lines } = bufferLogger();
    logger.info({
      req: {
        method: 'POST',
        url: '/decode',
        headers: {
          authorization: `Bearer ${secret('bearer')}`,
          Authorization: `Basic ${secret('basic')}`,
          'proxy-authorization': secret('proxy'),
          cookie: `session=${secret('cookie')}`,
          'x-api-key': secret('x-api-key'),
          'content-type': 'application/json',
        },
      },
      res: { statusCode: 200, headers: { 'set-cookie': [`session=${secret('set-cookie')}`] } },
    });
    const output = text();
    for (const name of ['bearer', 'basic', 'proxy', 'cookie', 'x-api-key', 'set-cookie']) {
      expect(output).not.toContain(secret(name));
    }
    expect(lines()[0]).toMatchObject({
      req: { method: 'POST', headers: { authorization: '[redacted]', 'content-type': 'application/json' } },
      res: { statusCode: 200, headers: { 'set-cookie': '[redacted]' } },
    });
  });

  it('redacts errors: their fields, the request they carry, their causes and secrets in their messages', () => {
    const { logger, text, lines } = bufferLogger();
    const cause = Object.assign(
      new Error(`login failed for https://demo:${secret('url-password')}@badge.example`),
      {
        password: secret('cause-field'),
      },
    );
    // The shape of an HTTP library's error: the request configuration with its headers, the response body.
    const httpError = Object.assign(new Error('Request failed with status code 401', { cause }), {
      name: 'AxiosError',
      code: 'ERR_BAD_REQUEST',
      config: {
        url: 'https://badge.example/api/v1/orders',
        headers: { Authorization: `Bearer ${secret('config-header')}` },
        data: JSON.stringify({ username: 'demo', password: secret('request-body') }),
      },
      response: { status: 401, data: { error: 'expired', token: secret('response-token') } },
    });
    const withTokenInMessage = new Error(`upload refused: Authorization: Bearer ${secret('message-bearer')}`);

    logger.error(httpError);
    logger.error({ err: httpError }, 'platform call failed');
    logger.warn({ error: withTokenInMessage, orderRef: 'order-2' }, 'upload failed');
    logger.warn({ failure: { detail: { reason: httpError } } }, 'nested error');
    logger.error(new AggregateError([httpError, withTokenInMessage], 'several failed'));

    const output = text();
    for (const name of [
      'url-password',
      'cause-field',
      'config-header',
      'request-body',
      'response-token',
      'message-bearer',
    ]) {
      expect(output).not.toContain(secret(name));
    }
    const [first, second, third] = lines();
    expect(first).toMatchObject({
      level: 50,
      msg: 'Request failed with status code 401',
      err: {
        type: 'AxiosError',
        code: 'ERR_BAD_REQUEST',
        message: 'Request failed with status code 401',
        config: { url: 'https://badge.example/api/v1/orders', headers: { Authorization: '[redacted]' } },
        response: { status: 401, data: { error: 'expired', token: '[redacted]' } },
        cause: { type: 'Error', message: 'login failed for https://[redacted]@badge.example' },
      },
    });
    expect((first as { err: { stack: string } }).err.stack).toMatch(/AxiosError: Request failed/);
    expect(second).toMatchObject({ msg: 'platform call failed', err: { type: 'AxiosError' } });
    expect(third).toMatchObject({
      orderRef: 'order-2',
      error: { message: 'upload refused: Authorization: Bearer [redacted]' },
    });
  });

  it('redacts a client credentials grant as an HTTP library’s error carries it: the Basic header and the form', () => {
    const { logger, text } = bufferLogger();
    const basic = Buffer.from(`demo-client:${secret('basic-grant')}`).toString('base64');
    const tokenCallError = Object.assign(new Error(`token call failed; sent Authorization: Basic ${basic}`), {
      name: 'AxiosError',
      config: {
        headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        data: `grant_type=client_credentials&client_id=demo-client&client_secret=${secret('form-grant')}`,
      },
    });
    logger.error({ err: tokenCallError }, 'platform token call failed');
    logger.warn(`sent grant_type=client_credentials&client_secret=${secret('form-text')}&scope=badge`);
    const output = text();
    for (const leaked of [basic, secret('basic-grant'), secret('form-grant'), secret('form-text')]) {
      expect(output).not.toContain(leaked);
    }
    expect(output).toContain('grant_type=client_credentials');
  });

  it('redacts messages, interpolated values and child bindings', () => {
    const { logger, text, lines } = bufferLogger();
    logger.info(`calling the platform with Bearer ${secret('message')}`);
    logger.info('sending %s to %s', `password=${secret('interpolated')}`, 'the platform');
    logger.info(
      { url: `https://badge.example/doc/1?X-Signature=${secret('signed-link')}&size=small` },
      'link',
    );
    const orderLogger = logger.child({ token: secret('child-binding'), orderRef: 'order-3' });
    orderLogger.info('child line');
    orderLogger.setBindings({ cookie: secret('set-bindings') });
    orderLogger
      .child({ nested: { password: secret('grandchild') } })
      .info({ apiKey: secret('grandchild-line') }, 'x');
    const output = text();
    for (const name of [
      'message',
      'interpolated',
      'signed-link',
      'child-binding',
      'set-bindings',
      'grandchild',
      'grandchild-line',
    ]) {
      expect(output).not.toContain(secret(name));
    }
    const [, , link, child, grandchild] = lines();
    expect(link).toMatchObject({ url: 'https://badge.example/doc/1?X-Signature=[redacted]&size=small' });
    expect(child).toMatchObject({ orderRef: 'order-3', token: '[redacted]', msg: 'child line' });
    expect(grandchild).toMatchObject({
      orderRef: 'order-3',
      cookie: '[redacted]',
      nested: { password: '[redacted]' },
      apiKey: '[redacted]',
    });
  });

  it('redacts the Temporal SDK’s log metadata routed into pino', () => {
    const { logger, text, lines } = bufferLogger();
    sdkLoggerFor(logger, 'DEBUG').info('activity failed', {
      activityType: 'uploadDocument',
      headers: { authorization: `Bearer ${secret('sdk')}` },
      error: Object.assign(new Error('boom'), { apiKey: secret('sdk-error') }),
    });
    expect(text()).not.toContain(secret('sdk'));
    expect(text()).not.toContain(secret('sdk-error'));
    expect(lines()[0]).toMatchObject({ msg: 'activity failed', activityType: 'uploadDocument' });
  });

  it('never logs bytes, cuts cycles and keeps what an object says of itself as JSON', () => {
    const { logger, text, lines } = bufferLogger();
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    const ring = { toJSON: () => ({ keyIds: ['2026-07'] }), material: Buffer.from(secret('key-material')) };
    logger.info({ material: Buffer.from(secret('bytes')), loop, ring });
    expect(text()).not.toContain(secret('bytes'));
    expect(text()).not.toContain(secret('key-material'));
    expect(lines()[0]).toMatchObject({
      material: `[binary ${Buffer.byteLength(secret('bytes'))} bytes]`,
      loop: { name: 'loop', self: '[circular]' },
      ring: { keyIds: ['2026-07'] },
    });
  });

  it('removes secrets from free text without mangling ordinary text', () => {
    expect(redactText('token cache refreshed for order-4 (2 documents)')).toBe(
      'token cache refreshed for order-4 (2 documents)',
    );
    expect(redactText('{"username":"demo","password":"hunter2"}')).toBe(
      '{"username":"demo","password":"[redacted]"}',
    );
    expect(redactText('POST https://user:pw@host/x failed')).toBe('POST https://[redacted]@host/x failed');
  });

  it('redacts adversarial text exactly, whatever its length: repeated keywords, long runs of letters, 64 KiB', () => {
    const KIB_64 = 64 * 1024;
    const times = (unit: string): number => Math.floor(KIB_64 / unit.length);
    const kept = [
      `/${'token'.repeat(times('token'))}`,
      'a'.repeat(KIB_64),
      `${'A'.repeat(KIB_64)}@A:/`,
      `${'eyJ-'.repeat(times('eyJ-'))}J.`,
      'password '.repeat(times('password ')),
      `token${' '.repeat(KIB_64)}x`,
      `${'://'.repeat(times('://'))}x`,
    ];
    for (const text of kept) expect(redactText(text)).toBe(text);

    // The attacks recheck found against the patterns before (test/regular-expressions.unit.test.ts), now exact.
    const n = 4096;
    expect(redactText(`${'U'.repeat(n)}${'TOKEN'.repeat(n)}\u0000TOKEN:E`)).toBe(
      `${'U'.repeat(n)}${'TOKEN'.repeat(n)}\u0000TOKEN:[redacted]`,
    );
    expect(redactText(`${'A'.repeat(KIB_64)}@A://@`)).toBe(`${'A'.repeat(KIB_64)}@A://[redacted]@`);
    expect(redactText(`https://${'u'.repeat(KIB_64)}:pw@host/x`)).toBe('https://[redacted]@host/x');
    expect(redactText(`Bearer ${'A'.repeat(KIB_64)} and more`)).toBe('Bearer [redacted] and more');
    const pair = 'access_token=abc&';
    expect(redactText(pair.repeat(times(pair)))).toBe('access_token=[redacted]&'.repeat(times(pair)));
    const json = '{"client_secret": "s3cr3t"},';
    expect(redactText(json.repeat(times(json)))).toBe('{"client_secret": "[redacted]"},'.repeat(times(json)));
    // A secret name inside a longer name, a value holding another assignment, a name inside a non-secret value.
    expect(redactText('X-Amz-Signature=abc;MyApiKey: "k";url=https://x/?sig_token=t&a=1')).toBe(
      'X-Amz-Signature=[redacted];MyApiKey: "[redacted]";url=https://x/?sig_token=[redacted]&a=1',
    );
    expect(redactText('password=a=b token=c')).toBe('password=[redacted] token=[redacted]');
  });

  it('logs a bounded URL and Host of a request in the API and the codec server, before anyone is authenticated', async () => {
    const { logger, lines } = bufferLogger();
    const codec = await startCodecServer({
      keys: parsePayloadKeys(generatePayloadKeyEntry('logging')),
      corsOrigin: 'http://127.0.0.1:8233',
      token: secret('codec-token'),
      port: 0,
      logger,
    });
    // The public route needs no Temporal: a lazy connection is never opened.
    const orders = new BadgeOrdersClient({
      client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
    });
    const api = await buildApiApp({ orders, authenticator: createAuthenticator({ apiKeys: [] }), logger });
    const apiUrl = await api.listen({ host: '127.0.0.1', port: 0 });
    // 15 KB of repeated keywords in each, under node's 16 KiB header limit together.
    const query = `?${'token'.repeat(1500)}`;
    const host = 'password'.repeat(900);
    const send = (url: string, method: string): Promise<number | undefined> =>
      new Promise((resolve, reject) => {
        const request = httpRequest(url, { method, headers: { host } }, (answer) => {
          answer.resume();
          resolve(answer.statusCode);
        });
        request.on('error', reject);
        request.end();
      });
    try {
      expect(await send(`${codec.url}/decode${query}`, 'POST')).toBe(401);
      expect(await send(`${apiUrl}/openapi.json${query}`, 'GET')).toBe(200);
    } finally {
      await codec.close();
      await api.close();
    }
    const incoming = lines().filter((line) => (line as { msg?: string }).msg === 'incoming request');
    expect(incoming.map((line) => (line as { req: unknown }).req)).toEqual(
      ['/decode', '/openapi.json'].map((path): unknown =>
        expect.objectContaining({
          url: `${`${path}${query}`.slice(0, 2048)}… (${path.length + query.length} characters)`,
          host: `${host.slice(0, 256)}… (${host.length} characters)`,
        }),
      ),
    );
  });

  it('keeps what serializers make of a field (Fastify’s request and reply), serialized once, then redacted', async () => {
    const { logger, text, lines } = bufferLogger();
    let calls = 0;
    logger
      .child(
        {},
        { serializers: { order: (order: { ref: string; password: string }) => (calls++, { ...order }) } },
      )
      .info({ order: { ref: 'order-5', password: secret('serialized') } }, 'serialized field');
    expect(calls).toBe(1);
    expect(lines()[0]).toMatchObject({ order: { ref: 'order-5', password: '[redacted]' } });

    // The codec server logs its requests through Fastify's child loggers and serializers.
    const token = secret('codec-token');
    const server = await startCodecServer({
      keys: parsePayloadKeys(generatePayloadKeyEntry('logging')),
      corsOrigin: 'http://127.0.0.1:8233',
      token,
      port: 0,
      logger,
    });
    try {
      const response = await fetch(`${server.url}/decode?access_token=${secret('query-token')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret('wrong-token')}` },
        body: '{}',
      });
      expect(response.status).toBe(401);
    } finally {
      await server.close();
    }
    for (const name of ['codec-token', 'query-token', 'wrong-token', 'serialized']) {
      expect(text()).not.toContain(secret(name));
    }
    expect(lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          msg: 'incoming request',
          req: expect.objectContaining({ method: 'POST', url: '/decode?access_token=[redacted]' }) as unknown,
        }),
        expect.objectContaining({ msg: 'request completed', res: { statusCode: 401 } }),
      ]),
    );
  });
});
