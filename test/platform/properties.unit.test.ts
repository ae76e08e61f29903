/**
 * Property tests over generated response shapes: what the specification leaves open ("not shown") is drawn
 * at random, and the client must still find what was planted, never invent what was not, and never fail a 2xx
 * upload.
 */
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { extractDocument, extractOrderId, extractToken } from '../../src/platform/extract';
import { harness } from './fake-http';

type LinkRole = keyof ReturnType<typeof extractDocument>['links'];

type Json = Record<string, unknown>;

/** Keys that name neither a link, an id nor a generic link field. */
const neutralKey = fc.constantFrom(
  'status',
  'size',
  'created_at',
  'mime_type',
  'note',
  'owner',
  'info',
  'state',
  'name',
  'checksum',
  'bytes',
  'tags',
);
/** Values that are not links; plus link-looking values under neutral keys, which must be ignored. */
const noiseValue = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string().filter((s) => !s.includes('://') && !s.trimStart().startsWith('/')),
  fc.webUrl(),
);
const noise: fc.Arbitrary<Json> = fc.letrec<{ obj: Json }>((tie) => ({
  obj: fc.dictionary(neutralKey, fc.oneof({ depthSize: 'small' }, noiseValue, tie('obj')), { maxKeys: 4 }),
})).obj;

/** Envelopes a platform might wrap things in. */
const envelope = fc.constantFrom(
  'data',
  'document',
  'result',
  'attributes',
  'payload',
  'links',
  'urls',
  '_links',
  'files',
  'meta',
  'response',
);
const path = fc.array(envelope, { maxLength: 4 });

const LINK_KEYS: Record<LinkRole, readonly string[]> = {
  original: ['original', 'original_url', 'originalUrl', 'originalLink', 'ORIGINAL'],
  thumbnail: ['thumbnail', 'thumbnail_url', 'thumb', 'thumbUrl', 'preview', 'preview_url'],
  download: ['download', 'download_url', 'signed', 'signed_url', 'signedDownloadUrl', 'signed_download_url'],
};

/** Put `value` at `keys` inside `body`, replacing noise that is in the way. */
function plant(body: Json, keys: readonly string[], value: unknown): void {
  let current = body;
  for (const key of keys.slice(0, -1)) {
    const next = current[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) current[key] = {};
    current = current[key] as Json;
  }
  current[keys[keys.length - 1] as string] = value;
}

const plantedLink = (role: LinkRole) =>
  fc.record({
    at: path,
    key: fc.constantFrom(...LINK_KEYS[role]),
    url: fc.webUrl().map((url) => `${url.replace(/\s/g, '')}/${role}`),
    form: fc.constantFrom('string', 'href', 'url'),
  });

const linksCase = fc.record({
  body: noise,
  original: fc.option(plantedLink('original'), { nil: undefined }),
  thumbnail: fc.option(plantedLink('thumbnail'), { nil: undefined }),
  download: fc.option(plantedLink('download'), { nil: undefined }),
  id: fc.option(
    fc.record({
      at: path,
      key: fc.constantFrom(['document_id'], ['documentId'], ['document', 'id'], ['DocumentID']),
      value: fc.oneof(fc.uuid(), fc.nat().map(String)),
    }),
    { nil: undefined },
  ),
});

describe('document answers', () => {
  it('find every planted link and id wherever it is nested, and nothing else', () => {
    fc.assert(
      fc.property(linksCase, (c) => {
        const body = structuredClone(c.body);
        for (const role of ['original', 'thumbnail', 'download'] as const) {
          const link = c[role];
          if (!link) continue;
          const value =
            link.form === 'string' ? link.url : link.form === 'href' ? { href: link.url } : { url: link.url };
          plant(body, [...link.at, link.key], value);
        }
        if (c.id) plant(body, [...c.id.at, ...c.id.key], c.id.value);
        const found = extractDocument(body);
        expect(found.links).toEqual({
          original: c.original?.url ?? null,
          thumbnail: c.thumbnail?.url ?? null,
          download: c.download?.url ?? null,
        });
        expect(found.documentId).toBe(c.id?.value ?? null);
      }),
    );
  });

  it('never throw on any body', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything()), (body) => {
        extractDocument(body);
        extractOrderId(body);
        extractToken(body);
      }),
    );
  });

  it('a 2xx upload never fails, whatever its body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.constantFrom(200, 201, 202), async (body, status) => {
        const h = harness(() => ({ status, body }));
        const uploaded = await h.client.uploadDocument({
          source: {
            sizeBytes: 1,
            openStream: () => Readable.from([Buffer.from('x')]),
          },
          filename: 'a.pdf',
          orderId: '1',
          documentOwner: '1',
          idempotencyKey: 'k',
        });
        expect(uploaded.links).toBeDefined();
      }),
      { numRuns: 60 },
    );
  });
});

