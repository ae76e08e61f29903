/**
 * The configuration is declared once (src/config.ts, src/api/config.ts): docs/configuration.md is generated from
 * the declarations, and `.env.example` and the docs name no variable that nothing reads (issue 30).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import '../../src/api/config';
import { VARIABLES } from '../../src/config';

const ROOT = resolve(__dirname, '../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** Every variable a process reads, with its `_FILE` form for secrets. */
const DECLARED = new Set(VARIABLES.flatMap((v) => (v.secret ? [v.name, `${v.name}_FILE`] : [v.name])));

/** The variables the compose files interpolate (`${NAME…}`): compose's own settings, not a process's. */
const COMPOSE_VARIABLES = new Set(
  ['docker-compose.yml', 'deploy/compose.oidc.yml', 'deploy/compose.secrets.yml'].flatMap((file) =>
    [...read(file).matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((match) => match[1] ?? ''),
  ),
);

describe('docs/configuration.md', () => {
  it('is what npm run config:docs writes from the declarations', () => {
    // Throws with the tool's message when the file differs (prettier formats it, in a process of its own).
    execFileSync(process.execPath, ['--import', 'tsx', 'tools/config/reference.ts', '--check'], {
      cwd: ROOT,
    });
  });

  it('declares each variable once, with a meaning and a process', () => {
    const names = VARIABLES.map((v) => v.name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    expect(VARIABLES.filter((v) => v.meaning === '' || v.processes.length === 0)).toEqual([]);
  });
});

describe('.env.example', () => {
  const text = read('.env.example');
  const assigned = [...text.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1] ?? '');

  it('sets only variables a process or compose reads', () => {
    expect(assigned.length).toBeGreaterThan(20);
    expect(assigned.filter((name) => !DECLARED.has(name) && !COMPOSE_VARIABLES.has(name))).toEqual([]);
  });

  it('names every variable a deployment sets (secrets come as files: deploy/compose.secrets.yml)', () => {
    const required = VARIABLES.filter((v) => v.required === true && v.secret !== true).map((v) => v.name);
    expect(required.length).toBeGreaterThan(3);
    expect(required.filter((name) => !assigned.includes(name))).toEqual([]);
  });
});

describe('docs/*.md', () => {
  /** Names of our families that a doc may mention without a process reading them, and why. */
  const NOT_READ: Readonly<Record<string, string>> = {
    DOCUMENT_UNAVAILABLE: 'a failure code (src/failure-types.ts)',
    WEBHOOK_DESTINATION_REFUSED: 'a failure code',
    WEBHOOK_REFUSED: 'a failure code',
    WEBHOOK_UNDELIVERED: 'a failure code',
    WEBHOOK_NOT_CONFIGURED: 'a failure code',
    MAX_STOCK_PAGES: 'a constant of the platform client',
    BADGE_ONLY_USER: 'a sandbox user',
    DOCUMENT_ONLY_USER: 'a sandbox user',
  };
  const OURS =
    /\b((?:BADGE|API|CODEC|DOCUMENT|DOCUMENTS|WEBHOOK|WORKER|PAYLOAD|REPLAY|METRICS|STATUS|OTEL|LOG|MAX|ENSURE|WORKFLOW)_[A-Z0-9_]*[A-Z0-9])\b/g;

  it.each(readdirSync(join(ROOT, 'docs')).filter((file) => file.endsWith('.md')))(
    'docs/%s names no variable that no process or compose reads',
    (file) => {
      const named = [...new Set([...read(`docs/${file}`).matchAll(OURS)].map((match) => match[1] ?? ''))];
      expect(
        named.filter((name) => !DECLARED.has(name) && !COMPOSE_VARIABLES.has(name) && !(name in NOT_READ)),
      ).toEqual([]);
    },
  );
});
