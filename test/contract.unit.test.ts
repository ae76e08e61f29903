/**
 * The order input schema never throws: whatever arrives (any JSON value, 6,000 levels deep, numbers beyond the
 * range of a date, strings with lone surrogates), `safeParse` answers and `parseBadgeOrderInput` either returns
 * or throws `InvalidOrderInputError`. The workflow relies on that to turn any bad input into a clean
 * INVALID_INPUT failure instead of a workflow task that fails forever. The size bound is exact UTF-8 bytes of
 * the JSON text, checked against `Buffer.byteLength(JSON.stringify(…))`.
 */
import fc from 'fast-check';
import {
  InvalidOrderInputError,
  badgeOrderInputSchema,
  badgeOrderWorkflowId,
  CLIENT_ID_PATTERN,
  formatIssues,
  parseBadgeOrderInput,
  type BadgeOrderOptions,
} from '../src/contract';

const LIMIT = 65_536;
const MAX_DEPTH = 16;
const DAY_MS = 24 * 60 * 60 * 1000;
const valid = { orderRef: 'unit-1', vehicle: { plate: 'B-AD 1' }, badge: { type: 'green' }, documents: [] };
const OPTION_NAMES = [
  'uploadRetryWindowMs',
  'uploadHeartbeatTimeoutMs',
  'platformRetryWindowMs',
  'repairWindowMs',
  'reconciliationWindowMs',
] as const satisfies readonly (keyof BadgeOrderOptions)[];

/** The issues of a refused input, as `field: message` lines; `[]` when it is accepted. */
function issuesOf(input: unknown): string[] {
  const parsed = badgeOrderInputSchema.safeParse(input);
  return parsed.success ? [] : formatIssues(parsed.error);
}

/** Neither validation entry point may throw anything but `InvalidOrderInputError`. */
function expectAnswered(input: unknown): void {
  const parsed = badgeOrderInputSchema.safeParse(input);
  expect(typeof parsed.success).toBe('boolean');
  try {
    parseBadgeOrderInput(input);
    expect(parsed.success).toBe(true);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOrderInputError);
    expect(parsed.success).toBe(false);
  }
}

/** `depth` containers nested in one another (objects, arrays or both), built without recursion. */
function nested(depth: number, kind: 'object' | 'array' | 'mixed' = 'object'): unknown {
  let value: unknown = 1;
  for (let level = depth; level >= 1; level -= 1) {
    const array = kind === 'array' || (kind === 'mixed' && level % 2 === 0);
    value = array ? [value] : { a: value };
  }
  return value;
}

/** The JSON text of `depth` nested objects, written without JSON.stringify (which overflows on it). */
function deepJsonText(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const utf8JsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Any UTF-16 code unit, lone surrogates and control characters included. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const anyString = fc.string({ unit: anyUnit, maxLength: 40 });
const anyJson = fc.jsonValue({ maxDepth: 6, stringUnit: anyUnit });
const anyNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_VALUE, -0, 1e21, 8.64e15, NaN, Infinity, -Infinity),
);
/** Deeply nested data, objects and arrays, up to 8,000 levels. */
const anyDeep = fc
  .tuple(
    fc.integer({ min: 1, max: 8_000 }),
    fc.constantFrom('object' as const, 'array' as const, 'mixed' as const),
  )
  .map(([depth, kind]) => nested(depth, kind));
const anyValue = fc.oneof(anyJson, anyDeep, anyNumber, anyString);
const anyOptions = fc.oneof(
  anyValue,
  fc.record(
    Object.fromEntries(OPTION_NAMES.map((name) => [name, anyValue])) as Record<
      (typeof OPTION_NAMES)[number],
      typeof anyValue
    >,
    { requiredKeys: [] },
  ),
);
/** Inputs close to valid ones, so the walk gets past the first refusal and reaches every field. */
const anyInput = fc.oneof(
  anyValue,
  fc.record(
    {
      orderRef: fc.oneof(fc.constant('fuzz-1'), anyValue),
      stockId: anyValue,
      vehicle: fc.oneof(
        fc.constant(valid.vehicle),
        anyValue,
        fc.dictionary(anyString, anyValue, { maxKeys: 4 }),
      ),
      badge: fc.oneof(fc.constant(valid.badge), anyValue, fc.dictionary(anyString, anyValue, { maxKeys: 4 })),
      documentOwner: anyValue,
      documents: fc.oneof(
        fc.constant([]),
        anyValue,
        fc.array(fc.record({ path: anyValue }), { maxLength: 3 }),
      ),
      options: anyOptions,
    },
    { requiredKeys: ['orderRef', 'vehicle', 'badge', 'documents'] },
  ),
);

