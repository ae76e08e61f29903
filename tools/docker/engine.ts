/**
 * A Docker engine of the project's own: Debian's `dockerd` (package docker.io) started on demand, with its
 * own data root, exec root, pid file and socket, never the machine's defaults, and stopped by its pid. The data
 * root lives in the git-ignored `.tools/docker/data`, so the images it holds (the stand-ins of `npm run images`,
 * the project's image and their build cache) are built once; the exec root and the socket live in a scratch
 * folder that is removed on stop. The `docker` CLI talks to it through `DOCKER_HOST`, with `DOCKER_CONFIG`
 * pointing at `.tools/docker/config`, whose `cli-plugins/` holds the pinned `docker compose` plugin.
 *
 * It starts clean: containers, networks and volumes an interrupted run left behind are removed (images stay:
 * they are the cache). It dies with the process that started it (parent-death signal SIGTERM: dockerd then
 * stops its containers itself).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureGoTool, GO_TOOLS } from '../go-tools/go-tools';
import { isProcessAlive } from '../dev/child-process';
import { waitUntil } from '../dev/poll';
import { PROJECT_ROOT } from '../dev/temporal-cli';

const DOCKERD = ['/usr/sbin/dockerd', '/usr/bin/dockerd'].find((path) => existsSync(path));
const SETPRIV = '/usr/bin/setpriv';

/** Where the engine keeps what outlives a run: images and build cache (`data`), the CLI's config. */
const DOCKER_TOOLS_DIR = join(PROJECT_ROOT, '.tools', 'docker');

/** A running engine of ours. */
export interface DockerEngine {
  /** The environment the `docker` CLI needs to talk to it (`DOCKER_HOST`, `DOCKER_CONFIG`, `PATH`). */
  readonly env: Readonly<Record<string, string>>;
  /** Runs `docker <args>` against it; resolves with stdout, rejects with stderr's end. */
  docker(args: readonly string[], options?: DockerRunOptions): Promise<string>;
  /** The address of the default bridge's gateway: the host, as every container reaches it. */
  hostAddress(): Promise<string>;
  /** SIGTERM to dockerd (it stops its containers), waits for its exit, removes the scratch folder. */
  stop(): Promise<void>;
}

/** Options of {@link DockerEngine.docker}. */
export interface DockerRunOptions {
  /** Extra environment (on top of the engine's). */
  readonly env?: Readonly<Record<string, string>>;
  /** The working folder. @default the project root */
  readonly cwd?: string;
  /** Bytes written to the command's stdin. */
  readonly input?: string;
  /** Copy the command's output to this process's stderr as it comes (long builds). @default false */
  readonly stream?: boolean;
  /** @default 30 minutes */
  readonly timeoutMs?: number;
}

/** Options of {@link startDockerEngine}. */
export interface StartDockerEngineOptions {
  /** Progress lines. @default console.error */
  readonly log?: (message: string) => void;
}

/** A process, by pid, whose command line names `dockerd` and our data root: one of ours left running. */
function leftoverDockerd(pidFile: string, dataRoot: string): number | undefined {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return commandLine.some((part) => part.endsWith('dockerd')) && commandLine.includes(dataRoot)
      ? pid
      : undefined;
  } catch {
    return undefined;
  }
}

function ping(socket: string): Promise<boolean> {
  return new Promise((resolvePing) => {
    const call = request({ socketPath: socket, path: '/_ping', timeout: 2_000 }, (response) => {
      response.resume();
      resolvePing(response.statusCode === 200);
    });
    call.once('error', () => resolvePing(false));
    call.once('timeout', () => call.destroy());
    call.end();
  });
}

/** Runs `docker` with `env`; see {@link DockerEngine.docker}. */
function runDocker(
  env: Readonly<Record<string, string>>,
  args: readonly string[],
  options: DockerRunOptions = {},
): Promise<string> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('docker', [...args], {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: { ...env, ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 30 * 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (options.stream) process.stderr.write(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-64 * 1024);
      if (options.stream) process.stderr.write(chunk);
    });
    // A command that exits without reading all its input closes the pipe: its exit status tells the outcome.
    child.stdin?.once('error', () => undefined);
    child.stdin?.end(options.input);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolveRun(stdout);
      else
        reject(new Error(`docker ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${stderr.trim()}`));
    });
  });
}

/**
 * Starts the engine (and builds the `docker compose` plugin first if it is not there yet); resolves once it
 * answers. Needs root and Debian's docker.io (dockerd, containerd, runc) and iptables.
 */
