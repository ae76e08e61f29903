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