describe('order input schema never throws', () => {
  it('answers any JSON value, deep value, odd number or odd string with a result or InvalidOrderInputError', () => {
    fc.assert(fc.property(anyInput, expectAnswered), { numRuns: 400 });
  });

  it('answers values that JSON text alone can produce, parsed from that text', () => {
    fc.assert(
      fc.property(anyJson, (value) => expectAnswered(JSON.parse(JSON.stringify(value)) as unknown)),
      { numRuns: 200 },
    );
  });

  it('refuses 6,000 levels of nesting in vehicle and in badge, parsed from an order file', () => {
    const deep: unknown = JSON.parse(deepJsonText(6_000));
    expect(issuesOf({ ...valid, vehicle: deep })).toEqual(['vehicle: nesting deeper than 16 levels']);
    expect(issuesOf({ ...valid, badge: deep })).toEqual(['badge: nesting deeper than 16 levels']);
    expect(() => parseBadgeOrderInput({ ...valid, vehicle: { a: [nested(100_000, 'mixed')] } })).toThrow(
      new InvalidOrderInputError(['vehicle: nesting deeper than 16 levels']),
    );
  });

  it('refuses cyclic data handed over directly', () => {
    const cyclic: Record<string, unknown> = { plate: 'B-AD 1' };
    cyclic.self = cyclic;
    expect(issuesOf({ ...valid, vehicle: cyclic })).toEqual(['vehicle: nesting deeper than 16 levels']);
  });
});

describe('vehicle and badge nesting', () => {
  it.each(['object', 'array', 'mixed'] as const)('accepts %s nesting of 16 levels and refuses 17', (kind) => {
    // The field itself is level 1: a 16-level vehicle holds 15 containers inside it.
    expect(issuesOf({ ...valid, vehicle: { a: nested(MAX_DEPTH - 1, kind) } })).toEqual([]);
    expect(issuesOf({ ...valid, vehicle: { a: nested(MAX_DEPTH, kind) } })).toEqual([
      'vehicle: nesting deeper than 16 levels',
    ]);
    expect(issuesOf({ ...valid, badge: { a: nested(MAX_DEPTH, kind) } })).toEqual([
      'badge: nesting deeper than 16 levels',
    ]);
  });

  it('counts empty containers as levels too', () => {
    expect(issuesOf({ ...valid, badge: { a: nested(MAX_DEPTH - 1, 'array') } })).toEqual([]);
    let deepest: unknown = {};
    for (let level = 0; level < MAX_DEPTH; level += 1) deepest = { a: deepest };
    expect(issuesOf({ ...valid, badge: deepest })).toEqual(['badge: nesting deeper than 16 levels']);
  });
});

