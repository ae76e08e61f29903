/** How the processes of src/main end, when their `main` returns an exit code or fails. */

type ErrorType = abstract new (...args: never[]) => Error;

interface RunMainOptions {
  /** Errors that say what to fix: their message is enough. Any other error shows its stack. @default every error */
  readonly messageOnly?: readonly ErrorType[];
  /** The exit code of a failure. @default 1 */
  readonly exitCode?: (error: unknown) => number;
  /** Set the exit code and let the process end once its output is written (commands), rather than exit now. */
  readonly letOutputFinish?: boolean;
}

/** Runs `main`: its exit code when it returns one; a failure is printed to stderr and exits (see the options). */
export function runMain(main: () => Promise<number | void>, options: RunMainOptions = {}): void {
  main().then(
    (code) => {
      if (code !== undefined) process.exitCode = code;
    },
    (error: unknown) => {
      const brief = options.messageOnly?.some((type) => error instanceof type) ?? true;
      console.error(error instanceof Error ? (brief ? error.message : error.stack) : String(error));
      const code = options.exitCode?.(error) ?? 1;
      if (options.letOutputFinish) process.exitCode = code;
      else process.exit(code);
    },
  );
}
