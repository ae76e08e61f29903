/**
 * Child processes of the dev tooling — worker processes of tests, the chaos run and the benchmarks (a
 * TypeScript entry run with `node --import tsx`), and the programs other tools start through
 * `startChildProcess`: tied to this process (Linux kills it when this process dies, even by SIGKILL), with
 * their output kept for assertions and error messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { PROJECT_ROOT } from './temporal-cli';

/** The project root. */
export { PROJECT_ROOT } from './temporal-cli';

const SETPRIV = '/usr/bin/setpriv';
/** Output kept per process: enough for a worker's warnings over a long chaos run. */
const MAX_OUTPUT_CHARS = 4 * 1024 * 1024;

/** Whether a process with this id exists: for one that is not our child (no exit event to wait for). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Wraps a command so Linux kills it when its parent dies, even by SIGKILL (`setpriv` execs, same pid). */
export function withParentDeathSignal(command: string, args: readonly string[]): [string, string[]] {
  if (process.platform === 'linux' && existsSync(SETPRIV)) {
    return [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', command, ...args]];
  }
  return [command, [...args]];
}

/**
 * The children still running, killed by one `exit` listener of this process: a listener per child would pass
 * Node's limit of 10 listeners (a warning) (a cluster, its Web UIs and workers).
 */
const runningChildren = new Set<ChildProcess>();
let killingOnExit = false;

/** Kills `child` when this process exits (normal exits; Linux's parent-death signal covers the rest). */
function killOnParentExit(child: ChildProcess): void {
  runningChildren.add(child);
  child.once('exit', () => runningChildren.delete(child));
  if (killingOnExit) return;
  killingOnExit = true;
  process.once('exit', () => {
    for (const running of runningChildren) running.kill('SIGKILL');
  });
}

/** A running child process. */
export interface ChildProcessHandle {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves once the process has exited, with the signal or `exit code N`. */
  readonly exited: Promise<string>;
  /** Whether it still runs. */
  running(): boolean;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  /** Sends `signal` and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartTsProcessOptions {
  /** For messages, e.g. `worker 2`. */
  readonly name: string;
  /** Entry file relative to the project root, e.g. `src/main/worker.ts`. */
  readonly script: string;
  /** The whole environment of the child (PATH is added). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Flags for node itself, e.g. `--cpu-prof`. */
  readonly nodeFlags?: readonly string[];
  /**
   * A command that runs node, e.g. `['ip', 'netns', 'exec', '<name>']` (another network namespace); it must
   * exec node, so the pid stays node's.
   */
  readonly wrapper?: readonly string[];
}

/** Options of {@link startChildProcess}. */
export interface StartChildProcessOptions {
  /** For messages, e.g. `worker 2`. */
  readonly name: string;
  /** The program as it is run: already wrapped (`withParentDeathSignal`, `setpriv`, a network namespace). */
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment of the child (PATH is added): none of this process's variables leak in. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The working folder. @default this process's */
  readonly cwd?: string;
  /** The end of the output kept. @default 4 MiB: a worker's warnings over a long chaos run */
  readonly maxOutputChars?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL. @default 10 s */
  readonly stopGraceMs?: number;
}

/**
 * Spawns a child of the dev tooling: the end of its output kept, killed when this process exits, and a handle
 * to wait for, signal and stop it. Every kind of child (TypeScript entries, servers, cluster services) starts
 * here.
 */
export function startChildProcess(options: StartChildProcessOptions): ChildProcessHandle {
  const maxOutputChars = options.maxOutputChars ?? MAX_OUTPUT_CHARS;
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', ...options.env },
  });
  if (child.pid === undefined) throw new Error(`could not start ${options.name} (${options.command})`);
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-maxOutputChars);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('error', (error) => keep(Buffer.from(`\n${String(error)}\n`)));
  const exited = new Promise<string>((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit(signal ?? `exit code ${code ?? 'unknown'}`)),
  );
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  killOnParentExit(child);
  const kill = async (signal: NodeJS.Signals): Promise<void> => {
    if (running()) child.kill(signal);
    await exited;
  };
  return {
    name: options.name,
    pid: child.pid,
    child,
    exited,
    running,
    output: () => output,
    kill,
    async stop(graceMs = options.stopGraceMs ?? 10_000) {
      if (!running()) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await kill('SIGTERM');
      clearTimeout(timer);
    },
  };
}

