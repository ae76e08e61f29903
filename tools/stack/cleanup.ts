/**
 * The one cleanup list of a local stack: every part that starts something registers how to stop it here, and
 * `run()` stops them all, newest first — every one of them even when an earlier one throws, once however often
 * it is called, and (for command-line tools) also when the process gets SIGINT or SIGTERM.
 */

/** Removes an entry again, e.g. when a worker stopped by itself or was stopped on purpose. */
export type RemoveCleanup = () => void;

/** What a signal handler installed by {@link CleanupList.stopOnSignals} needs; `process` by default. */
export interface SignalTarget {
  once(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  removeListener(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

/** Options of {@link CleanupList.stopOnSignals}. */
export interface StopOnSignalsOptions {
  /** @default ['SIGINT', 'SIGTERM'] */
  readonly signals?: readonly NodeJS.Signals[];
  /** @default process */
  readonly target?: SignalTarget;
  /** Called once everything has stopped, with 130 for SIGINT and 143 for SIGTERM. @default process.exit */
  readonly exit?: (code: number) => void;
  /** Told which signal arrived, before stopping. */
  readonly log?: (message: string) => void;
}

interface Entry {
  readonly name: string;
  readonly stop: () => Promise<void> | void;
}

/** Thrown by {@link CleanupList.run} when stops failed; every stop has been tried by then. */
export class CleanupError extends AggregateError {
  override readonly name = 'CleanupError';
}

/** See the module comment. */
export class CleanupList {
  readonly #entries: Entry[] = [];
  #running: Promise<void> | undefined;
  #removeSignalHandlers: (() => void) | undefined;

  /** Registers `stop` (named for error messages); it runs before everything registered earlier. */
  add(name: string, stop: () => Promise<void> | void): RemoveCleanup {
    if (this.#running) {
      // Started while everything stops (a signal during start-up): stop it at once, and stop the caller.
      void Promise.resolve()
        .then(stop)
        .catch(() => undefined);
      throw new Error(`${name} was stopped again: the stack is stopping`);
    }
    const entry: Entry = { name, stop };
    this.#entries.push(entry);
    return () => {
      const index = this.#entries.indexOf(entry);
      if (index >= 0) this.#entries.splice(index, 1);
    };
  }

  /** True once {@link run} was called. */
  get stopping(): boolean {
    return this.#running !== undefined;
  }

  /**
   * Stops everything, newest first; resolves once all stops have ended, or rejects with a {@link CleanupError}
   * naming each one that failed. Later calls return the same promise.
   */
  run(): Promise<void> {
    this.#running ??= this.#runAll();
    return this.#running;
  }

  async #runAll(): Promise<void> {
    this.#removeSignalHandlers?.();
    const failures: Error[] = [];
    for (let entry = this.#entries.pop(); entry; entry = this.#entries.pop()) {
      try {
        await entry.stop();
      } catch (error) {
        failures.push(new Error(`stopping ${entry.name} failed: ${String(error)}`, { cause: error }));
      }
    }
    if (failures.length > 0) {
      throw new CleanupError(failures, failures.map((failure) => failure.message).join('; '));
    }
  }

  /**
   * For command-line tools: on the first SIGINT or SIGTERM, stops everything and exits (130 or 143). The handlers
   * are removed when the list runs for another reason.
   */
  stopOnSignals(options: StopOnSignalsOptions = {}): void {
    const target = options.target ?? process;
    const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
    const exit = options.exit ?? ((code: number) => process.exit(code));
    const onSignal = (signal: NodeJS.Signals): void => {
      options.log?.(`${signal}: stopping everything`);
      const code = signal === 'SIGINT' ? 130 : 143;
      void this.run().then(
        () => exit(code),
        (error: unknown) => {
          options.log?.(String(error));
          exit(code);
        },
      );
    };
    this.#removeSignalHandlers?.();
    for (const signal of signals) target.once(signal, onSignal);
    this.#removeSignalHandlers = () => {
      for (const signal of signals) target.removeListener(signal, onSignal);
      this.#removeSignalHandlers = undefined;
    };
  }
}
