import fc from 'fast-check';
import { jsonNumber, keepsJsonDigits, parseJsonKeepingDigits } from '../src/json-numbers';

/** Every number as its source text unless a double holds it as written: what parseJsonKeepingDigits promises. */
function keepingDigitsSlowly(text: string): unknown {
  const json = JSON as unknown as {
    parse(
      text: string,
      reviver: (key: string, value: unknown, context?: { source?: string }) => unknown,
    ): unknown;
  };
  return json.parse(text, (_key, value, context) => {
    const source = context?.source;
    if (typeof value !== 'number' || source === undefined) return value;
    const exact = String(value) === source && (Number.isSafeInteger(value) || !Number.isInteger(value));
    return exact ? value : source;
  });
}

/** JSON number texts of every shape: small and huge integers, fractions, exponents, negative zero. */
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc.constantFrom(
    '-0',
    '1.0',
    '1e3',
    '-0.0',
    '2E-5',
    '9007199254740993',
    '123456789012345',
    '1234567890123456',
  ),
);

describe('parseJsonKeepingDigits', () => {
  it('keeps a number a double would change as exactly the text sent', () => {
    expect(
      parseJsonKeepingDigits(
        '{"id":9223372036854770001,"big":1152921504606847000,"one":1.0,"e":1e3,"minusZero":-0}',
      ),
    ).toEqual({
      id: '9223372036854770001',
      big: '1152921504606847000',
      one: '1.0',
      e: '1e3',
      minusZero: '-0',
    });
  });

  it('leaves every number a double holds as written a number', () => {
    expect(parseJsonKeepingDigits('[5001,-3,0,9007199254740991,0.5,3600.25,1e-7,{"n":[42]}]')).toEqual([
      5001,
      -3,
      0,
      Number.MAX_SAFE_INTEGER,
      0.5,
      3600.25,
      1e-7,
      { n: [42] },
    ]);
  });

  it('reads any JSON as the digit-keeping reading would, numbers inside strings or not', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        numberText.map((text) => ({ raw: text })),
        fc.oneof(fc.string(), numberText).map((text) => ({ raw: JSON.stringify(text) })),
        fc.array(tie('node'), { maxLength: 4 }).map((items) => ({
          raw: `[${items.map((item) => (item as { raw: string }).raw).join(',')}]`,
        })),
        fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 }).map((entries) => ({
          raw: `{${Object.entries(entries)
            .map(([key, item]) => `${JSON.stringify(key)}:${(item as { raw: string }).raw}`)
            .join(',')}}`,
        })),
      ),
    })).node;
    fc.assert(
      fc.property(value, ({ raw }) => {
        expect(parseJsonKeepingDigits(raw)).toEqual(keepingDigitsSlowly(raw));
      }),
      { numRuns: 2000 },
    );
  });

  it('throws on what JSON.parse throws on', () => {
    expect(() => parseJsonKeepingDigits('{"id":')).toThrow(SyntaxError);
  });
});

describe('jsonNumber', () => {
  it('is written by JSON.stringify as a bare number, digit for digit', () => {
    expect(JSON.stringify({ stock_id: jsonNumber('98765432109876543210987654321') })).toBe(
      '{"stock_id":98765432109876543210987654321}',
    );
  });

  it('refuses what is not a JSON integer', () => {
    expect(() => jsonNumber('0042')).toThrow(TypeError);
    expect(() => jsonNumber('12a')).toThrow(TypeError);
  });
});

describe('keepsJsonDigits', () => {
  /** What Node.js 20 has: a reviver without the number's source text, and no `rawJSON`. */
  const withoutSource = {
    parse: (text: string, reviver: (key: string, value: unknown) => unknown): unknown =>
      JSON.parse(text, (key, value: unknown) => reviver(key, value)) as unknown,
  };

  it("holds for this runtime's JSON", () => {
    expect(keepsJsonDigits()).toBe(true);
  });

  it('fails without rawJSON, or without the source text in the reviver', () => {
    expect(keepsJsonDigits(withoutSource)).toBe(false);
    expect(keepsJsonDigits({ ...withoutSource, rawJSON: (text: string) => text })).toBe(false);
    expect(keepsJsonDigits({ parse: JSON.parse.bind(JSON) })).toBe(false);
    expect(keepsJsonDigits({})).toBe(false);
  });
});
