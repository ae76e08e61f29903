import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
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
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = new Promise<string>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const line = stdout.split('\n').find((candidate) => /^http:\/\/\S+$/.test(candidate));
      if (line) resolve(line);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
  return { child, url };
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

  it('refuses an invalid option with a non-zero exit', async () => {
    const { child, url } = startProcess(['--error-rate', '3']);
    await expect(url).rejects.toThrow(/errorRate/);
    expect(await exitOf(child)).not.toBe(0);
  });
});
