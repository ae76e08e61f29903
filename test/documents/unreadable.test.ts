/**
 * Permission errors are retryable, never final. Permission bits deny nothing to root, so as root the check runs
 * in a child process whose capability bounding set lacks CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (`setpriv`):
 * still uid 0, so it can read the sources, but bound by mode bits like anyone else. Without `setpriv` as root the
 * test fails rather than passing without proof.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { ChildOutcome } from './open-in-child';

const run = promisify(execFile);
const CHILD_SCRIPT = join(__dirname, 'open-in-child.ts');
const REPO_ROOT = resolve(__dirname, '..', '..');
const SETPRIV = '/usr/bin/setpriv';
const DROPPED_CAPS = '-dac_override,-dac_read_search';

/** The command that runs the child without the power to ignore permission bits. */
function unprivileged(args: readonly string[]): { readonly file: string; readonly args: readonly string[] } {
  const node = [process.execPath, '--import', 'tsx', CHILD_SCRIPT, ...args];
  if (process.getuid?.() !== 0) return { file: node[0]!, args: node.slice(1) };
  if (!existsSync(SETPRIV)) {
    throw new Error(
      `running as root and ${SETPRIV} is missing: cannot make a permission error happen (run as non-root)`,
    );
  }
  return { file: SETPRIV, args: [`--bounding-set=${DROPPED_CAPS}`, `--inh-caps=${DROPPED_CAPS}`, ...node] };
}

async function inChild(...args: string[]): Promise<ChildOutcome> {
  const command = unprivileged(args);
  const { stdout } = await run(command.file, [...command.args], { cwd: REPO_ROOT });
  return JSON.parse(stdout) as ChildOutcome;
}

describe('permission errors (retryable)', () => {
  let scratch: string;
  let rootPath: string;
  let lockedRoot: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'documents-unreadable-'));
    rootPath = join(scratch, 'root');
    mkdirSync(rootPath);
    writeFileSync(join(rootPath, 'readable.pdf'), 'readable');
    writeFileSync(join(rootPath, 'locked.pdf'), 'locked');
    chmodSync(join(rootPath, 'locked.pdf'), 0o000);
    lockedRoot = join(scratch, 'locked-root');
    mkdirSync(lockedRoot);
    writeFileSync(join(lockedRoot, 'form.pdf'), 'form');
    chmodSync(lockedRoot, 0o000);
  });

  afterAll(() => {
    chmodSync(lockedRoot, 0o700);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('the child can read what it should (so a refusal below is the permission, not the child)', async () => {
    await expect(inChild('open', rootPath, 'readable.pdf')).resolves.toEqual({ ok: true, sizeBytes: 8 });
    await expect(inChild('assert-root', rootPath)).resolves.toEqual({ ok: true });
  });

  it('an unreadable file is DOCUMENT_UNAVAILABLE (EACCES), not INVALID_DOCUMENT', async () => {
    await expect(inChild('open', rootPath, 'locked.pdf')).resolves.toEqual({
      ok: false,
      name: 'DocumentUnavailableError',
      code: 'DOCUMENT_UNAVAILABLE',
      fsCode: 'EACCES',
      message: 'locked.pdf: cannot open the file right now (EACCES); will retry',
    });
  });

  it('an unreadable root fails its documents as retryable and stops the worker at start-up', async () => {
    await expect(inChild('open', lockedRoot, 'form.pdf')).resolves.toMatchObject({
      ok: false,
      code: 'DOCUMENT_UNAVAILABLE',
      fsCode: 'EACCES',
    });
    await expect(inChild('assert-root', lockedRoot)).resolves.toEqual({
      ok: false,
      name: 'DocumentUnavailableError',
      code: 'DOCUMENT_UNAVAILABLE',
      fsCode: 'EACCES',
      message: `DOCUMENTS_ROOT ${lockedRoot} cannot be read by this process (check its owner and mode) (EACCES)`,
    });
  });
});
