/**
 * What a workflow execution evaluates: the bundle evaluates every module workflow code imports once per
 * execution, so the modules an order imports eagerly must stay cheap. The contract's zod schemas and
 * OpenTelemetry are loaded only where they are used (`contractSchemas()`, a traced workflow).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
import { serviceBundleOptions } from '../../src/workflow-bundle';

const SRC = resolve(__dirname, '../../src');

/** The value imports and re-exports of a module (type-only ones and `require()` calls are not followed). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      const named = clause?.namedBindings;
      const onlyTypes =
        clause !== undefined &&
        clause.name === undefined &&
        named !== undefined &&
        ts.isNamedImports(named) &&
        named.elements.every((element) => element.isTypeOnly);
      if (!onlyTypes && ts.isStringLiteral(statement.moduleSpecifier)) {
        specifiers.push(statement.moduleSpecifier.text);
      }
    } else if (
      ts.isExportDeclaration(statement) &&
      !statement.isTypeOnly &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers;
}

/** Our own modules (under src/) an entry module imports eagerly, directly or not, and the packages. */
function eagerGraph(entries: readonly string[]): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const pending = entries.map((entry) => resolveSource(entry));
  while (pending.length > 0) {
    const file = pending.pop();
    if (file === undefined || modules.has(file)) continue;
    modules.add(file);
    for (const specifier of valueImports(file)) {
      if (specifier.startsWith('.')) pending.push(resolveSource(resolve(dirname(file), specifier)));
      else packages.add(specifier);
    }
  }
  return { modules, packages };
}

function resolveSource(path: string): string {
  const withoutExtension = path.replace(/\.(ts|js)$/, '');
  for (const candidate of [`${withoutExtension}.ts`, `${withoutExtension}/index.ts`]) {
    try {
      readFileSync(candidate);
      return candidate;
    } catch {
      // try the next form
    }
  }
  throw new Error(`cannot resolve ${path}`);
}

describe('modules a workflow execution evaluates', () => {
  const options = serviceBundleOptions();
  const { modules, packages } = eagerGraph([
    options.workflowsPath,
    ...(options.workflowInterceptorModules ?? []),
  ]);

  it('reach the workflows and the zod-free part of the contract', () => {
    expect(modules).toContain(resolve(SRC, 'workflows/badge-order.ts'));
    expect(modules).toContain(resolve(SRC, 'workflow-contract.ts'));
  });

  it('do not build the contract’s zod schemas or load OpenTelemetry', () => {
    expect(modules).not.toContain(resolve(SRC, 'contract.ts'));
    expect([...packages].filter((name) => name === 'zod' || name.includes('opentelemetry'))).toEqual([]);
  });
});
