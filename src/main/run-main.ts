/**
 * How the project's processes (src/main, the sandbox, the tools and the bench) start and end: on a Node.js that
 * cannot keep identifiers' digits they do not start; they end with `main`'s exit code or its failure.
 */
import { keepsJsonDigits } from '../json-numbers';
import { requiredNodeVersions } from '../version';

type ErrorType = abstract new (...args: never[]) => Error;

interface RunMainOptions {
  /** Errors that say what to fix: their message is enough. Any other error shows its stack. @default every error */
  readonly messageOnly?: readonly ErrorType[];
  /** The exit code of a failure. @default 1 */
  readonly exitCode?: (error: unknown) => number;
  /** Set the exit code and let the process end once its output is written (commands), rather than exit now. */
  readonly letOutputFinish?: boolean;
}

/**
 * Why this Node.js cannot run the service, or null when it can. Orders and documents carry 64-bit ids that only
 * Node.js 22 and later read and write digit for digit (src/json-numbers.ts).
 */
export function unsupportedRuntime(
  runtime: { readonly json: unknown; readonly version: string } = { json: JSON, version: process.version },
): string | null {
  if (keepsJsonDigits(runtime.json)) return null;
  const required = requiredNodeVersions();
  return (
    `badge-orders needs ${required === null ? 'a newer Node.js' : `Node.js ${required}`} (package.json engines): ` +
    `Node.js ${runtime.version} cannot read and write JSON numbers digit for digit, so it would round ` +
    'identifiers beyond 2^53'
  );
}

/**
 * Runs `main`: its exit code when it returns one; a failure is printed to stderr and exits (see the options).
 * Exits with 1 at once on an unsupported Node.js ({@link unsupportedRuntime}).
 */
export function runMain(main: () => Promise<number | void>, options: RunMainOptions = {}): void {
  const unsupported = unsupportedRuntime();
  if (unsupported !== null) {
    console.error(unsupported);
    process.exit(1);
  }
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
