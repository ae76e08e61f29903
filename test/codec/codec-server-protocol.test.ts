/**
 * The codec server speaks proto JSON as the Temporal tools write it: a `Payloads` message whose empty list is
 * left out (`{}`), payloads without `data` or `metadata`, base64 in either alphabet with or without padding.
 * Real HTTP on port 0; the payloads come from the codec itself (the real CLI against real histories:
 * temporal-cli.test.ts).
 */
import { generatePayloadKeyEntry, parsePayloadKeys } from '../../src/codec/key-ring';
import { startCodecServer, type RunningCodecServer } from '../../src/codec/codec-server';

const TOKEN = 'protocol-test-token-0123456789';
const SERVER_KEY_IDS = ['2026-07-server', '2026-01-server'];
const keys = parsePayloadKeys(SERVER_KEY_IDS.map(generatePayloadKeyEntry).join(','));
const base64 = (text: string): string => Buffer.from(text).toString('base64');

describe('codec server protocol', () => {
  let server: RunningCodecServer;

  beforeAll(async () => {
    server = await startCodecServer({ keys, corsOrigin: 'http://127.0.0.1:8233', token: TOKEN, port: 0 });
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = async (
    path: string,
    body: string,
  ): Promise<{ status: number; body: unknown; text: string }> => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${TOKEN}`,
        'x-namespace': 'default',
      },
      body,
    });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text) as unknown, text };
  };

  it.each(['/encode', '/decode', '/default/encode', '/default/decode'])(
    'answers the empty Payloads message `{}` (what the CLI sends for no arguments) at %s',
    async (path) => {
      expect(await call(path, '{}')).toMatchObject({ status: 200, body: { payloads: [] } });
      expect(await call(path, '{"payloads":null}')).toMatchObject({ status: 200, body: { payloads: [] } });
      expect(await call(path, '{"payloads":[]}')).toMatchObject({ status: 200, body: { payloads: [] } });
    },
  );

  it('round-trips payloads without data or metadata, as proto JSON leaves them out', async () => {
    const nullPayload = { metadata: { encoding: base64('binary/null') } };
    const encoded = await call('/encode', JSON.stringify({ payloads: [nullPayload, {}] }));
    expect(encoded.status).toBe(200);
    const decoded = await call('/decode', encoded.text);
    expect(decoded).toMatchObject({
      status: 200,
      body: {
        payloads: [
          { metadata: { encoding: base64('binary/null') }, data: '' },
          { metadata: {}, data: '' },
        ],
      },
    });
  });

  it('reads base64 in the URL-safe alphabet and without padding, and answers in standard base64', async () => {
    // "??>" is "Pz8+" in standard base64 and "Pz8-" in the URL-safe alphabet; "a" is "YQ==" padded.
    const payload = { metadata: { encoding: 'YmluYXJ5L3BsYWlu' }, data: 'Pz8-YQ' };
    const encoded = await call('/encode', JSON.stringify({ payloads: [payload] }));
    const decoded = await call('/decode', encoded.text);
    expect(decoded.body).toEqual({
      payloads: [
        { metadata: { encoding: base64('binary/plain') }, data: Buffer.from('??>a').toString('base64') },
      ],
    });
  });

  it('refuses what a proto JSON parser refuses: bad base64, unknown fields, a payload that is not an object', async () => {
    for (const body of [
      '{"payloads":[{"data":"not base64!"}]}',
      '{"payloads":[{"metadata":{"encoding":"@@@"}}]}',
      '{"payload":[]}',
      '{"payloads":[1]}',
      '{"payloads":{}}',
      '[]',
    ]) {
      const answer = await call('/decode', body);
      expect({ body, status: answer.status }).toEqual({ body, status: 400 });
      expect(answer.body).toMatchObject({ code: 'INVALID_BODY' });
    }
  });
});
