import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { SandboxControl, resolveProfile } from '../../src/sandbox';
import { http, requestToken } from './helpers';

const ROOT = join(__dirname, '..', '..');

/**
 * Starts `node --import tsx src/sandbox/main.ts` and resolves with the base URL once it printed it. No tsx
 * wrapper process: a SIGTERM reaches the sandbox itself, not a relay that may kill it under load.
 */
function startProcess(args: string[]): {
  child: ChildProcessByStdio<null, Readable, Readable>;
  url: Promise<string>;
  /** Resolves with all the output once the process ended and its output streams closed. */
  closed: Promise<{ stdout: string; stderr: string }>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const line = stdout.split('\n').find((candidate) => /^http:\/\/\S+$/.test(candidate));
      if (line) resolve(line);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    // 'close', not 'exit': the output may still be arriving when the process has exited.
    child.once('close', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
  const closed = new Promise<{ stdout: string; stderr: string }>((resolve) =>
    child.once('close', () => resolve({ stdout, stderr })),
  );
  return { child, url, closed };
}

function exitOf(child: ChildProcessByStdio<null, Readable, Readable>): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

describe('npm run sandbox', () => {
  it('prints the base URL last, serves the APIs with the CLI options, and exits cleanly on SIGTERM', async () => {
    const { child, url } = startProcess([
      '--port',
      '0',
      '--control-token',
      'cli-token',
      '--token-ttl',
      '120',
      '--faults',
      '{"failNext":{"route":"stocks","kind":"error-502"}}',
      '--log-level',
      'warn',
    ]);
    try {
      const baseUrl = await url;
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const token = await requestToken(baseUrl, { username: 'demo', password: 'demo-password' });
      expect(token.data.expires_in).toBe(120);
      const stocks = await http.get(`${baseUrl}/badge/v2/api/v1/stocks`, {
        headers: { authorization: `Bearer ${token.data.access_token}` },
      });
      expect(stocks.status).toBe(502);
      const control = new SandboxControl({ baseUrl, controlToken: 'cli-token' });
      expect((await control.stats()).faults).toEqual({ 'error-502': 1 });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exitOf(child)).toBe(0);
  });

  it('plays the profile given with --profile, with --idempotency overriding its key handling', async () => {
    const { child, url } = startProcess([
      '--profile',
      'hal',
      '--idempotency',
      'ignored',
      '--control-token',
      'cli-token',
      '--log-level',
      'warn',
    ]);
    try {
      const baseUrl = await url;
      const control = new SandboxControl({ baseUrl, controlToken: 'cli-token' });
      expect(await control.profile()).toEqual(resolveProfile('hal', 'ignored'));
      const token = await requestToken(baseUrl, { username: 'demo', password: 'demo-password' });
      // hal's token answer: lower-case token_type and a refresh token.
      expect(token.data).toMatchObject({ token_type: 'bearer', refresh_token: expect.any(String) as string });
      const stocks = await http.get(`${baseUrl}/badge/v2/api/v1/stocks`, {
        headers: { authorization: `Bearer ${token.data.access_token}` },
      });
      expect(stocks.data).toMatchObject({ content: [{ stock_id: '1001' }, { stock_id: '1002' }] });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exitOf(child)).toBe(0);
  });

  it('starts random:<seed> and refuses an unknown profile', async () => {
    const random = startProcess(['--profile', 'random:7', '--control-token', 'cli-token']);
    try {
      const control = new SandboxControl({ baseUrl: await random.url, controlToken: 'cli-token' });
      expect(await control.profile()).toEqual(resolveProfile('random:7'));
    } finally {
      random.child.kill('SIGTERM');
    }
    expect(await exitOf(random.child)).toBe(0);

    const unknown = startProcess(['--profile', 'nope']);
    await expect(unknown.url).rejects.toThrow(/unknown profile "nope"/);
    expect(await exitOf(unknown.child)).not.toBe(0);
  });

  it('reads the control token from --control-token-file and does not print it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-token-'));
    try {
      const file = join(dir, 'control-token');
      writeFileSync(file, 'token-from-a-file-7f3a\n');
      const started = startProcess(['--control-token-file', file, '--log-level', 'warn']);
      try {
        const baseUrl = await started.url;
        const control = new SandboxControl({ baseUrl, controlToken: 'token-from-a-file-7f3a' });
        expect((await control.stats()).faults).toEqual({});
      } finally {
        started.child.kill('SIGTERM');
      }
      expect(await exitOf(started.child)).toBe(0);
      const { stdout, stderr } = await started.closed;
      expect(stdout).toContain(`control token: from ${file}`);
      expect(stdout + stderr).not.toContain('token-from-a-file-7f3a');
      // On loopback there is nothing to warn about.
      expect(stderr).not.toContain('listens beyond this machine');

      const both = startProcess(['--control-token', 'x', '--control-token-file', file]);
      await expect(both.url).rejects.toThrow(/not both/);
      const missing = startProcess(['--control-token-file', join(dir, 'absent')]);
      await expect(missing.url).rejects.toThrow(/--control-token-file: cannot read .*ENOENT/);
      writeFileSync(join(dir, 'empty'), '\n');
      const empty = startProcess(['--control-token-file', join(dir, 'empty')]);
      await expect(empty.url).rejects.toThrow(/is empty/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('warns when it listens beyond loopback', async () => {
    const started = startProcess([
      '--host',
      '0.0.0.0',
      '--control-token',
      'cli-token',
      '--log-level',
      'warn',
    ]);
    try {
      await started.url;
    } finally {
      started.child.kill('SIGTERM');
    }
    expect(await exitOf(started.child)).toBe(0);
    expect((await started.closed).stderr).toContain('the sandbox listens beyond this machine');
  });

  it('refuses an invalid option with a non-zero exit', async () => {
    const { child, url } = startProcess(['--error-rate', '3']);
    await expect(url).rejects.toThrow(/errorRate/);
    expect(await exitOf(child)).not.toBe(0);
  });
});
