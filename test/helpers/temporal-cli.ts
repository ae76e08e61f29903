/**
 * The official Temporal CLI against a test stack, as an operator runs it: the binary the project resolves
 * (tools/dev/temporal-cli.ts), an empty home folder (the CLI reads profiles from it: an operator's settings stay
 * out of the test), and our codec server with the stack's keys on port 0, named by `--codec-endpoint` and
 * `--codec-auth`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startCodecServer, type RunningCodecServer } from '../../src/codec/codec-server';
import { resolveTemporalCli } from '../../tools/dev/temporal-cli';
import type { TestStack } from './stack';

const execFileAsync = promisify(execFile);

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface TemporalCli {
  /**
   * Runs the CLI against the stack, with the codec endpoint (templated as operators write it) and the codec
   * server's token unless told otherwise; a failing command gives its exit code and output, not a throw.
   */
  readonly run: (
    args: readonly string[],
    options?: { readonly codec?: boolean; readonly codecAuth?: string },
  ) => Promise<CliResult>;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that ready the CLI and start the codec server (whose bearer token is
 * `token`) for `stack`, a stack started by an earlier `beforeAll`, and always stop and remove what they made.
 */
export function useTemporalCli(stack: TestStack, options: { readonly token: string }): TemporalCli {
  let cliPath: string | undefined;
  let home: string | undefined;
  let codec: RunningCodecServer | undefined;
  beforeAll(async () => {
    const cli = await resolveTemporalCli({ install: false, allowSdkDownload: false });
    if (cli.kind !== 'binary') throw new Error('the Temporal CLI binary is needed');
    cliPath = cli.path;
    home = mkdtempSync(join(tmpdir(), 'temporal-cli-home-'));
    codec = await startCodecServer({
      keys: stack.payloadKeys,
      corsOrigin: 'http://127.0.0.1:8233',
      token: options.token,
      port: 0,
    });
  });
  afterAll(async () => {
    await codec?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });
  return {
    run: async (args, runOptions = {}) => {
      if (cliPath === undefined || home === undefined || codec === undefined) {
        throw new Error('the Temporal CLI is readied in beforeAll');
      }
      const connection = [
        '--address',
        stack.temporal.server.address,
        '--namespace',
        stack.temporal.server.namespace,
        '--disable-config-file',
        '--disable-config-env',
        '--color',
        'never',
      ];
      const codecFlags =
        runOptions.codec === false
          ? []
          : [
              '--codec-endpoint',
              `${codec.url}/{namespace}`,
              '--codec-auth',
              runOptions.codecAuth ?? `Bearer ${options.token}`,
            ];
      try {
        const { stdout, stderr } = await execFileAsync(cliPath, [...args, ...connection, ...codecFlags], {
          env: { PATH: process.env.PATH ?? '', HOME: home },
          maxBuffer: 16 * 1024 * 1024,
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code?: number; stdout?: string; stderr?: string };
        return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
      }
    },
  };
}