describe('vehicle and badge size in UTF-8 bytes', () => {
  /** `{"k":"<filler>"}` of exactly `bytes` UTF-8 bytes, the filler made of `char` and ASCII for the rest. */
  function dataOfBytes(bytes: number, char: string): Record<string, string> {
    const frame = utf8JsonBytes({ k: '' });
    const charBytes = utf8JsonBytes(char) - 2;
    const count = Math.floor((bytes - frame) / charBytes);
    const data = { k: char.repeat(count) + 'x'.repeat(bytes - frame - count * charBytes) };
    expect(utf8JsonBytes(data)).toBe(bytes);
    return data;
  }

  it.each([
    ['ASCII', 'x'],
    ['2-byte é', 'é'],
    ['3-byte €', '€'],
    ['4-byte emoji (a surrogate pair)', '🚗'],
    ['a lone surrogate (escaped as 6 bytes)', '\ud800'],
    ['a control character (escaped as 6 bytes)', '\u0001'],
    ['a quote (escaped as 2 bytes)', '"'],
  ])('accepts exactly 65536 bytes and refuses 65537 with %s', (_name, char) => {
    expect(issuesOf({ ...valid, vehicle: dataOfBytes(LIMIT, char) })).toEqual([]);
    expect(issuesOf({ ...valid, vehicle: dataOfBytes(LIMIT + 1, char) })).toEqual([
      'vehicle: must be at most 65536 bytes as UTF-8 JSON',
    ]);
  });

  it('counts bytes, not UTF-16 code units: 40,000 "é" are 80,008 bytes', () => {
    const badge = { k: 'é'.repeat(40_000) };
    expect(JSON.stringify(badge).length).toBeLessThan(LIMIT);
    expect(issuesOf({ ...valid, badge })).toEqual(['badge: must be at most 65536 bytes as UTF-8 JSON']);
  });

  it('measures exactly what JSON.stringify writes, for any data (keys and strings with any code unit)', () => {
    const data = fc.dictionary(anyString, anyJson, { maxKeys: 6 });
    fc.assert(
      fc.property(data, fc.constantFrom('x', 'é', '€', '🚗'), (base, char) => {
        const frame = utf8JsonBytes({ ...base, '~pad': '' });
        fc.pre(frame <= LIMIT - 8);
        const charBytes = utf8JsonBytes(char) - 2;
        const fill = (bytes: number): Record<string, unknown> => {
          const count = Math.floor((bytes - frame) / charBytes);
          return { ...base, '~pad': char.repeat(count) + 'x'.repeat(bytes - frame - count * charBytes) };
        };
        const atLimit = fill(LIMIT);
        const overLimit = fill(LIMIT + 1);
        expect(utf8JsonBytes(atLimit)).toBe(LIMIT);
        expect(utf8JsonBytes(overLimit)).toBe(LIMIT + 1);
        expect(issuesOf({ ...valid, vehicle: atLimit })).toEqual([]);
        expect(issuesOf({ ...valid, vehicle: overLimit })).toEqual([
          'vehicle: must be at most 65536 bytes as UTF-8 JSON',
        ]);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a wide array or object by its size, after looking at no more than the limit allows', () => {
    const wideArray = { items: Array.from({ length: 1_000_000 }, () => 0) };
    expect(issuesOf({ ...valid, vehicle: wideArray })).toEqual([
      'vehicle: must be at most 65536 bytes as UTF-8 JSON',
    ]);
    const wideObject = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    expect(issuesOf({ ...valid, badge: wideObject })).toEqual([
      'badge: must be at most 65536 bytes as UTF-8 JSON',
    ]);
  });

  it('leaves out members whose value is undefined, as JSON does', () => {
    expect(issuesOf({ ...valid, vehicle: { plate: 'B-AD 1', colour: undefined } })).toEqual([]);
  });

  it('refuses what JSON cannot carry when handed over directly: NaN, Infinity, dates, functions', () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      expect(issuesOf({ ...valid, vehicle: { weight: bad } })).toEqual([
        'vehicle: must hold only finite numbers',
      ]);
    }
    for (const bad of [new Date(0), () => 1, Symbol('s'), 1n, new Map(), [undefined]]) {
      expect(issuesOf({ ...valid, badge: { value: bad } })).toEqual(['badge: must hold only JSON data']);
    }
  });
});

describe('duration options', () => {
  const WINDOW_MAX = 30 * DAY_MS;
  const HEARTBEAT_MAX = 60 * 60 * 1000;
  const maxOf = (name: (typeof OPTION_NAMES)[number]): number =>
    name === 'uploadHeartbeatTimeoutMs' ? HEARTBEAT_MAX : WINDOW_MAX;
  const maxText = (name: (typeof OPTION_NAMES)[number]): string =>
    name === 'uploadHeartbeatTimeoutMs' ? '1 hour' : '30 days';

  it.each(OPTION_NAMES)('%s: accepts 1 second to its upper bound, refuses beyond either', (name) => {
    for (const ok of [1_000, 3_000, 20_000, maxOf(name)]) {
      expect(issuesOf({ ...valid, options: { [name]: ok } })).toEqual([]);
    }
    expect(issuesOf({ ...valid, options: { [name]: 999 } })).toEqual([
      `options.${name}: must be at least 1000 ms (1 second)`,
    ]);
    expect(issuesOf({ ...valid, options: { [name]: maxOf(name) + 1 } })).toEqual([
      `options.${name}: must be at most ${maxOf(name)} ms (${maxText(name)})`,
    ]);
    expect(issuesOf({ ...valid, options: { [name]: Number.MAX_SAFE_INTEGER } })).toEqual([
      `options.${name}: must be at most ${maxOf(name)} ms (${maxText(name)})`,
    ]);
    expect(issuesOf({ ...valid, options: { [name]: 1_500.5 } })).toEqual([
      `options.${name}: must be whole milliseconds`,
    ]);
    for (const bad of [NaN, Infinity, -Infinity, '1000', null]) {
      expect(issuesOf({ ...valid, options: { [name]: bad } })).toEqual([
        `options.${name}: must be a number of milliseconds`,
      ]);
    }
  });

  it('refuses repairWindowMs 9007199254740991, which made the deadline an invalid date', () => {
    expect(() => parseBadgeOrderInput({ ...valid, options: { repairWindowMs: 9007199254740991 } })).toThrow(
      new InvalidOrderInputError(['options.repairWindowMs: must be at most 2592000000 ms (30 days)']),
    );
  });
});

describe('orders of clients', () => {
  it('gives each orderRef of each client its own workflow id, and orders without a client the one they had', () => {
    expect(badgeOrderWorkflowId('A-1')).toBe('badge-order-A-1');
    expect(badgeOrderWorkflowId('A-1', 'backend-a')).toBe('badge-order-A-1@backend-a');
    // "@" is neither in an orderRef nor in a client id, so no two (orderRef, client) pairs share an id.
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,20}$/),
        fc.stringMatching(CLIENT_ID_PATTERN),
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,20}$/),
        fc.stringMatching(CLIENT_ID_PATTERN),
        (refA, clientA, refB, clientB) =>
          (refA === refB && clientA === clientB) ||
          badgeOrderWorkflowId(refA, clientA) !== badgeOrderWorkflowId(refB, clientB),
      ),
    );
    expect(issuesOf({ ...valid, orderRef: 'A@b' })).toEqual([
      'orderRef: may contain only letters, digits, ".", "_", ":" and "-"',
    ]);
  });

  it('confines path documents to documentsFolder when the order has one', () => {
    const folder = { documentsFolder: 'clients/backend-a' };
    const documents = (...paths: string[]) => paths.map((path) => ({ path }));
    expect(issuesOf({ ...valid, ...folder, documents: documents('clients/backend-a/x.pdf') })).toEqual([]);
    expect(
      issuesOf({
        ...valid,
        ...folder,
        documents: documents('clients/backend-b/x.pdf', 'clients/backend-a', 'clients/backend-ab/x.pdf'),
      }),
    ).toEqual(
      [0, 1, 2].map(
        (index) =>
          `documents.${index}.path: must be inside clients/backend-a/ (this client's folder under DOCUMENTS_ROOT)`,
      ),
    );
    expect(issuesOf({ ...valid, documentsFolder: '../elsewhere' })).toEqual([
      'documentsFolder: must be a relative path inside DOCUMENTS_ROOT (no absolute path, no "..")',
    ]);
    // Without a folder: anywhere under the root.
    expect(issuesOf({ ...valid, documents: documents('clients/backend-b/x.pdf') })).toEqual([]);
  });
});

