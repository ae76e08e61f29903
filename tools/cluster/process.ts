/**
 * Child processes of the cluster that are not TypeScript (PostgreSQL, the Temporal services, the Web UI
 * server): started through `setpriv --pdeathsig SIGKILL` like every child of the dev tooling, so Linux kills
 * them when this process dies, even by SIGKILL; the end of their output kept for error messages. The handle
 * has the shape of `startTsProcess`'s, so the same readiness and cleanup code serves both.
 */
import {
  startChildProcess,
  withParentDeathSignal,
  type ChildProcessHandle,
  type StartChildProcessOptions,
} from '../dev/child-process';

/** Options of {@link startProcess}: those of `startChildProcess` that a cluster child sets, and a user. */
export interface StartProcessOptions extends Pick<
  StartChildProcessOptions,
  'name' | 'command' | 'args' | 'env' | 'cwd'
> {
  /** Runs it as this unprivileged user id (and its group id): PostgreSQL refuses to run as root. */
  readonly runAs?: { readonly uid: number; readonly gid: number };
}

/** Starts a program; see the module comment. */
export function startProcess(options: StartProcessOptions): ChildProcessHandle {
  const { runAs, ...child } = options;
  // One setpriv for both: a change of user ID clears the parent-death signal, so it must be set after it.
  const [command, args] = runAs
    ? [
        '/usr/bin/setpriv',
        [
          `--reuid=${runAs.uid}`,
          `--regid=${runAs.gid}`,
          '--clear-groups',
          '--pdeathsig',
          'SIGKILL',
          '--',
          child.command,
          ...child.args,
        ],
      ]
    : withParentDeathSignal(child.command, child.args);
  // Enough output to explain a failed start; PostgreSQL and the services get longer to stop.
  return startChildProcess({ ...child, command, args, maxOutputChars: 64 * 1024, stopGraceMs: 15_000 });
}

/** Runs a program to completion; rejects with its output when it fails. */
export async function runToCompletion(options: StartProcessOptions): Promise<string> {
  const handle = startProcess(options);
  const how = await handle.exited;
  if (how !== 'exit code 0') {
    throw new Error(`${options.name} failed (${how}):\n${handle.output().trim()}`);
  }
  return handle.output();
}

const pause = (ms: number): Promise<void> => new Promise((resolvePause) => setTimeout(resolvePause, ms));

/**
 * Polls `probe` until it resolves true; rejects when one of `processes` exits meanwhile (with its output) or
 * `timeoutMs` passes (with the probe's last error).
 */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  options: { readonly timeoutMs?: number; readonly processes?: readonly ChildProcessHandle[] } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  let lastError = 'not yet';
  for (;;) {
    const dead = (options.processes ?? []).find((candidate) => !candidate.running());
    if (dead) throw new Error(`${dead.name} exited while waiting for ${what}:\n${dead.output().trim()}`);
    try {
      if (await probe()) return;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last error: ${lastError})`);
    // Interval of a readiness probe, not synchronisation on a guess.
    await pause(250);
  }
}
