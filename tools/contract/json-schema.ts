/**
 * `npm run contract:json-schema`: writes the contract's JSON Schemas to `schemas/*.json` (formatted as the
 * repository's prettier formats JSON). Commit the result; `test/api/contract-json-schema.unit.test.ts` fails
 * when the committed files differ from what this writes.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { contractJsonSchemas } from '../../src/api/contract-schemas';

/** The folder the schemas are written to. */
export const SCHEMAS_DIR = resolve(__dirname, '../../schemas');

async function main(): Promise<void> {
  mkdirSync(SCHEMAS_DIR, { recursive: true });
  const schemas = contractJsonSchemas();
  // A schema that is no longer exported must not linger.
  for (const file of readdirSync(SCHEMAS_DIR)) {
    if (file.endsWith('.json') && !(file.slice(0, -5) in schemas)) rmSync(join(SCHEMAS_DIR, file));
  }
  for (const [name, schema] of Object.entries(schemas)) {
    const path = join(SCHEMAS_DIR, `${name}.json`);
    const options = (await resolveConfig(path)) ?? {};
    writeFileSync(path, await format(JSON.stringify(schema), { ...options, filepath: path }));
    console.log(`wrote ${path}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