const orderEnvelope = fc.array(fc.constantFrom('data', 'order', 'result', 'attributes', 'payload'), {
  maxLength: 3,
});
/** Noise an order answer may carry: other objects' ids must not be mistaken for the order's. */
const orderNoise = fc.record({
  vehicle: fc.record({ id: fc.nat(), licence_plate: fc.string() }),
  stock_id: fc.nat(),
  badge: fc.record({ id: fc.nat() }, { requiredKeys: [] }),
  status: fc.constantFrom('created', 'pending'),
});

function stripIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripIds);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !['id', 'orderid'].includes(key.toLowerCase().replace(/[^a-z0-9]/g, '')))
      .map(([key, item]) => [key, stripIds(item)]),
  );
}

describe('order answers', () => {
  it('find a planted order id inside any envelope, as number or digit string', () => {
    fc.assert(
      fc.property(
        orderNoise,
        orderEnvelope,
        fc.constantFrom('id', 'order_id', 'orderId'),
        fc.nat(),
        fc.boolean(),
        (extra, at, key, id, asString) => {
          const body: Json = structuredClone(extra);
          plant(body, [...at, key], asString ? String(id) : id);
          expect(extractOrderId(body)).toBe(String(id));
        },
      ),
    );
  });

  it('read an order id of any length, sent as a bare JSON number, as exactly the digits sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[1-9]\d{0,39}$/),
        orderEnvelope,
        fc.constantFrom('id', 'order_id', 'orderId'),
        async (digits, at, key) => {
          // The answer's text holds the digits as a number: a body written by JSON.stringify could not.
          const opening = at.map((envelope) => `{"${envelope}":`).join('');
          const text = `${opening}{"${key}":${digits},"tenant_id":42}${'}'.repeat(at.length)}`;
          const h = harness(() => ({ status: 201, body: text }));
          const created = await h.client.createOrder({
            payload: { vehicle: {}, badge: {} },
            idempotencyKey: 'k',
          });
          expect(created.orderId).toBe(digits);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('never yield an id from a body without one', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), orderNoise), (raw) => {
        expect(extractOrderId(stripIds(raw))).toBeNull();
      }),
    );
  });
});

describe('token answers', () => {
  it('find access_token at the top or under data, whatever else is there', () => {
    fc.assert(
      fc.property(
        noise,
        fc.boolean(),
        fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
        (extra, enveloped, token) => {
          const body: Json = structuredClone(extra);
          plant(body, enveloped ? ['data', 'access_token'] : ['access_token'], token);
          expect(extractToken(body)?.accessToken).toBe(token);
        },
      ),
    );
  });

  it('find no token where there is none', () => {
    fc.assert(
      fc.property(noise, (body) => {
        expect(extractToken(body)).toBeNull();
      }),
    );
  });
});

describe('stock answers', () => {
  it('say listed or unlisted from any complete list shape, and never throw', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.constantFrom('stock_id', 'stockId', 'id'),
        fc.boolean(),
        fc.constantFrom(undefined, 'data', 'items', 'stocks', 'results', 'content'),
        async (ids, wanted, key, asString, wrap) => {
          const list = ids.map((id) => ({ [key]: asString ? String(id) : id, name: `stock ${id}` }));
          const body = wrap === undefined ? list : { [wrap]: list };
          const h = harness(() => ({ status: 200, body }));
          const check = await h.client.checkStock(wanted);
          expect(check).toEqual({
            verdict: ids.includes(wanted) ? 'listed' : 'unlisted',
            stockCount: ids.length,
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answer unknown, never throw, for any other body or status', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.integer({ min: 200, max: 599 }), async (body, status) => {
        const h = harness(() => ({ status, body }));
        const check = await h.client.checkStock(1);
        expect(['listed', 'unlisted', 'unknown']).toContain(check.verdict);
      }),
      { numRuns: 60 },
    );
  });
});
