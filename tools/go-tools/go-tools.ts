/**
 * The Go programs the production-shaped stack and its checks run (Temporal server and its SQL tool, the Web UI
 * server, an OIDC provider, S3-compatible storage, promtool, the `docker compose` CLI plugin), each pinned to
 * one module version and built once with `go install` into the git-ignored `.tools/go/<name>@<version>/`
 * folder. A second call finds the binary and builds nothing. `GOTOOLCHAIN=auto` lets Go fetch the toolchain a
 * module asks for from the module proxy.
 */
import { execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

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
  /** Go build tags (`go install -tags …`). @default none */
  readonly buildTags?: readonly string[];
  /** `-ldflags` of the build, e.g. the version a program reports. @default none */
  readonly ldflags?: string;
  /**
   * The module holding the package, when `go install <package>@<version>` refuses it (a go.mod with `exclude`
   * or `replace` directives): the module's source is then fetched from the proxy (`go mod download`) and the
   * package built inside it with `go build`, as its own main module. @default built with `go install`
   */
  readonly module?: string;
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
    // Without service discovery: checking and testing rules needs none, and one of its modules (nomad) is
    // not on the module proxy at the version this release pins.
    buildTags: ['remove_all_sd'],
  },
  versitygw: {
    name: 'versitygw',
    binary: 'versitygw',
    packagePath: 'github.com/versity/versitygw/cmd/versitygw',
    version: 'v1.8.0',
  },
  // `docker compose` (v2, the command users type), as a Docker CLI plugin: the Debian docker.io package has
  // none. Its go.mod excludes a module version, so it is built inside its module.
  dockerCompose: {
    name: 'docker-compose',
    binary: 'docker-compose',
    packagePath: 'github.com/docker/compose/v2/cmd',
    module: 'github.com/docker/compose/v2',
    version: 'v2.40.3',
    ldflags: '-s -w -X github.com/docker/compose/v2/internal.Version=v2.40.3',
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
  log(`building ${tool.packagePath}@${tool.version} with go (once; minutes on 2 cores) ...`);
  if (tool.module === undefined) await runGoInstall(tool, building);
  else await buildInModule({ ...tool, module: tool.module }, building);
  mkdirSync(folder, { recursive: true });
  renameSync(join(building, tool.binary), target);
  rmSync(building, { recursive: true, force: true });
  log(`built ${tool.binary}@${tool.version} in ${Math.round((Date.now() - started) / 1000)} s`);
  return target;
}

const GO_ENV = (): NodeJS.ProcessEnv => ({
  ...process.env,
  GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? 'auto',
  CGO_ENABLED: '0',
});

function buildFlags(tool: GoTool): string[] {
  return [
    ...(tool.buildTags?.length ? ['-tags', tool.buildTags.join(',')] : []),
    ...(tool.ldflags ? ['-ldflags', tool.ldflags] : []),
  ];
}

function runGo(args: readonly string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('go', [...args], { ...options, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', (error) =>
      reject(new Error(`cannot run go (is Go installed and on PATH?): ${error.message}`, { cause: error })),
    );
    child.once('exit', (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`go ${args.join(' ')} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

function runGoInstall(tool: GoTool, gobin: string): Promise<void> {
  return runGo(['install', ...buildFlags(tool), `${tool.packagePath}@${tool.version}`], {
    env: { ...GO_ENV(), GOBIN: gobin },
  });
}

/** The (read-only) folder of a module's source in Go's module cache, downloaded from the proxy if needed. */
export async function goModuleDir(module: string, version: string): Promise<string> {
  const { stdout } = await promisify(execFile)('go', ['mod', 'download', '-json', `${module}@${version}`], {
    env: GO_ENV(),
    cwd: tmpdir(),
    maxBuffer: 1024 * 1024,
  });
  return (JSON.parse(stdout) as { Dir: string }).Dir;
}

/** `go mod download` of the module, then `go build` of the package in a writable copy of its source. */
async function buildInModule(tool: GoTool & { readonly module: string }, outDir: string): Promise<void> {
  const moduleDir = await goModuleDir(tool.module, tool.version);
  const source = mkdtempSync(join(tmpdir(), `${tool.name}-src-`));
  try {
    cpSync(moduleDir, source, { recursive: true });
    // The module cache is read-only, and so is the copy: make it removable again.
    for (const entry of readdirSync(source, { recursive: true, withFileTypes: true })) {
      chmodSync(join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
    }
    const packageDir = `./${relative(tool.module, tool.packagePath)}`;
    await runGo(['build', '-trimpath', ...buildFlags(tool), '-o', join(outDir, tool.binary), packageDir], {
      env: GO_ENV(),
      cwd: source,
    });
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
}
