/**
 * What the service's command-line programs (`ops`, `schedule`) share: a commander program whose output goes
 * to injected writers and whose errors become exit codes instead of `process.exit`, and the `--json` switch.
 */
import { Command, CommanderError } from 'commander';

/** Where a program writes; injected so tests can run it in-process. */
interface CliOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** A program with a global `--json` option that never exits the process by itself. */
export function createCliProgram(
  options: CliOutput & { readonly name: string; readonly description: string },
): Command {
  return new Command(options.name)
    .description(options.description)
    .option('--json', 'print JSON for scripts instead of tables')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => options.out(text.trimEnd()),
      writeErr: (text) => options.err(text.trimEnd()),
    });
}

/** Whether the user asked for JSON (the global `--json`), seen from any subcommand. */
export function wantsJson(command: Command): boolean {
  return Boolean(command.optsWithGlobals<{ json?: boolean }>().json);
}

/** Runs the program with `args` and returns its exit code; an error's message goes to `err`. */
export async function runCliProgram(
  program: Command,
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  try {
    await program.parseAsync([...args], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    output.err(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
