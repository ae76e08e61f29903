/**
 * Either kind of credentials (issue 57; spec: "either a client id and secret or user credentials"): user
 * credentials exactly as before, or a client id and secret, never both, never half of one; every refusal names the
 * variables, and no message holds a secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadPlatformConfig } from '../src/config';
import { documentOwnerWarning } from '../src/worker/platform-client';

const USER = { BADGE_USERNAME: 'demo', BADGE_PASSWORD: 'a-platform-password' } as const;
const CLIENT = { BADGE_CLIENT_ID: 'demo-client', BADGE_CLIENT_SECRET: 'a-client-secret' } as const;

/** The message of the configuration error `env` gives. */
function refusal(env: Record<string, string>): string {
  try {
    loadPlatformConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('platform credentials', () => {
  it('keeps user credentials as they were: the spec’s token path, no client', () => {
    const config = loadPlatformConfig(USER);
    expect(config.credentials).toEqual({ username: 'demo', password: 'a-platform-password' });
    expect(config.tokenPath).toBe('/iam/api/v1/auth/jwt');
    expect(documentOwnerWarning(config)).toBeUndefined();
  });

  it('takes a client id and secret, HTTP Basic by default, body on request, the token path configurable', () => {
    expect(loadPlatformConfig(CLIENT).credentials).toEqual({
      clientId: 'demo-client',
      clientSecret: 'a-client-secret',
      clientAuth: 'basic',
    });
    const body = loadPlatformConfig({
      ...CLIENT,
      BADGE_CLIENT_AUTH: 'body',
      BADGE_TOKEN_PATH: '/oauth/token',
    });
    expect(body.credentials).toMatchObject({ clientAuth: 'body' });
    expect(body.tokenPath).toBe('/oauth/token');
    expect(refusal({ ...CLIENT, BADGE_CLIENT_AUTH: 'header' })).toMatch(/BADGE_CLIENT_AUTH: /);
    expect(refusal({ ...CLIENT, BADGE_TOKEN_PATH: 'oauth/token?x=1' })).toMatch(
      /BADGE_TOKEN_PATH: must be a path starting with \//,
    );
  });

  it('reads the client secret from BADGE_CLIENT_SECRET_FILE, as BADGE_PASSWORD_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-secret-'));
    try {
      const file = join(dir, 'badge_client_secret');
      writeFileSync(file, 'secret-from-a-file\n');
      expect(
        loadPlatformConfig({ BADGE_CLIENT_ID: 'demo-client', BADGE_CLIENT_SECRET_FILE: file }).credentials,
      ).toMatchObject({ clientSecret: 'secret-from-a-file' });
      expect(
        refusal({ BADGE_CLIENT_ID: 'demo-client', BADGE_CLIENT_SECRET_FILE: join(dir, 'missing') }),
      ).toMatch(/BADGE_CLIENT_SECRET_FILE: cannot read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses neither kind, naming both kinds’ variables', () => {
    const message = refusal({});
    expect(message).toMatch(
      /BADGE_USERNAME: is required \(with BADGE_PASSWORD\), or set BADGE_CLIENT_ID and BADGE_CLIENT_SECRET/,
    );
    expect(message).toMatch(/BADGE_PASSWORD: is required/);
  });

  it('refuses both kinds at once, naming the variables, without a secret in the message', () => {
    const message = refusal({ ...USER, ...CLIENT });
    expect(message).toMatch(
      /BADGE_CLIENT_ID: must not be set together with BADGE_USERNAME or BADGE_PASSWORD/,
    );
    expect(refusal({ BADGE_PASSWORD: 'a-platform-password', ...CLIENT })).toMatch(
      /BADGE_CLIENT_ID: must not/,
    );
    expect(message).not.toContain('a-client-secret');
    expect(message).not.toContain('a-platform-password');
  });

  it('refuses half of either kind, naming what is missing', () => {
    expect(refusal({ BADGE_CLIENT_ID: 'demo-client' })).toMatch(
      /BADGE_CLIENT_SECRET: is required with BADGE_CLIENT_ID/,
    );
    expect(refusal({ BADGE_CLIENT_SECRET: 'a-client-secret' })).toMatch(
      /BADGE_CLIENT_ID: is required with BADGE_CLIENT_SECRET/,
    );
    expect(refusal({ BADGE_USERNAME: 'demo' })).toMatch(/BADGE_PASSWORD: is required/);
  });

  it('says at start, naming BADGE_DOCUMENT_OWNER, that a client’s token names no user when no owner is set', () => {
    expect(documentOwnerWarning(loadPlatformConfig(CLIENT))).toMatch(/BADGE_DOCUMENT_OWNER is not set/);
    expect(
      documentOwnerWarning(loadPlatformConfig({ ...CLIENT, BADGE_DOCUMENT_OWNER: '4711' })),
    ).toBeUndefined();
    expect(
      documentOwnerWarning(loadPlatformConfig({ ...CLIENT, BADGE_USER_ID_CLAIM: 'user_id' })),
    ).toBeUndefined();
  });
});
