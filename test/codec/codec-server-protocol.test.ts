/**
 * The codec server speaks proto JSON as the Temporal tools write it: a `Payloads` message whose empty list is
 * left out (`{}`), payloads without `data` or `metadata`, base64 in either alphabet with or without padding;
 * and its 422 answers name the payload's key id but never the ids it holds. Real HTTP on port 0; the
 * payloads come from the codec itself (the real CLI against real histories: temporal-cli.test.ts).
 */
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { generatePayloadKeyEntry, parsePayloadKeys } from '../../src/codec/key-ring';
import { startCodecServer, type RunningCodecServer } from '../../src/codec/codec-server';

const TOKEN = 'protocol-test-token-0123456789';
const SERVER_KEY_IDS = ['2026-07-server', '2026-01-server'];
const keys = parsePayloadKeys(SERVER_KEY_IDS.map(generatePayloadKeyEntry).join(','));
const base64 = (text: string): string => Buffer.from(text).toString('base64');

interface JsonPayload {
  metadata: Record<string, string>;
  data: string;
}

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

  describe('422 answers', () => {
    const otherKeys = parsePayloadKeys(generatePayloadKeyEntry('2025-12-elsewhere'));
    const sameIdOtherKey = parsePayloadKeys(generatePayloadKeyEntry(SERVER_KEY_IDS[0] ?? ''));
    const encryptedWith = async (ring: typeof keys): Promise<JsonPayload> => {
      const [payload] = await new EncryptionCodec(ring).encode([
        { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"licensePlate":"B-KE 1"}') },
      ]);
      return {
        metadata: Object.fromEntries(
          Object.entries(payload?.metadata ?? {}).map(([key, value]) => [
            key,
            Buffer.from(value ?? []).toString('base64'),
          ]),
        ),
        data: Buffer.from(payload?.data ?? []).toString('base64'),
      };
    };

    it.each([
      [
        'a key the server lacks',
        () => encryptedWith(otherKeys),
        'Payload encrypted with key "2025-12-elsewhere" cannot be decrypted: this codec server does not have that key',
      ],
      [
        'another key under the same id',
        () => encryptedWith(sameIdOtherKey),
        'Payload encrypted with key "2026-07-server" could not be decrypted: the key differs or the payload was altered',
      ],
      [
        'no key id',
        async () => {
          const payload = await encryptedWith(keys);
          delete payload.metadata['encryption-key-id'];
          return payload;
        },
        'Encrypted payload names no key',
      ],
    ])('name the payload’s key id but none of the server’s for %s', async (_, payload, message) => {
      const answer = await call('/decode', JSON.stringify({ payloads: [await payload()] }));
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ error: message, code: 'PAYLOAD_DECRYPTION_FAILED' });
      for (const id of SERVER_KEY_IDS.filter((id) => !message.includes(id))) {
        expect(answer.text).not.toContain(id);
      }
      expect(answer.text).not.toContain('2026-01-server');
    });
  });
});
