/**
 * The committed types of the HTTP API (`src/client/http-api-types.ts`, read by the client package's typed HTTP
 * client) are what `npm run contract:openapi-types` generates from the API's OpenAPI document today: an API
 * change without regenerated types fails here.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '../..');

describe('the HTTP API types', () => {
  it('match the OpenAPI document (run npm run contract:openapi-types)', async () => {
    // Through tsx: the generator (openapi-typescript) is an ES module.
    const generated = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'tools/contract/openapi-types.ts', '--stdout'],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(generated.stdout).toBe(readFileSync(join(ROOT, 'src/client/http-api-types.ts'), 'utf8'));
  });
});
