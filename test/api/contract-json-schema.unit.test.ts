/**
 * The committed JSON Schemas (`schemas/*.json`) are what `npm run contract:json-schema` writes from the
 * contract today: a contract change without regenerated schemas fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractJsonSchemas } from '../../tools/contract/json-schema';

const SCHEMAS_DIR = join(__dirname, '../../schemas');

describe('the exported JSON Schemas', () => {
  const generated = contractJsonSchemas();

  it('are committed for every exported schema, and no others', () => {
    const committed = readdirSync(SCHEMAS_DIR)
      .filter((file) => file.endsWith('.json'))
      .map((file) => file.slice(0, -5))
      .sort();
    expect(committed).toEqual(Object.keys(generated).sort());
  });

  it.each(Object.keys(generated))(
    '%s.json matches the contract (run npm run contract:json-schema)',
    (name) => {
      const committed: unknown = JSON.parse(readFileSync(join(SCHEMAS_DIR, `${name}.json`), 'utf8'));
      expect(committed).toEqual(generated[name]);
    },
  );
});