export async function startDockerEngine(options: StartDockerEngineOptions = {}): Promise<DockerEngine> {
  const log = options.log ?? ((message: string) => console.error(message));
  if (DOCKERD === undefined) {
    throw new Error('dockerd is not installed: apt-get install docker.io (Debian), as .ci/run does');
  }
  const composePlugin = await ensureGoTool(GO_TOOLS.dockerCompose, { log });
  const dataRoot = join(DOCKER_TOOLS_DIR, 'data');
  const configDir = join(DOCKER_TOOLS_DIR, 'config');
  const pidFile = join(DOCKER_TOOLS_DIR, 'dockerd.pid');
  mkdirSync(dataRoot, { recursive: true });
  mkdirSync(join(configDir, 'cli-plugins'), { recursive: true });
  const pluginLink = join(configDir, 'cli-plugins', 'docker-compose');
  rmSync(pluginLink, { force: true });
  symlinkSync(composePlugin, pluginLink);

  const leftover = leftoverDockerd(pidFile, dataRoot);
  if (leftover !== undefined) {
    log(`stopping dockerd ${leftover} left running on ${dataRoot} by an earlier run`);
    process.kill(leftover, 'SIGTERM');
    await waitUntil(`dockerd ${leftover} to stop`, () => Promise.resolve(!isProcessAlive(leftover)), {
      timeoutMs: 60_000,
      intervalMs: 200,
    });
  }

  // Short: containerd's sockets live under the exec root, and a socket path has at most 107 bytes.
  const scratch = mkdtempSync(join(tmpdir(), 'badge-docker-'));
  const socket = join(scratch, 'docker.sock');
  const args = [
    '--data-root',
    dataRoot,
    '--exec-root',
    join(scratch, 'exec'),
    '--pidfile',
    pidFile,
    '--host',
    `unix://${socket}`,
    '--log-level',
    'warn',
  ];
  const [command, commandArgs] = existsSync(SETPRIV)
    ? [SETPRIV, ['--pdeathsig', 'SIGTERM', '--', DOCKERD, ...args]]
    : [DOCKERD, args];
  const started = Date.now();
  const daemon: ChildProcess = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-16 * 1024);
  };
  daemon.stdout?.on('data', keep);
  daemon.stderr?.on('data', keep);
  const exited = new Promise<void>((resolveExit) => daemon.once('exit', () => resolveExit()));
  const running = (): boolean => daemon.exitCode === null && daemon.signalCode === null;

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    DOCKER_HOST: `unix://${socket}`,
    DOCKER_CONFIG: configDir,
  };
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (running()) {
        daemon.kill('SIGTERM');
        // dockerd gives each container its stop timeout, then stops containerd.
        const timer = setTimeout(() => daemon.kill('SIGKILL'), 120_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(scratch, { recursive: true, force: true });
    })();
    return stopping;
  };

  try {
    await waitUntil('dockerd to answer', () => ping(socket), {
      timeoutMs: 60_000,
      intervalMs: 200,
      processes: [{ name: 'dockerd', child: daemon, running, output: () => output }],
    });
    const docker = (dockerArgs: readonly string[], runOptions?: DockerRunOptions): Promise<string> =>
      runDocker(env, dockerArgs, runOptions);
    // A clean start: what an interrupted run left (restart policies would bring its containers back up).
    const containers = (await docker(['ps', '--all', '--quiet'])).split('\n').filter(Boolean);
    if (containers.length > 0) await docker(['rm', '--force', '--volumes', ...containers]);
    await docker(['network', 'prune', '--force']);
    await docker(['volume', 'prune', '--force']);
    log(
      `dockerd (pid ${daemon.pid}) answers at ${socket} after ${Date.now() - started} ms` +
        (containers.length > 0 ? `; removed ${containers.length} containers of an earlier run` : ''),
    );
    return {
      env,
      docker,
      async hostAddress() {
        const gateway = (
          await docker(['network', 'inspect', 'bridge', '--format', '{{(index .IPAM.Config 0).Gateway}}'])
        ).trim();
        if (!/^\d+\.\d+\.\d+\.\d+$/.test(gateway)) throw new Error(`no bridge gateway: ${gateway}`);
        return gateway;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs `work` with an engine of ours, stopping it afterwards whatever happens. */
export async function withDockerEngine<T>(
  work: (engine: DockerEngine) => Promise<T>,
  options: StartDockerEngineOptions = {},
): Promise<T> {
  const engine = await startDockerEngine(options);
  try {
    return await work(engine);
  } finally {
    await engine.stop();
  }
}
