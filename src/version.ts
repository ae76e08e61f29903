/** The service's version, from package.json (which sits one folder above `src/`, and above `dist/`). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** package.json's `version`, or `0.0.0` when it cannot be read: part of the default build id and the API's. */
export function packageVersion(): string {
  try {
    const parsed = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof parsed.version === 'string' ? parsed.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
