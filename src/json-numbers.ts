/**
 * JSON numbers that a double cannot hold, read and written digit for digit. Platforms number orders and documents
 * with 64-bit integers; `JSON.parse` turns 9223372036854770001 into 9223372036854770000, and a document linked
 * by that number goes to another order. Node.js 22 and later give a reviver each number's source text and write
 * raw JSON text (`JSON.rawJSON`); TypeScript's lib does not describe either yet, hence the one typed view below.
 */

/** `JSON` with source text access in the reviver and `rawJSON` (ECMAScript proposal-json-parse-with-source). */
interface JsonWithSource {
  parse(
    text: string,
    reviver: (key: string, value: unknown, context?: { readonly source?: string }) => unknown,
  ): unknown;
  rawJSON(text: string): unknown;
}

const json = JSON as unknown as JsonWithSource;

/** Text in which some JSON number may not survive a double: see {@link parseJsonKeepingDigits}. */
const MAYBE_INEXACT_NUMBER = /\d[.eE]|\d{16}|-0/;

/**
 * Parses JSON text. A number whose value a double holds as written stays a number; any other number (an integer
 * beyond 2^53, but also `1.0` or `1e3`) becomes the string of exactly the text that was sent, so no digit is
 * ever changed. Throws `SyntaxError` like `JSON.parse`.
 */
export function parseJsonKeepingDigits(text: string): unknown {
  // Only a number with a fraction, an exponent, 16 or more digits, or `-0` can differ from its double; text with
  // none of those shapes anywhere (in strings too) parses the same without the reviver, which costs far more.
  if (!MAYBE_INEXACT_NUMBER.test(text)) return JSON.parse(text);
  return json.parse(text, (_key, value, context) => {
    const source = context?.source;
    if (typeof value !== 'number' || source === undefined) return value;
    const exact = String(value) === source && (Number.isSafeInteger(value) || !Number.isInteger(value));
    return exact ? value : source;
  });
}

/**
 * Whether `jsonImpl` (this runtime's `JSON`) can keep every digit: its reviver sees each number's source text and
 * it has `rawJSON`. Node.js before 22 has neither, and would round identifiers beyond 2^53 without a word.
 */
export function keepsJsonDigits(jsonImpl: unknown = JSON): boolean {
  const candidate = jsonImpl as Partial<JsonWithSource>;
  if (typeof candidate.rawJSON !== 'function' || typeof candidate.parse !== 'function') return false;
  return candidate.parse('1', (_key, value, context) => context?.source ?? value) === '1';
}

/** A value that `JSON.stringify` writes as `digits`, a bare JSON number, however many digits it has. */
export function jsonNumber(digits: string): unknown {
  if (!/^-?(0|[1-9]\d*)$/.test(digits)) throw new TypeError(`not a JSON integer: ${digits}`);
  return json.rawJSON(digits);
}
