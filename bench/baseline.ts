/**
 * The baseline of a comparison (`--baseline <git ref>`): the tree of another commit, checked out into the run's
 * scratch folder, with its own prebuilt workflow bundle (built by that tree's `tools/build-workflow-bundle.ts`,
 * so with that tree's bundler options) and its own `src/main/worker.ts`. The bench runs its orders interleaved
 * with this tree's, on the same server and sandbox, so a change of background load hits both alike. Nothing in
 * the service knows about it.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import type { BadgeOrdersClient, BadgeOrdersClientOptions } from '../src/client/badge-orders-client';
import { PROJECT_ROOT, withParentDeathSignal } from '../tools/dev/child-process';

/** A prepared baseline tree. */
export interface Baseline {
  /** The ref as given. */
  readonly ref: string;
  /** How reports name it: the ref and its short commit. */
  readonly label: string;
  /** The commit it names. */
  readonly commit: string;
  /** The baseline's worker entry (absolute). */
  readonly workerScript: string;
  /** The baseline's prebuilt workflow bundle (absolute). */
  readonly bundlePath: string;
  /** The baseline's own `BadgeOrdersClient` (its starter path: validation, the calls before the start). */
  readonly orders: (client: Client, taskQueue: string) => Pick<BadgeOrdersClient, 'startOrder' | 'getHandle'>;
}

/** Resolves `ref` to a commit of this repository; throws when it names none. */
function resolveCommit(ref: string): string {
  return execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  }).trim();
}

/**
 * Writes the tree of `ref` to `<scratchDir>/baseline-<commit>` (git archive, no work tree of the repository is
 * touched), links this checkout's node_modules into it and builds its workflow bundle.
 */
export async function prepareBaseline(
  ref: string,
  scratchDir: string,
  log: (message: string) => void,
): Promise<Baseline> {
  const commit = resolveCommit(ref);
  const dir = join(scratchDir, `baseline-${commit.slice(0, 12)}`);
  mkdirSync(dir, { recursive: true });
  log(`baseline: writing the tree of ${ref} (${commit.slice(0, 12)}) and building its workflow bundle`);
  const archive = execFileSync('git', ['archive', '--format=tar', commit], {
    cwd: PROJECT_ROOT,
    maxBuffer: 512 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  // The same installed packages: a baseline differs in our code only.
  symlinkSync(realpathSync(join(PROJECT_ROOT, 'node_modules')), join(dir, 'node_modules'));
  const bundlePath = join(dir, 'baseline-bundle.js');
  const [command, args] = withParentDeathSignal(process.execPath, [
    '--import',
    'tsx',
    join(dir, 'tools', 'build-workflow-bundle.ts'),
    '--out',
    bundlePath,
  ]);
  try {
    await promisify(execFile)(command, args, { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const output = (error as { stdout?: string; stderr?: string }).stderr ?? '';
    throw new Error(`building the baseline's workflow bundle failed:\n${output}`, { cause: error });
  }
  // The bench runs under tsx, so the baseline's TypeScript client loads as this tree's does.
  const clientModule = (await import(
    pathToFileURL(join(dir, 'src', 'client', 'badge-orders-client.ts')).href
  )) as { BadgeOrdersClient: new (options: BadgeOrdersClientOptions) => BadgeOrdersClient };
  const BaselineClient = clientModule.BadgeOrdersClient;
  return {
    ref,
    label: ref.startsWith(commit.slice(0, 7)) ? commit.slice(0, 7) : `${ref} (${commit.slice(0, 7)})`,
    commit,
    workerScript: join(dir, 'src', 'main', 'worker.ts'),
    bundlePath,
    orders: (client, taskQueue) => new BaselineClient({ client, taskQueue }),
  };
}
