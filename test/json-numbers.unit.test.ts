import { jsonNumber, parseJsonKeepingDigits } from '../src/json-numbers';

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
