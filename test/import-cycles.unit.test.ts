/**
 * No module of src/ imports itself through others, type-only imports included: eslint's `import-x/no-cycle` does
 * not follow `import type`, and a cycle of types still ties two modules together (the contract's schemas and the
 * workflow's messages, say: the messages take their types from the schemas, never the other way round).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

const SRC = resolve(__dirname, '../src');

/** The src/ modules a module imports or re-exports, by value or by type. */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) => {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined;
    if (specifier === undefined || !specifier.startsWith('.')) return [];
    const base = resolve(dirname(file), specifier).replace(/\.(ts|js)$/, '');
    return [`${base}.ts`, `${base}/index.ts`].filter((candidate) => existsSync(candidate)).slice(0, 1);
  });
}

/** Every cycle found by a depth-first walk from each module, as the chain of modules. */
function cycles(files: readonly string[]): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const walk = (file: string, path: string[]): void => {
    const at = path.indexOf(file);
    if (at >= 0) {
      found.push([...path.slice(at), file].map((module) => relative(SRC, module)));
      return;
    }
    if (done.has(file)) return;
    for (const next of importsOf(file)) walk(next, [...path, file]);
    done.add(file);
  };
  for (const file of files) walk(file, []);
  return found;
}

describe('src/', () => {
  it('has no import cycle, type-only imports included', () => {
    const files = ts.sys.readDirectory(SRC, ['.ts']).filter((file) => !file.endsWith('.d.ts'));
    expect(files.length).toBeGreaterThan(100);
    expect(cycles(files)).toEqual([]);
  });
});
