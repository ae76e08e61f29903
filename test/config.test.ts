/**
 * The safe settings are the defaults (issue 21): payload encryption is required unless switched off by name,
 * credentials never travel over plain HTTP to another host by accident, the base URL is logged as its origin
 * only, and the metrics endpoint listens on loopback. The entry points are run as processes, as people run them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { generatePayloadKeyEntry } from '../src/codec/key-ring';
import {
  ConfigError,
  insecureBaseUrlReason,
  loadPlatformConfig,
  loadReplayScheduleConfig,
  loadTemporalConfig,
  loadWorkerConfig,
  workerConfigSchema,
} from '../src/config';
import { workerStartedFields } from '../src/main/worker';
import { urlOrigin } from '../src/url-policy';
import { createBadgeOrderWorker } from '../src/worker/create-worker';
import { platformClientFromConfig } from '../src/worker/platform-client';

const PROJECT_ROOT = resolve(__dirname, '..');
const KEYS = generatePayloadKeyEntry('k1');
const PLATFORM = { BADGE_USERNAME: 'user', BADGE_PASSWORD: 'a-platform-password' } as const;

/** Runs an entry point with only `env` (and PATH/HOME); resolves with its exit code and output. */
function runEntry(
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<{ readonly code: number | null; readonly output: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    // 'close', not 'exit': the output may still be arriving when the process has exited.
    child.once('close', (code) => resolveRun({ code, output }));
  });
}

