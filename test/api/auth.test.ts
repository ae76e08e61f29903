/**
 * Who a bearer token is: its client, in a name space per claim, and its scopes, where `ops` (every client's
 * orders) takes the operators' configuration as well as the token's own scope claim. Against an issuer whose
 * JWKS is served on loopback (no Temporal).
 */
import { createAuthenticator, type Principal } from '../../src/api/auth';
import type { OidcConfig } from '../../src/api/config';
import { OIDC_AUDIENCE, OIDC_ISSUER, startTestIssuer, type TestIssuer } from './api-server';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(() => issuer.close());

/** The principal of a token with `claims` (subject `backend-x` unless they name another), under `settings`. */
async function principalOf(
  claims: Record<string, unknown>,
  settings: Partial<Pick<OidcConfig, 'opsClients' | 'opsRoles' | 'rolesClaim'>> = {},
): Promise<Principal> {
  const authenticator = createAuthenticator({
    apiKeys: [],
    oidc: {
      jwksUrl: issuer.jwksUrl,
      issuer: OIDC_ISSUER,
      audience: OIDC_AUDIENCE,
      algorithms: ['ES256'],
      clockToleranceSeconds: 0,
      ...settings,
    },
  });
  const token = await issuer.sign(claims);
  return authenticator.authenticate({ authorization: `Bearer ${token}` });
}

const ALL = 'orders:write orders:read ops';

describe('OIDC bearer tokens', () => {
  it('grants ops only to configured clients or roles, whatever scopes the token asked for', async () => {
    // An identity provider that grants any scope asked for: the token says ops, nobody configured it.
    expect(await principalOf({ scope: ALL, azp: 'web-app' })).toEqual({
      clientId: 'oidc:web-app',
      scopes: ['orders:write', 'orders:read'],
    });
    expect(
      (await principalOf({ scope: ALL, azp: 'web-app' }, { opsClients: ['oidc:console'] })).scopes,
    ).toEqual(['orders:write', 'orders:read']);
    expect(
      (await principalOf({ scope: ALL, azp: 'console' }, { opsClients: ['oidc:console'] })).scopes,
    ).toEqual(['orders:write', 'orders:read', 'ops']);
    // A subject is listed by its own name space: the same name as a client's is not that client.
    expect(
      (await principalOf({ scope: ALL, sub: 'console' }, { opsClients: ['oidc:console'] })).scopes,
    ).not.toContain('ops');
    expect(
      (await principalOf({ scope: 'ops', sub: 'alice' }, { opsClients: ['oidc-sub:alice'] })).scopes,
    ).toEqual(['ops']);

    // Roles: the default claim, a nested one, a list or a space-separated string; another role is not enough.
    const byRole = { opsRoles: ['badge-operator'] };
    expect((await principalOf({ scope: ALL, roles: ['badge-operator'] }, byRole)).scopes).toContain('ops');
    expect((await principalOf({ scope: ALL, roles: 'viewer badge-operator' }, byRole)).scopes).toContain(
      'ops',
    );
    expect((await principalOf({ scope: ALL, roles: ['viewer'] }, byRole)).scopes).not.toContain('ops');
    const nested = { ...byRole, rolesClaim: 'realm_access.roles' };
    expect(
      (await principalOf({ scope: ALL, realm_access: { roles: ['badge-operator'] } }, nested)).scopes,
    ).toContain('ops');
    expect((await principalOf({ scope: ALL, roles: ['badge-operator'] }, nested)).scopes).not.toContain(
      'ops',
    );
    // The role lets a token carry ops; it does not add ops to a token that did not ask for it.
    expect((await principalOf({ scope: 'orders:read', roles: ['badge-operator'] }, byRole)).scopes).toEqual([
      'orders:read',
    ]);
  });

  it('keeps client ids from different claims apart: a sub never equals another caller’s azp or client_id', async () => {
    const scope = 'orders:read';
    expect((await principalOf({ scope, azp: 'backend-x' })).clientId).toBe('oidc:backend-x');
    expect((await principalOf({ scope, client_id: 'backend-x' })).clientId).toBe('oidc:backend-x');
    expect((await principalOf({ scope })).clientId).toBe('oidc-sub:backend-x');
    // Too long for a client id: a hash, still in its own name space.
    const long = 'u'.repeat(80);
    expect((await principalOf({ scope, sub: long })).clientId).toMatch(/^oidc-sub:sha256-[0-9a-f]{48}$/);
    expect((await principalOf({ scope, azp: long })).clientId).toMatch(/^oidc:sha256-[0-9a-f]{48}$/);
  });
});
