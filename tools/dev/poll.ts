/**
 * Waiting for an observable state (a server answering, a query's answer, the sandbox's state, a process gone)
 * instead of sleeping for a guessed time: the interval only spaces the probes, the deadline only turns a hang
 * into a clear failure. Every wait with a time limit in the tests and the tools polls here.
 */
import type { ChildProcessHandle } from './child-process';

/** A process a wait depends on: its exit ends the wait at once (dockerd is not a {@link ChildProcessHandle}). */
export type WatchedProcess = Pick<ChildProcessHandle, 'name' | 'running' | 'output' | 'child'>;

export interface PollOptions {
  /** What is awaited, for the errors. @default a condition */
  readonly what?: string;
  /** @default 60_000 */
  readonly timeoutMs?: number;
  /** Time between probes. @default 100 */
  readonly intervalMs?: number;
  /** Processes that must keep running meanwhile: one that exits fails the wait, with its output. */
  readonly processes?: readonly WatchedProcess[];
}

/** A watched process exited before the state came. */
export class ExitedWhileWaitingError extends Error {
  override readonly name = 'ExitedWhileWaitingError';
}

/** The state did not come within the time. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
}

/** An answer or error for a message: its first 1,000 characters. */
function brief(value: unknown): string {
  const text =
    value instanceof Error
      ? value.message
      : typeof value === 'string'
        ? value
        : String(JSON.stringify(value));
  return text.length > 1_000 ? `${text.slice(0, 1_000)}…` : text;
}

/**
 * Probes until `until` accepts an answer, and returns it. A probe that throws counts as not yet (its error is in
 * the timeout's message, beside the last answer).
 */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  until: (value: T) => boolean,
  options: PollOptions = {},
): Promise<T> {
  const what = options.what ?? 'a condition';
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let last: string | undefined;
  for (;;) {
    const dead = options.processes?.find((candidate) => !candidate.running());
    if (dead) {
      const status = dead.child.exitCode ?? dead.child.signalCode;
      throw new ExitedWhileWaitingError(
        `${dead.name} exited (${status}) while waiting for ${what}:\n${dead.output().trim()}`,
      );
    }
    try {
      const value = await probe();
      if (until(value)) return value;
      last = `last answer: ${brief(value)}`;
    } catch (error) {
      last = `last error: ${brief(error)}`;
    }
    if (Date.now() >= deadline) {
      const outputs = (options.processes ?? []).map(
        (watched) => `\n--- ${watched.name} ---\n${watched.output().trim()}`,
      );
      throw new WaitTimeoutError(
        `timed out after ${timeoutMs} ms waiting for ${what} (${last ?? 'no answer'})${outputs.join('')}`,
      );
    }
    await new Promise((resolvePause) => setTimeout(resolvePause, options.intervalMs ?? 100));
  }
}

/**
 * {@link pollUntil} for a probe that answers whether the state has come: mostly a process's readiness, so its
 * time defaults to two minutes (servers start slowly on a loaded 2-core machine).
 */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  options: Omit<PollOptions, 'what'> = {},
): Promise<void> {
  await pollUntil(probe, (ready) => ready, { timeoutMs: 120_000, ...options, what });
}
