/** The webhook parts of the contract and configuration, without a server: field errors, settings, secrets. */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { deliverWebhookActivity, webhookSignature } from '../../src/activities/deliver-webhook';
import { ConfigError, loadWorkerConfig, webhookConfigSchema } from '../../src/config';
import { badgeOrderInputSchema, formatIssues } from '../../src/contract';

const base = { orderRef: 'hook-1', vehicle: { plate: 'B' }, badge: { type: 'green' }, documents: [] };

function issues(fields: Record<string, unknown>): string[] {
  const parsed = badgeOrderInputSchema.safeParse({ ...base, ...fields });
  return parsed.success ? [] : formatIssues(parsed.error);
}

describe('callbackUrl in the order input', () => {
  it('names the field in the input errors', () => {
    expect(issues({ callbackUrl: 'http://hooks.example/' })).toEqual([
      'callbackUrl: must be an https:// URL (http:// only to this machine)',
    ]);
    expect(issues({ callbackUrl: 42 })).toEqual(['callbackUrl: must be a string']);
    expect(issues({ callbackUrl: `https://hooks.example/${'a'.repeat(2048)}` })).toEqual([
      'callbackUrl: must be at most 2048 characters',
    ]);
    expect(issues({ callbackUrl: 'https://hooks.example/', clientId: 'api-key-7' })).toEqual([]);
    expect(issues({ clientId: 'no spaces allowed' })).toEqual([
      'clientId: must be 1 to 64 letters, digits, ".", "_", ":" or "-"',
    ]);
  });
});

describe('webhook settings', () => {
  it('defaults to no secrets and no http', () => {
    expect(webhookConfigSchema.parse({})).toEqual({
      secrets: {},
      allowHttpLoopback: false,
      allowedHosts: [],
    });
  });

  it('never delivers to a host outside WEBHOOK_ALLOWED_HOSTS: a final failure, before any request', async () => {
    const deliver = deliverWebhookActivity({
      webhooks: {
        secrets: { default: 'd'.repeat(32) },
        allowHttpLoopback: false,
        allowedHosts: ['hooks.example.com'],
      },
    });
    const refusal = deliver({
      callbackUrl: 'https://metadata.internal.example/latest',
      event: {} as Parameters<typeof deliver>[0]['event'],
    });
    await expect(refusal).rejects.toBeInstanceOf(ApplicationFailure);
    await expect(refusal).rejects.toMatchObject({
      type: 'WEBHOOK_DESTINATION_REFUSED',
      nonRetryable: true,
      message:
        'callbackUrl must be on a host this service delivers webhooks to (metadata.internal.example is not one; ask its operators)',
    });
  });

  it('refuses a short secret without showing it', () => {
    const parsed = webhookConfigSchema.safeParse({ secrets: { default: 'short-secret' } });
    expect(parsed.success).toBe(false);
    const text = parsed.success ? '' : formatIssues(parsed.error).join('; ');
    expect(text).toBe(
      'secrets: entry 1: the secret must be at least 16 characters (is the secret where the client id belongs?)',
    );
    expect(text).not.toContain('short-secret');
  });
});

describe('WEBHOOK_SECRETS_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = { BADGE_USERNAME: 'user', BADGE_PASSWORD: 'a-platform-password', PAYLOAD_ENCRYPTION: 'off' };

  function fileWith(name: string, text: string): string {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  }

  it('is read by the worker configuration, with WEBHOOK_ALLOW_HTTP_LOOPBACK', () => {
    const file = fileWith(
      'ok.json',
      JSON.stringify({ 'api-key-7': 'x'.repeat(32), default: 'y'.repeat(32) }),
    );
    const config = loadWorkerConfig({
      ...env,
      WEBHOOK_SECRETS_FILE: file,
      WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
    });
    expect(config.webhooks).toEqual({
      secrets: { 'api-key-7': 'x'.repeat(32), default: 'y'.repeat(32) },
      allowHttpLoopback: true,
      allowedHosts: [],
    });
    expect(loadWorkerConfig(env).webhooks).toEqual({
      secrets: {},
      allowHttpLoopback: false,
      allowedHosts: [],
    });
  });

  it('reads WEBHOOK_ALLOWED_HOSTS as a comma-separated list, and names the variable for a bad entry', () => {
    expect(
      loadWorkerConfig({
        ...env,
        WEBHOOK_ALLOWED_HOSTS: ' Hooks.Example.com, *.partner.example,,[2001:db8::7] ',
      }).webhooks.allowedHosts,
    ).toEqual(['hooks.example.com', '*.partner.example', '[2001:db8::7]']);
    expect(() =>
      loadWorkerConfig({ ...env, WEBHOOK_ALLOWED_HOSTS: 'hooks.example.com,https://hooks.example.com/x' }),
    ).toThrow(
      'WEBHOOK_ALLOWED_HOSTS: "https://hooks.example.com/x" is not a host name, *.domain or IP address with an optional :port (hosts are separated by commas)',
    );
  });

  it('refuses a file that is not JSON, or a short secret, naming the variable but never a secret', () => {
    const broken = fileWith('broken.json', '{ "default": "zzzzzzzzzzzzzzzzzzzz"');
    expect(() => loadWorkerConfig({ ...env, WEBHOOK_SECRETS_FILE: broken })).toThrow(
      new ConfigError(`WEBHOOK_SECRETS_FILE: ${broken} is not valid JSON`),
    );
    const short = fileWith('short.json', JSON.stringify({ default: 'tiny-secret' }));
    const refusal = (): unknown => loadWorkerConfig({ ...env, WEBHOOK_SECRETS_FILE: short });
    expect(refusal).toThrow(
      'WEBHOOK_SECRETS_FILE: entry 1: the secret must be at least 16 characters (is the secret where the client id belongs?)',
    );
    expect(refusal).not.toThrow(/tiny-secret/);
  });

  it('reports a file with client id and secret swapped by the entry’s position, never printing the secret', () => {
    for (const secret of [
      'k3y-0f-cl13nt-4-and-long-enough',
      'a+long/base64=secret+that+is/no=id',
      'x'.repeat(70),
    ]) {
      const swapped = fileWith(
        'swapped.json',
        JSON.stringify({ default: 'zzzzzzzzzzzzzzzzzzzz', [secret]: 'client-a' }),
      );
      let message = '';
      try {
        loadWorkerConfig({ ...env, WEBHOOK_SECRETS_FILE: swapped });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(
        /^Invalid configuration: WEBHOOK_SECRETS_FILE: entry 2: the (secret|client id) must/,
      );
      expect(message).not.toContain(secret);
      expect(message).not.toContain(secret.slice(0, 8));
    }
  });
});

describe('webhookSignature', () => {
  it('is v1= and the hex HMAC-SHA256 of "<timestamp>.<body>"', () => {
    const body = '{"id":"evt_1"}';
    expect(webhookSignature('a-secret-of-16-chars', 1_700_000_000, body)).toBe(
      `v1=${createHmac('sha256', 'a-secret-of-16-chars').update(`1700000000.${body}`).digest('hex')}`,
    );
  });
});
