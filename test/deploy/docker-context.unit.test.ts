/**
 * The image's build context is only what ships: `.dockerignore` ignores everything and lets in exactly the
 * sources, the package manifests, the TypeScript configs and the bundle builder the image build runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

describe('.dockerignore', () => {
  const patterns = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

  it('ignores everything first, then lets in only what ships', () => {
    expect(patterns[0]).toBe('*');
    expect(patterns.slice(1).sort()).toEqual(
      [
        '!package-lock.json',
        '!package.json',
        '!packages/client/package.json',
        '!src/',
        '!tools/build-workflow-bundle.ts',
        '!tsconfig.build.json',
        '!tsconfig.json',
      ].sort(),
    );
  });

  it('lets in everything the Dockerfile copies from the context', () => {
    const copied = [...readFileSync(join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^COPY (?!--from)(.+) \S+$/gm)]
      .flatMap((match) => (match[1] ?? '').split(/\s+/))
      .map((source) => source.replace(/\/$/, ''));
    const allowed = patterns.slice(1).map((pattern) => pattern.slice(1).replace(/\/$/, ''));
    expect(copied.filter((source) => !allowed.includes(source))).toEqual([]);
    expect(copied).toContain('tools/build-workflow-bundle.ts');
  });
});
