/**
 * Whose documents they are: the owner comes from the configuration or from the token's claims, a numeric user
 * id ahead of a UUID `sub`, every digit kept; `ops probe` gets claim names, never values.
 */
import { createPlatformClient } from '../../src/platform';
import { decodeTokenPayload, describeClaims, documentOwnerFrom } from '../../src/platform/owner';
import type { DocumentOwnerSetting } from '../../src/platform/owner';
import { TokenCache } from '../../src/platform/token-cache';
import { BASE_URL, fakeHttp, makeJwt, PASSWORD, USERNAME } from './fake-http';

const UUID = '8f14e45f-ceea-467a-9575-5d6e4b2c1a90';

describe('documentOwnerFrom', () => {
  it.each<[string, Record<string, unknown>, { id: string; source: string } | null]>([
    [
      'a numeric sub (the reference platform)',
      { sub: '4711' },
      { id: '4711', source: 'claim sub (default chain)' },
    ],
    [
      'user_id beside a UUID sub (Keycloak style)',
      { sub: UUID, user_id: 4711 },
      { id: '4711', source: 'claim user_id (default chain)' },
    ],
    ['uid as a string', { sub: UUID, uid: '4711' }, { id: '4711', source: 'claim uid (default chain)' }],
    [
      'a numeric preferred_username after a UUID sub',
      { sub: UUID, preferred_username: '4711' },
      { id: '4711', source: 'claim preferred_username (default chain)' },
    ],
    [
      'a UUID sub alone (the platform decides)',
      { sub: UUID },
      { id: UUID, source: 'claim sub (default chain)' },
    ],
    [
      'one id named by two claims',
      { sub: '4711', user_id: '4711' },
      { id: '4711', source: 'claim user_id (default chain)' },
    ],
    [
      'nothing when two claims name different ids (an LDAP uid beside sub)',
      { sub: '4711', uid: '1000' },
      null,
    ],
    ['a user name is never an id', { preferred_username: 'demo' }, null],
    ['no claims', {}, null],
  ])('takes %s', (_name, claims, expected) => {
    expect(documentOwnerFrom(decodeTokenPayload(makeJwt(claims)))).toEqual(expected);
  });

  it('follows the configuration first: a fixed id, or the named claim (null when absent)', () => {
    const claims = decodeTokenPayload(makeJwt({ sub: UUID, user_id: 4711, employee: 99 }));
    expect(documentOwnerFrom(claims, { kind: 'fixed', id: '0815' })).toEqual({
      id: '0815',
      source: 'BADGE_DOCUMENT_OWNER',
    });
    expect(documentOwnerFrom(claims, { kind: 'claim', claim: 'employee' })).toEqual({
      id: '99',
      source: 'claim employee (BADGE_USER_ID_CLAIM)',
    });
    expect(documentOwnerFrom(claims, { kind: 'claim', claim: 'missing' })).toBeNull();
  });

  it('keeps every digit of a numeric id beyond 2^53', () => {
    const token = `${makeJwt({}).split('.')[0]}.${Buffer.from('{"sub":"x","user_id":12345678901234567891}').toString('base64url')}.sig`;
    expect(documentOwnerFrom(decodeTokenPayload(token))?.id).toBe('12345678901234567891');
  });
});

describe('describeClaims', () => {
  it('names the claims and the one that looks like the user id, never a value', () => {
    const report = describeClaims(
      decodeTokenPayload(makeJwt({ sub: UUID, user_id: 4711, exp: 1_900_000_000, scope: 'badge' })),
    );
    expect(report).toEqual({
      names: ['sub', 'user_id', 'exp', 'scope'],
      userIdClaim: 'user_id',
      subNumeric: false,
    });
    expect(JSON.stringify(report)).not.toContain('4711');
    expect(JSON.stringify(report)).not.toContain(UUID);
  });

  it('finds a numeric id claim outside the default chain by its name, but never a time claim', () => {
    expect(
      describeClaims(decodeTokenPayload(makeJwt({ sub: UUID, account_id: '77', iat: 5 }))).userIdClaim,
    ).toBe('account_id');
    expect(describeClaims(decodeTokenPayload(makeJwt({ sub: UUID, iat: 5, exp: 9 }))).userIdClaim).toBeNull();
    expect(describeClaims(decodeTokenPayload('not-a-jwt'))).toEqual({
      names: [],
      userIdClaim: null,
      subNumeric: null,
    });
  });
});

describe('authenticate', () => {
  const token = makeJwt({ sub: UUID, user_id: 4711, exp: 1_900_000_000, iat: 1_899_999_000 });
  const clientWith = (documentOwner?: DocumentOwnerSetting) =>
    createPlatformClient({
      baseUrl: BASE_URL,
      credentials: { username: USERNAME, password: PASSWORD },
      http: fakeHttp(() => ({ status: 200, body: { access_token: token } })).http,
      tokenCache: new TokenCache(),
      ...(documentOwner !== undefined && { documentOwner }),
    });

  it('returns the owner the configuration and the token decide on, and the claim names', async () => {
    const session = await clientWith().authenticate();
    expect(session.documentOwner).toEqual({ id: '4711', source: 'claim user_id (default chain)' });
    expect(session.claims).toEqual({
      names: ['sub', 'user_id', 'exp', 'iat'],
      userIdClaim: 'user_id',
      subNumeric: false,
    });
    expect(session.userId).toBe(UUID);
    expect((await clientWith({ kind: 'fixed', id: '0815' }).authenticate()).documentOwner?.id).toBe('0815');
  });

  it('refuses an empty owner setting', () => {
    expect(() => clientWith({ kind: 'claim', claim: ' ' })).toThrow(/documentOwner.claim/);
  });
});
