/**
 * The API's configuration from the environment: the settings it shares with the workers are read as the workers
 * read them, and every refusal names the variable to fix.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuthenticator } from '../../src/api/auth';
import { loadApiConfig } from '../../src/api/config';
import { ConfigError } from '../../src/config';

/** Enough for the API to start: callers authenticate with OIDC (no keys file needed); payloads in clear. */
const OIDC = {
  API_OIDC_JWKS_URL: 'https://issuer.example/jwks.json',
  API_OIDC_ISSUER: 'https://issuer.example',
  API_OIDC_AUDIENCE: 'badge-orders-api',
  PAYLOAD_ENCRYPTION: 'off',
};

function refusal(env: Record<string, string>): string {
  try {
    loadApiConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('loadApiConfig', () => {
  it('reads the document store, the document limit and the webhook settings as the workers do', () => {
    const config = loadApiConfig({
      ...OIDC,
      DOCUMENTS_ROOT: '/srv/documents',
      MAX_DOCUMENT_BYTES: '1048576',
      WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
      WEBHOOK_ALLOWED_HOSTS: 'hooks.example.com, *.partner.example',
      DOCUMENT_STORE: 's3',
      DOCUMENT_STORE_S3_BUCKET: 'badge-documents',
    });
    expect(config.documents.documentsRoot).toBe('/srv/documents');
    expect(config.documents.maxDocumentBytes).toBe(1_048_576);
    expect(config.documents.store).toMatchObject({
      kind: 's3',
      bucket: 'badge-documents',
      allowInsecureHttp: false,
    });
    expect(config.webhooks.allowHttpLoopback).toBe(true);
    expect(config.webhooks.allowedHosts).toEqual(['hooks.example.com', '*.partner.example']);
    expect(loadApiConfig(OIDC).documents.store).toEqual({ kind: 'local' });
    expect(loadApiConfig(OIDC).webhooks.allowHttpLoopback).toBe(false);
    expect(loadApiConfig(OIDC).webhooks.allowedHosts).toEqual([]);
  });

  it('names the variable of each invalid shared setting', () => {
    expect(refusal({ ...OIDC, DOCUMENT_STORE: 's3' })).toContain('DOCUMENT_STORE_S3_BUCKET');
    expect(refusal({ ...OIDC, DOCUMENT_STORE: 'ftp' })).toContain('DOCUMENT_STORE:');
    expect(refusal({ ...OIDC, MAX_DOCUMENT_BYTES: '-1' })).toContain('MAX_DOCUMENT_BYTES:');
    expect(refusal({ ...OIDC, WEBHOOK_ALLOW_HTTP_LOOPBACK: 'maybe' })).toContain(
      'WEBHOOK_ALLOW_HTTP_LOOPBACK:',
    );
    expect(refusal({ ...OIDC, WEBHOOK_ALLOWED_HOSTS: 'hooks example' })).toContain('WEBHOOK_ALLOWED_HOSTS:');
    expect(refusal({ ...OIDC, WEBHOOK_ALLOWED_HOSTS: '*,hooks.example.com' })).toContain(
      'WEBHOOK_ALLOWED_HOSTS: "*" allows any host',
    );
    expect(refusal({ ...OIDC, ENSURE_SEARCH_ATTRIBUTES: 'maybe' })).toContain('ENSURE_SEARCH_ATTRIBUTES:');
  });

  it('refuses a keys file that lists a key id twice, naming each repeat', () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-keys-'));
    try {
      const file = join(dir, 'keys.json');
      const key = (id: string) => ({ id, sha256: '0'.repeat(64), scopes: ['ops'] });
      writeFileSync(file, JSON.stringify({ keys: [key('a'), key('b'), key('a'), key('a')] }));
      expect(refusal({ ...OIDC, API_KEYS_FILE: file })).toBe(
        'Invalid configuration: API_KEYS_FILE.keys.2.id: is listed twice; API_KEYS_FILE.keys.3.id: is listed twice',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a key whose client would be "default", the webhook secret of orders without a client', () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-keys-'));
    try {
      const file = join(dir, 'keys.json');
      const key = { sha256: '0'.repeat(64), scopes: ['orders:write'] };
      writeFileSync(
        file,
        JSON.stringify({
          keys: [
            { id: 'default', ...key },
            { id: 'b', client: 'default', ...key },
            { id: 'default-key', ...key },
            { id: 'c', client: 'default-client', ...key },
          ],
        }),
      );
      const message =
        'must not name the client "default" (the webhook secret of orders without a client): give the key another client';
      expect(refusal({ ...OIDC, API_KEYS_FILE: file })).toBe(
        `Invalid configuration: API_KEYS_FILE.keys.0.id: ${message}; API_KEYS_FILE.keys.1.client: ${message}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads API_TRUST_PROXY as the proxies’ addresses or CIDRs, and refuses anything else naming it', () => {
    expect(loadApiConfig(OIDC).limits.trustProxy).toBeUndefined();
    expect(
      loadApiConfig({ ...OIDC, API_TRUST_PROXY: '127.0.0.1, 10.1.0.0/16,fd00::/8' }).limits.trustProxy,
    ).toEqual(['127.0.0.1', '10.1.0.0/16', 'fd00::/8']);
    expect(refusal({ ...OIDC, API_TRUST_PROXY: '10.0.0.7,1,10.0.0.0/33' })).toBe(
      'Invalid configuration: API_TRUST_PROXY.1: "1" is not an IP address or CIDR (separate them by commas); ' +
        'API_TRUST_PROXY.2: "10.0.0.0/33" is not an IP address or CIDR (separate them by commas)',
    );
  });

  it('names the clients that may carry ops by the client ids of tokens, and refuses a bare claim value', () => {
    const config = loadApiConfig({
      ...OIDC,
      API_OIDC_OPS_CLIENTS: 'oidc:console, oidc-sub:alice',
      API_OIDC_OPS_ROLES: 'badge-operator',
      API_OIDC_ROLES_CLAIM: 'realm_access.roles',
    });
    expect(config.oidc).toMatchObject({
      opsClients: ['oidc:console', 'oidc-sub:alice'],
      opsRoles: ['badge-operator'],
      rolesClaim: 'realm_access.roles',
    });
    expect(refusal({ ...OIDC, API_OIDC_OPS_CLIENTS: 'console' })).toContain(
      'API_OIDC_OPS_CLIENTS.0: "console" is not the client id of a token: oidc:<azp or client_id> or oidc-sub:<sub>',
    );
  });

  it('reads the order options API clients may set, with their ceilings, and refuses an unknown one', () => {
    expect(loadApiConfig(OIDC).limits.orderOptions).toEqual({
      maxParallelUploads: 4,
      uploadRetryWindowMs: 1_800_000,
      platformRetryWindowMs: 86_400_000,
      repairWindowMs: null,
      reconciliationWindowMs: null,
      replacementGraceMs: null,
    });
    expect(
      loadApiConfig({ ...OIDC, API_ORDER_OPTIONS: 'maxParallelUploads=8, historyBudgetEvents' }).limits
        .orderOptions,
    ).toEqual({ maxParallelUploads: 8, historyBudgetEvents: null });
    expect(loadApiConfig({ ...OIDC, API_ORDER_OPTIONS: 'none' }).limits.orderOptions).toEqual({});
    expect(refusal({ ...OIDC, API_ORDER_OPTIONS: 'parallel=4' })).toContain(
      'API_ORDER_OPTIONS.0: "parallel" is not an order option (maxParallelUploads, ',
    );
    expect(refusal({ ...OIDC, API_ORDER_OPTIONS: 'maxParallelUploads=many' })).toContain(
      'API_ORDER_OPTIONS.0: "maxParallelUploads=many": the ceiling must be a whole number',
    );
  });

  it('takes WEBHOOK_ALLOWED_HOSTS=* as any host, said on purpose', () => {
    expect(loadApiConfig({ ...OIDC, WEBHOOK_ALLOWED_HOSTS: '*' }).webhooks.allowedHosts).toEqual([]);
  });

  it('listens on 8090, beside the Temporal Web UI’s 8080, and adds the search attributes unless told not to', () => {
    expect(loadApiConfig(OIDC)).toMatchObject({ port: 8090, ensureSearchAttributes: true });
    expect(loadApiConfig({ ...OIDC, ENSURE_SEARCH_ATTRIBUTES: 'false' }).ensureSearchAttributes).toBe(false);
  });

  it('fetches the OIDC keys over https:// only (http:// on loopback), from the environment and in code', () => {
    const insecure = 'http://idp.example/jwks.json';
    expect(refusal({ ...OIDC, API_OIDC_JWKS_URL: insecure })).toBe(
      'Invalid configuration: API_OIDC_JWKS_URL: must be an https:// URL (http:// only on loopback)',
    );
    expect(loadApiConfig({ ...OIDC, API_OIDC_JWKS_URL: 'http://127.0.0.1:9000/jwks' }).oidc?.jwksUrl).toBe(
      'http://127.0.0.1:9000/jwks',
    );
    const oidc = { jwksUrl: insecure, issuer: 'https://idp.example', audience: 'api', algorithms: ['ES256'] };
    expect(() => createAuthenticator({ apiKeys: [], oidc: { ...oidc, clockToleranceSeconds: 0 } })).toThrow(
      new ConfigError('API_OIDC_JWKS_URL must be an https:// URL (http:// only on loopback)'),
    );
  });
});
