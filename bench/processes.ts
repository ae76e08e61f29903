/**
 * Child processes of the benchmarks: a TypeScript entry run with `node --import tsx`, tied to this process
 * (Linux kills it if the bench dies, even by SIGKILL), with the tail of its output kept for error messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** The project root (bench/ lives directly below it). */
export const PROJECT_ROOT = resolve(__dirname, '..');

const SETPRIV = '/usr/bin/setpriv';

/** A child process started by the bench. */
export interface BenchProcess {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves once the process has exited. */
  readonly exited: Promise<void>;
  /** Whether it still runs. */
  running(): boolean;
  /** The last few kB it printed. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `node [nodeFlags] --import tsx <script>` from the project root with exactly `env` (plus PATH). */
export function startTsProcess(
  name: string,
  script: string,
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): BenchProcess {
  const nodeArgs = [...nodeFlags, '--import', 'tsx', resolve(PROJECT_ROOT, script)];
  const [command, commandArgs] =
    process.platform === 'linux' && existsSync(SETPRIV)
      ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', process.execPath, ...nodeArgs]]
      : [process.execPath, nodeArgs];
  const child = spawn(command, commandArgs, {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  const pid = child.pid;
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const killOnExit = (): void => {
    if (running()) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));
  return {
    name,
    pid,
    child,
    exited,
    running,
    output: () => tail,
    async stop(graceMs = 10_000) {
      if (!running()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

const { TaskQueueType } = temporal.api.enums.v1;

async function pollerIdentities(client: Client, taskQueue: string, type: number): Promise<string[]> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: type,
  });
  return (response.pollers ?? []).map((poller) => poller.identity ?? '');
}

/**
 * Resolves once every process polls `taskQueue` for workflow and activity tasks (the SDK's default identity
 * starts with `<pid>@`); rejects when one exits or `timeoutMs` passes.
 */
export async function waitUntilPolling(
  client: Client,
  taskQueue: string,
  processes: readonly BenchProcess[],
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = processes.find((candidate) => !candidate.running());
    if (dead) throw new Error(`${dead.name} exited while starting:\n${dead.output()}`);
    const [workflowPollers, activityPollers] = await Promise.all([
      pollerIdentities(client, taskQueue, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
      pollerIdentities(client, taskQueue, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
    ]);
    const polls = (pid: number, identities: string[]): boolean =>
      identities.some((identity) => identity.startsWith(`${pid}@`));
    if (processes.every((p) => polls(p.pid, workflowPollers) && polls(p.pid, activityPollers))) return;
    if (Date.now() > deadline) {
      throw new Error(
        `workers did not poll ${taskQueue} within ${timeoutMs} ms:\n${processes.map((p) => p.output()).join('\n')}`,
      );
    }
    // Polling interval of a readiness probe.
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 250));
  }
}