describe('payload encryption is required unless switched off explicitly', () => {
  const bothNames = /PAYLOAD_KEYS: is required.*PAYLOAD_ENCRYPTION=off/;

  it('refuses the worker, client and schedule configuration without keys, naming both variables', () => {
    expect(() => loadWorkerConfig({ ...PLATFORM })).toThrow(ConfigError);
    expect(() => loadWorkerConfig({ ...PLATFORM })).toThrow(bothNames);
    expect(() => loadTemporalConfig({})).toThrow(bothNames);
    expect(() => loadReplayScheduleConfig({})).toThrow(bothNames);
    // An empty value is no key either.
    expect(() => loadTemporalConfig({ PAYLOAD_KEYS: '', PAYLOAD_KEYS_FILE: '' })).toThrow(bothNames);
    expect(() => loadTemporalConfig({ PAYLOAD_ENCRYPTION: 'on' })).toThrow(bothNames);
  });

  it('accepts keys from the variable or a file, and PAYLOAD_ENCRYPTION=off without keys', () => {
    expect(loadWorkerConfig({ ...PLATFORM, PAYLOAD_KEYS: KEYS }).temporal.codec.payloadKeys.ids).toEqual([
      'k1',
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'badge-keys-'));
    try {
      writeFileSync(join(dir, 'payload_keys'), `${KEYS}\n`);
      const fromFile = loadTemporalConfig({ PAYLOAD_KEYS_FILE: join(dir, 'payload_keys') });
      expect(fromFile.codec).toMatchObject({ encryption: 'on' });
      expect(fromFile.codec.payloadKeys.encrypts).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const off = loadWorkerConfig({ ...PLATFORM, PAYLOAD_ENCRYPTION: 'off' });
    expect(off.temporal.codec.encryption).toBe('off');
    expect(off.temporal.codec.payloadKeys.encrypts).toBe(false);
  });

  it('refuses keys together with PAYLOAD_ENCRYPTION=off, and unknown values', () => {
    expect(() => loadTemporalConfig({ PAYLOAD_KEYS: KEYS, PAYLOAD_ENCRYPTION: 'off' })).toThrow(
      /PAYLOAD_ENCRYPTION: is off but PAYLOAD_KEYS is set/,
    );
    expect(() => loadTemporalConfig({ PAYLOAD_ENCRYPTION: 'no' })).toThrow(/PAYLOAD_ENCRYPTION/);
  });

  it('refuses a worker configuration built in code without keys, before connecting anywhere', async () => {
    const config = workerConfigSchema.parse({
      // An address nothing listens on: the refusal must come before any connection attempt.
      temporal: { address: '127.0.0.1:1', codec: { encryption: 'off' } },
      platform: { username: 'user', password: 'a-platform-password' },
    });
    const tampered = {
      ...config,
      temporal: { ...config.temporal, codec: { ...config.temporal.codec, encryption: 'on' as const } },
    };
    await expect(createBadgeOrderWorker(tampered, pino({ level: 'silent' }))).rejects.toThrow(bothNames);
  });

  it('stops the worker, the starter and the operator CLI at start-up without keys', async () => {
    const env = { ...PLATFORM, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const dir = mkdtempSync(join(tmpdir(), 'badge-order-'));
    try {
      const order = join(dir, 'order.json');
      writeFileSync(
        order,
        JSON.stringify({
          orderRef: 'no-keys',
          stockId: 1001,
          vehicle: { licensePlate: 'B-XY 1234', vin: 'WVWZZZ1JZXW000001', fuel: 'diesel' },
          badge: { type: 'green', validFrom: '2027-01-01' },
          documents: [],
        }),
      );
      const runs = await Promise.all([
        runEntry('src/main/worker.ts', [], env),
        runEntry('src/main/starter.ts', [order], env),
        runEntry('src/main/ops.ts', ['list'], env),
      ]);
      for (const run of runs) {
        expect(run.output).toMatch(bothNames);
        expect(run.code).toBe(1);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the document owner', () => {
  it('takes a fixed id or a claim name, never both, naming the variables', () => {
    expect(loadPlatformConfig({ ...PLATFORM, BADGE_USER_ID_CLAIM: 'user_id' })).toMatchObject({
      userIdClaim: 'user_id',
    });
    expect(loadPlatformConfig({ ...PLATFORM, BADGE_DOCUMENT_OWNER: '4711' })).toMatchObject({
      documentOwner: '4711',
    });
    expect(
      loadPlatformConfig({ ...PLATFORM, BADGE_DOCUMENT_OWNER: '', BADGE_USER_ID_CLAIM: '' }),
    ).toMatchObject({
      documentOwner: undefined,
      userIdClaim: undefined,
    });
    expect(() =>
      loadPlatformConfig({ ...PLATFORM, BADGE_DOCUMENT_OWNER: '4711', BADGE_USER_ID_CLAIM: 'user_id' }),
    ).toThrow(/BADGE_USER_ID_CLAIM: must not be set together with BADGE_DOCUMENT_OWNER/);
    expect(() => loadPlatformConfig({ ...PLATFORM, BADGE_USER_ID_CLAIM: 'user id' })).toThrow(
      /BADGE_USER_ID_CLAIM: must be a claim name/,
    );
  });
});

describe('the platform base URL', () => {
  it('refuses http:// to another host unless BADGE_ALLOW_INSECURE_HTTP=true', () => {
    const env = { ...PLATFORM, BADGE_BASE_URL: 'http://platform.example.com' };
    expect(() => loadPlatformConfig(env)).toThrow(
      /BADGE_BASE_URL: .*in clear.*BADGE_ALLOW_INSECURE_HTTP=true/,
    );
    expect(() => loadWorkerConfig({ ...env, PAYLOAD_KEYS: KEYS })).toThrow(/BADGE_BASE_URL/);
    expect(() => loadPlatformConfig({ ...env, BADGE_ALLOW_INSECURE_HTTP: 'false' })).toThrow(
      /BADGE_BASE_URL/,
    );
    expect(loadPlatformConfig({ ...env, BADGE_ALLOW_INSECURE_HTTP: 'true' }).baseUrl).toBe(
      'http://platform.example.com',
    );
    expect(() => loadPlatformConfig({ ...env, BADGE_ALLOW_INSECURE_HTTP: 'maybe' })).toThrow(
      /BADGE_ALLOW_INSECURE_HTTP/,
    );
  });

  it('accepts https:// anywhere and http:// on loopback', () => {
    for (const baseUrl of [
      'https://platform.example.com/base',
      'http://127.0.0.1:4010',
      'http://127.1.2.3:4010',
      'http://localhost:4010',
      'http://[::1]:4010',
    ]) {
      expect(loadPlatformConfig({ ...PLATFORM, BADGE_BASE_URL: baseUrl }).baseUrl).toBe(baseUrl);
    }
    // Loopback by look-alike names is not loopback.
    expect(insecureBaseUrlReason('http://127.0.0.1.example.com', false)).toMatch(/in clear/);
    expect(insecureBaseUrlReason('http://localhost.example.com', false)).toMatch(/in clear/);
  });

  it('refuses credentials in the URL without echoing them', () => {
    let message = '';
    try {
      loadPlatformConfig({
        ...PLATFORM,
        BADGE_BASE_URL: 'https://someone:hunter2-secret@platform.example.com',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/BADGE_BASE_URL: must not contain credentials/);
    expect(message).not.toContain('hunter2-secret');
  });

  it('refuses an insecure base URL given to the platform client later (ops probe --base-url)', () => {
    const config = loadPlatformConfig({ ...PLATFORM });
    expect(() => platformClientFromConfig({ ...config, baseUrl: 'http://platform.example.com' })).toThrow(
      /BADGE_BASE_URL: .*BADGE_ALLOW_INSECURE_HTTP/,
    );
    expect(() =>
      platformClientFromConfig({
        ...config,
        baseUrl: 'http://platform.example.com',
        allowInsecureHttp: true,
      }),
    ).not.toThrow();
  });

  it('is logged at start as its origin only: no user info, path or query', () => {
    const config = loadWorkerConfig({
      ...PLATFORM,
      PAYLOAD_KEYS: KEYS,
      BADGE_BASE_URL: 'https://platform.example.com:8443/tenant-7/api?signature=abc123',
    });
    const fields = JSON.stringify(workerStartedFields(config));
    expect(fields).toContain('"platform":"https://platform.example.com:8443"');
    expect(fields).not.toMatch(/tenant-7|signature|abc123/);
    expect(urlOrigin('https://u:p@host.example/a?b=c')).toBe('https://host.example');
  });
});

describe('the metrics endpoint', () => {
  it('listens on loopback unless METRICS_HOST says otherwise', () => {
    const env = { ...PLATFORM, PAYLOAD_KEYS: KEYS, METRICS_PORT: '9464' };
    expect(loadWorkerConfig(env).metricsHost).toBe('127.0.0.1');
    expect(loadWorkerConfig({ ...env, METRICS_HOST: '0.0.0.0' }).metricsHost).toBe('0.0.0.0');
  });
});
