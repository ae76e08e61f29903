/** What the service reads from its package.json (which sits one folder above `src/`, and above `dist/`). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function packageJson(): { readonly version?: unknown; readonly engines?: { readonly node?: unknown } } {
  try {
    return JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as object;
  } catch {
    return {};
  }
}

/** package.json's `version`, or `0.0.0` when it cannot be read: part of the default build id and the API's. */
export function packageVersion(): string {
  const { version } = packageJson();
  return typeof version === 'string' ? version : '0.0.0';
}

/** The Node.js versions package.json's `engines` asks for, as written there (`>=22.12`), or null. */
export function requiredNodeVersions(): string | null {
  const node = packageJson().engines?.node;
  return typeof node === 'string' ? node : null;
}
