/**
 * The Go programs the production-shaped stack and its checks run (Temporal server and its SQL tool, the Web UI
 * server, an OIDC provider, S3-compatible storage, promtool), each pinned to one module version and built once
 * with `go install` into the git-ignored `.tools/go/<name>@<version>/` folder. A second call finds the binary
 * and builds nothing. `GOTOOLCHAIN=auto` lets Go fetch the toolchain a module asks for from the module proxy.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** One pinned Go program. */
export interface GoTool {
  /** The folder name under `.tools/go/` (two tools may both build a binary called `server`). */
  readonly name: string;
  /** The binary's name, as `go install` writes it (the package path's last element). */
  readonly binary: string;
  /** The package to install, without version. */
  readonly packagePath: string;
  /** The module version to install. */
  readonly version: string;
}

/** Every Go program the project uses, pinned. Change a version here only. */
export const GO_TOOLS = {
  temporalServer: {
    name: 'temporal-server',
    binary: 'server',
    packagePath: 'go.temporal.io/server/cmd/server',
    version: 'v1.32.2',
  },
  temporalSql: {
    name: 'temporal-sql-tool',
    binary: 'sql',
    packagePath: 'go.temporal.io/server/cmd/tools/sql',
    version: 'v1.32.2',
  },
  temporalUi: {
    name: 'temporal-ui-server',
    binary: 'server',
    packagePath: 'github.com/temporalio/ui-server/v2/cmd/server',
    // The version of the compose stack's temporalio/ui image (v2.58 needs a markdown module the proxy lacks).
    version: 'v2.54.1',
  },
  promtool: {
    name: 'promtool',
    binary: 'promtool',
    packagePath: 'github.com/prometheus/prometheus/cmd/promtool',
    version: 'v0.316.0',
  },
  versitygw: {
    name: 'versitygw',
    binary: 'versitygw',
    packagePath: 'github.com/versity/versitygw/cmd/versitygw',
    version: 'v1.8.0',
  },
} as const satisfies Record<string, GoTool>;

/** Options of {@link ensureGoTool}. */
export interface EnsureGoToolOptions {
  /** The folder holding `.tools/`. @default the repository root */
  readonly projectRoot?: string;
  /** Progress lines ("building …"); the build's own output goes to stderr. @default console.error */
  readonly log?: (message: string) => void;
}

const REPOSITORY_ROOT = resolve(__dirname, '..', '..');

/** Where {@link ensureGoTool} keeps a tool's binary. */
export function goToolPath(tool: GoTool, projectRoot: string = REPOSITORY_ROOT): string {
  return join(projectRoot, '.tools', 'go', `${tool.name}@${tool.version}`, tool.binary);
}

/**
 * Returns the path of the tool's binary, building it first when it is not there yet. The build goes to a
 * temporary folder and is moved into place only when it succeeded, so an interrupted build is never mistaken
 * for a finished one.
 */
export async function ensureGoTool(tool: GoTool, options: EnsureGoToolOptions = {}): Promise<string> {
  const projectRoot = options.projectRoot ?? REPOSITORY_ROOT;
  const log = options.log ?? ((message: string) => console.error(message));
  const target = goToolPath(tool, projectRoot);
  if (existsSync(target)) return target;

  const folder = join(target, '..');
  const building = `${folder}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  const started = Date.now();
  log(`building ${tool.packagePath}@${tool.version} with go install (once; minutes on 2 cores) ...`);
  await runGoInstall(tool, building);
  mkdirSync(folder, { recursive: true });
  renameSync(join(building, tool.binary), target);
  rmSync(building, { recursive: true, force: true });
  log(`built ${tool.binary}@${tool.version} in ${Math.round((Date.now() - started) / 1000)} s`);
  return target;
}

function runGoInstall(tool: GoTool, gobin: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('go', ['install', `${tool.packagePath}@${tool.version}`], {
      env: { ...process.env, GOBIN: gobin, GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? 'auto', CGO_ENABLED: '0' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', (error) =>
      reject(new Error(`cannot run go (is Go installed and on PATH?): ${error.message}`, { cause: error })),
    );
    child.once('exit', (code, signal) => {
      if (code === 0) resolvePromise();
      else
        reject(
          new Error(`go install ${tool.packagePath}@${tool.version} failed (${signal ?? `exit ${code}`})`),
        );
    });
  });
}