/** Starts `node [nodeFlags] --import tsx <script>` from the project root with exactly `env` (plus PATH). */
export function startTsProcess(options: StartTsProcessOptions): ChildProcessHandle {
  const nodeArgs = [...(options.nodeFlags ?? []), '--import', 'tsx', resolve(PROJECT_ROOT, options.script)];
  const [wrapperCommand, ...wrapperArgs] = options.wrapper ?? [];
  const [command, args] = wrapperCommand
    ? withParentDeathSignal(wrapperCommand, [...wrapperArgs, process.execPath, ...nodeArgs])
    : withParentDeathSignal(process.execPath, nodeArgs);
  return startChildProcess({ name: options.name, command, args, env: options.env, cwd: PROJECT_ROOT });
}

/** What a badge worker process needs to know; becomes its environment (see `src/config.ts`). */
export interface WorkerProcessSettings {
  readonly temporal: { readonly address: string; readonly namespace: string; readonly taskQueue: string };
  readonly platform: { readonly baseUrl: string; readonly username: string; readonly password: string };
  readonly documentsRoot: string;
  /** A bundle from `buildServiceBundle()`, so each process starts without bundling. */
  readonly workflowBundlePath: string;
  /** `PAYLOAD_KEYS` entry; `null` runs unencrypted, which the worker needs said explicitly (`PAYLOAD_ENCRYPTION=off`). */
  readonly payloadKeys: string | null;
  /** `LOG_LEVEL`. @default warn */
  readonly logLevel?: string;
  /** `MAX_DOCUMENT_BYTES`; the worker's default when absent. */
  readonly maxDocumentBytes?: number;
  /** `WORKER_MAX_CONCURRENT_ACTIVITIES`; the worker's default when absent. */
  readonly maxConcurrentActivities?: number;
  /** `ENSURE_SEARCH_ATTRIBUTES`; the worker's default when absent. */
  readonly ensureSearchAttributes?: boolean;
}

/**
 * The platform user's credentials as a worker's variables, unless `env` (a worker's further variables) gives client
 * credentials: a worker refuses both kinds at once, so a platform configured with `BADGE_CLIENT_ID` gets no user.
 */
export function userCredentialsEnv(
  user: { readonly username: string; readonly password: string },
  env: Readonly<Record<string, string>>,
): Record<string, string> {
  return env.BADGE_CLIENT_ID === undefined
    ? { BADGE_USERNAME: user.username, BADGE_PASSWORD: user.password }
    : {};
}

/** The one place that turns worker settings into the environment of a worker process, plus `extra` variables. */
export function workerProcessEnv(
  settings: WorkerProcessSettings,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string | undefined> {
  const optional = (value: number | boolean | undefined): string | undefined =>
    value === undefined ? undefined : String(value);
  return {
    TEMPORAL_ADDRESS: settings.temporal.address,
    TEMPORAL_NAMESPACE: settings.temporal.namespace,
    TEMPORAL_TASK_QUEUE: settings.temporal.taskQueue,
    BADGE_BASE_URL: settings.platform.baseUrl,
    ...userCredentialsEnv(settings.platform, extra),
    DOCUMENTS_ROOT: settings.documentsRoot,
    WORKFLOW_BUNDLE_PATH: settings.workflowBundlePath,
    PAYLOAD_KEYS: settings.payloadKeys ?? undefined,
    PAYLOAD_ENCRYPTION: settings.payloadKeys === null ? 'off' : undefined,
    LOG_LEVEL: settings.logLevel ?? 'warn',
    MAX_DOCUMENT_BYTES: optional(settings.maxDocumentBytes),
    WORKER_MAX_CONCURRENT_ACTIVITIES: optional(settings.maxConcurrentActivities),
    ENSURE_SEARCH_ATTRIBUTES: optional(settings.ensureSearchAttributes),
    ...extra,
  };
}
