/**
 * Every regular expression under src/ runs in time linear in its input, proven rather than timed: recheck's
 * automaton checker (sound and complete for expressions without lookaround or backreferences) analyses each
 * literal as V8's backtracking engine runs it — every start position, every way of matching — and answers `safe`
 * only when no input makes the work grow faster than its length. Text an outsider controls reaches many of them:
 * the URL and Host of every request (logged before anyone is authenticated), bodies and headers of the HTTP API
 * and the codec server, the platform's answers, a webhook receiver's. A pattern recheck cannot prove linear fails
 * here, unless it is listed in {@link CONFIGURATION_ONLY} with the trusted value it is applied to.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { check } from 'recheck';
import ts from 'typescript';

const SRC = join(__dirname, '..', 'src');

/**
 * Patterns applied only to what an operator configured, never to input from outside, each with its value:
 * quadratic on a string of thousands of slashes that an operator would have to write into the configuration.
 */
const CONFIGURATION_ONLY: readonly { file: string; pattern: string; appliedTo: string }[] = [
  { file: 'config.ts', pattern: '/\\/+$/', appliedTo: 'OTEL_EXPORTER_OTLP_ENDPOINT' },
  { file: 'documents/s3-store.ts', pattern: '/\\/+$/', appliedTo: 'DOCUMENT_STORE_S3_PREFIX' },
  { file: 'platform/client.ts', pattern: '/\\/+$/', appliedTo: 'BADGE_BASE_URL' },
  { file: 'platform/stocks.ts', pattern: '/\\/+$/', appliedTo: 'the path of BADGE_BASE_URL' },
  { file: 'platform/token-cache.ts', pattern: '/\\/+$/', appliedTo: 'BADGE_BASE_URL' },
  { file: 'sandbox/control-client.ts', pattern: '/\\/+$/', appliedTo: 'the sandbox URL a tool is given' },
];

interface Found {
  readonly file: string;
  readonly line: number;
  readonly pattern: string;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every regular expression literal under src/, and every `RegExp(…)` built at run time (none may be). */
function regularExpressions(): { literals: Found[]; constructed: Found[] } {
  const literals: Found[] = [];
  const constructed: Found[] = [];
  for (const path of sourceFiles(SRC)) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const file = relative(SRC, path);
    const at = (node: ts.Node): Found => ({
      file,
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      pattern: node.getText(source),
    });
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) literals.push(at(node));
      if (
        (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === 'RegExp'
      ) {
        constructed.push(at(node));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { literals, constructed };
}

const { literals, constructed } = regularExpressions();
const isConfigurationOnly = (found: Found): boolean =>
  CONFIGURATION_ONLY.some(({ file, pattern }) => file === found.file && pattern === found.pattern);

describe('regular expressions under src/', () => {
  it('finds the patterns applied to untrusted input (the scan sees them)', () => {
    const patterns = literals.map(({ file, pattern }) => `${file} ${pattern}`);
    expect(patterns).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^logging\.ts \/\\b\(\(\?:Bearer\|Basic\)/),
        expect.stringMatching(/^platform\/http\.ts \/\\beyJ/),
        expect.stringMatching(/^codec\/codec-server\.ts \/\^Bearer/),
        expect.stringMatching(/^api\/auth\.ts \/\^Bearer/),
      ]),
    );
    expect(literals.length).toBeGreaterThan(50);
  });

  it('builds none at run time (a pattern made from text could not be checked here)', () => {
    expect(constructed).toEqual([]);
  });

  it('lists only patterns that exist as configuration-only exceptions', () => {
    for (const { file, pattern } of CONFIGURATION_ONLY) {
      expect(literals).toContainEqual(expect.objectContaining({ file, pattern }));
    }
  });

  it('runs each in linear time whatever the input (recheck’s automaton proof), configuration-only ones aside', async () => {
    const unproven: string[] = [];
    const distinct = new Map<string, Found>();
    for (const found of literals) if (!isConfigurationOnly(found)) distinct.set(found.pattern, found);
    for (const [text, found] of distinct) {
      const end = text.lastIndexOf('/');
      const result = await check(text.slice(1, end), text.slice(end + 1), {
        checker: 'automaton',
        timeout: 60_000,
      });
      if (result.status !== 'safe') {
        const why =
          result.status === 'vulnerable'
            ? `${result.complexity.type}${result.complexity.type === 'polynomial' ? ` (degree ${result.complexity.degree})` : ''}, e.g. ${result.attack.pattern}`
            : `${result.status}: ${result.error.kind}`;
        unproven.push(`${found.file}:${found.line} ${text}: ${why}`);
      }
    }
    expect(unproven).toEqual([]);
  });
});