describe('document file names', () => {
  const withFilename = (filename: unknown) => ({ ...valid, documents: [{ path: 'scan.pdf', filename }] });

  it('takes a file name as the platform gets it in Content-Disposition: letters of any script, spaces, dots', () => {
    for (const filename of ['scan.pdf', 'Führerschein (1).JPG', '申请表.pdf', '.hidden', 'a'.repeat(255)]) {
      expect(issuesOf(withFilename(filename))).toEqual([]);
    }
  });

  it('refuses control characters, quotes, slashes, backslashes, "." and "..", and more than 255 characters', () => {
    const noFilename =
      'documents.0.filename: must be a file name: no control characters, quotes, slashes or backslashes';
    for (const filename of [
      'scan.pdf"; name="other',
      'scan\r\nContent-Type: text/html',
      'a\u0000b',
      'a\u007fb',
      'a\u0085b',
      '../etc/passwd',
      'dir\\scan.pdf',
    ]) {
      expect(issuesOf(withFilename(filename))).toEqual([noFilename]);
    }
    expect(issuesOf(withFilename('..'))).toEqual([
      'documents.0.filename: must be a file name, not "." or ".."',
    ]);
    expect(issuesOf(withFilename('a'.repeat(256)))).toEqual([
      'documents.0.filename: must be at most 255 characters',
    ]);
    expect(issuesOf(withFilename(''))).toEqual(['documents.0.filename: must not be empty']);
  });
});
