/**
 * The platform settings docs/platform-client.md gives for a sandbox profile (the `sh` block after
 * `<!-- sandbox-profile: <name> -->`), so tests configure workers with exactly what the docs tell operators.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DOCS = join(__dirname, '..', '..', 'docs', 'platform-client.md');

/** The variables the docs set for `profile`, or `undefined` when they give none (the defaults fit it). */
export function documentedPlatformSettings(profile: string): Record<string, string> | undefined {
  const docs = readFileSync(DOCS, 'utf8');
  const marker = `<!-- sandbox-profile: ${profile} -->`;
  const at = docs.indexOf(marker);
  if (at < 0) return undefined;
  const block = /```sh\n([\s\S]*?)```/.exec(docs.slice(at + marker.length))?.[1] ?? '';
  const settings: Record<string, string> = {};
  for (const line of block.split('\n')) {
    // NAME=value, or NAME='value' as a shell and docker compose's .env read it (the quotes are not the value's).
    const match = /^([A-Z][A-Z0-9_]*)=(?:'([^']*)'|(.*))$/.exec(line.trim());
    if (match?.[1] !== undefined) settings[match[1]] = match[2] ?? match[3] ?? '';
  }
  return settings;
}
