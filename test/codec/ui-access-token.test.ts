/**
 * The Web UI's passed access token at the codec server: only a JWT of the configured identity provider, for
 * the configured issuer and audience, unexpired, opens the payloads; switching UI tokens on without issuer
 * and audience is refused at start-up. Real HTTP on port 0 (the codec server, and a JWKS endpoint standing in
 * for the provider's); tokens are signed with keys made in the test.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  SignJWT,
  UnsecuredJWT,
  type JWK,
  type KeyLike,
} from 'jose';
import { startCodecServer, type RunningCodecServer } from '../../src/codec/codec-server';
import { generatePayloadKeyEntry, parsePayloadKeys } from '../../src/codec/key-ring';
import {
  jwtAccessTokenVerifier,
  UiAccessTokenConfigError,
  uiAccessTokenVerifierFromSettings,
  type UiAccessTokenOptions,
} from '../../src/codec/ui-access-token';
import { loadCodecServerConfig } from '../../src/config';

const UI_ORIGIN = 'https://temporal-ui.example';
const ISSUER = 'https://idp.example/realms/ops';
const AUDIENCE = 'temporal-ui';
const PAYLOAD_KEYS = generatePayloadKeyEntry('ui-token');
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

interface Claims {
  readonly issuer?: string;
  readonly audience?: string;
  /** Seconds since the epoch; null for none. @default in five minutes */
  readonly expiresAt?: number | null;
  readonly notBefore?: number;
}

describe('the Web UI’s access token', () => {
  let provider: { publicKey: KeyLike; privateKey: KeyLike };
  let stranger: { publicKey: KeyLike; privateKey: KeyLike };
  let jwk: JWK;

  const sign = (claims: Claims = {}, key: KeyLike = provider.privateKey): Promise<string> => {
    const jwt = new SignJWT({ sub: 'operator@example.com' })
      .setProtectedHeader({ alg: 'RS256', kid: 'provider-key' })
      .setIssuedAt()
      .setIssuer(claims.issuer ?? ISSUER)
      .setAudience(claims.audience ?? AUDIENCE);
    const expiresAt = claims.expiresAt === undefined ? nowSeconds() + 300 : claims.expiresAt;
    if (expiresAt !== null) jwt.setExpirationTime(expiresAt);
    if (claims.notBefore !== undefined) jwt.setNotBefore(claims.notBefore);
    return jwt.sign(key);
  };

  beforeAll(async () => {
    provider = await generateKeyPair('RS256');
    stranger = await generateKeyPair('RS256');
    jwk = { ...(await exportJWK(provider.publicKey)), alg: 'RS256', kid: 'provider-key', use: 'sig' };
  });

  describe('at the codec server', () => {
    let server: RunningCodecServer;

    beforeAll(async () => {
      server = await startCodecServer({
        keys: parsePayloadKeys(PAYLOAD_KEYS),
        corsOrigin: UI_ORIGIN,
        port: 0,
        verifyUiAccessToken: jwtAccessTokenVerifier({
          keys: createLocalJWKSet({ keys: [jwk] }),
          issuer: ISSUER,
          audience: AUDIENCE,
        }),
      });
    });
    afterAll(async () => {
      await server?.close();
    });

    const decodeWith = async (token: string): Promise<number> =>
      (
        await fetch(`${server.url}/decode`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            origin: UI_ORIGIN,
            authorization: `Bearer ${token}`,
          },
          body: '{}',
        })
      ).status;

    it('accepts a token of the provider for the UI', async () => {
      expect(await decodeWith(await sign())).toBe(200);
    });

    it.each<[string, () => Promise<string>]>([
      ['another issuer', () => sign({ issuer: 'https://other-idp.example' })],
      ['another audience', () => sign({ audience: 'payroll-app' })],
      ['an expired token', () => sign({ expiresAt: nowSeconds() - 300 })],
      ['a token without expiry', () => sign({ expiresAt: null })],
      ['a token not valid yet', () => sign({ notBefore: nowSeconds() + 600 })],
      ['a token signed by another key', () => sign({}, stranger.privateKey)],
      [
        'an unsigned token',
        () =>
          Promise.resolve(
            new UnsecuredJWT({ sub: 'operator@example.com' })
              .setIssuer(ISSUER)
              .setAudience(AUDIENCE)
              .setExpirationTime(nowSeconds() + 300)
              .encode(),
          ),
      ],
      ['a token that is not a JWT', () => Promise.resolve('not-a-jwt')],
    ])('refuses %s with 401', async (_, token) => {
      expect(await decodeWith(await token())).toBe(401);
    });
  });

  it('cannot be checked without issuer and audience', () => {
    const keys = createLocalJWKSet({ keys: [] });
    const without = (options: Partial<UiAccessTokenOptions>) => () =>
      jwtAccessTokenVerifier({ keys, ...options } as UiAccessTokenOptions);
    expect(without({ audience: AUDIENCE })).toThrow(
      new UiAccessTokenConfigError('UI access tokens need an issuer to check them against'),
    );
    expect(without({ issuer: ISSUER })).toThrow(/need an audience/);
    expect(without({})).toThrow(/need an issuer and an audience/);
    expect(without({ issuer: ' ', audience: [] })).toThrow(/need an issuer and an audience/);
    expect(() =>
      uiAccessTokenVerifierFromSettings({
        allowUiAccessToken: true,
        uiJwksUrl: 'https://idp.example/jwks',
        uiTokenIssuer: ISSUER,
      }),
    ).toThrow(UiAccessTokenConfigError);
  });

  it('is refused at start-up when switched on without JWKS, issuer and audience', () => {
    const env = { PAYLOAD_KEYS, CODEC_SERVER_TOKEN: 'a-long-enough-token' };
    expect(uiAccessTokenVerifierFromSettings(loadCodecServerConfig(env))).toBeUndefined();
    // The configuration refuses it first, naming each missing variable…
    expect(() =>
      loadCodecServerConfig({
        ...env,
        CODEC_ALLOW_UI_ACCESS_TOKEN: 'true',
        CODEC_UI_JWKS_URL: 'https://idp.example/jwks',
      }),
    ).toThrow(
      /CODEC_UI_TOKEN_ISSUER: is required to check UI access tokens; CODEC_UI_TOKEN_AUDIENCE: is required/,
    );
    // …and the verifier refuses settings that bypassed it.
    const jwksOnly = { allowUiAccessToken: true, uiJwksUrl: 'https://idp.example/jwks' };
    expect(() => uiAccessTokenVerifierFromSettings(jwksOnly)).toThrow(
      new UiAccessTokenConfigError(
        'CODEC_ALLOW_UI_ACCESS_TOKEN=true needs CODEC_UI_TOKEN_ISSUER, CODEC_UI_TOKEN_AUDIENCE: without them any ' +
          'token of the identity provider would be accepted',
      ),
    );
    expect(() =>
      uiAccessTokenVerifierFromSettings({
        allowUiAccessToken: true,
        uiTokenIssuer: ISSUER,
        uiTokenAudience: AUDIENCE,
      }),
    ).toThrow(/needs CODEC_UI_JWKS_URL:/);
    expect(() =>
      uiAccessTokenVerifierFromSettings({
        allowUiAccessToken: true,
        uiJwksUrl: 'http://idp.example/jwks',
        uiTokenIssuer: ISSUER,
        uiTokenAudience: AUDIENCE,
      }),
    ).toThrow(/must be an https:\/\/ URL/);
  });

  it('is checked against the provider’s JWKS fetched over HTTP, as the codec server program does', async () => {
    const jwks: Server = createServer((request, response) => {
      if (request.url !== '/jwks') return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    try {
      const config = loadCodecServerConfig({
        PAYLOAD_KEYS,
        CODEC_ALLOW_UI_ACCESS_TOKEN: 'true',
        CODEC_UI_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`,
        CODEC_UI_TOKEN_ISSUER: ISSUER,
        CODEC_UI_TOKEN_AUDIENCE: AUDIENCE,
      });
      const verify = uiAccessTokenVerifierFromSettings(config);
      expect(verify).toBeDefined();
      expect(await verify?.(await sign())).toBe(true);
      expect(await verify?.(await sign({ issuer: 'https://other-idp.example' }))).toBe(false);
      expect(await verify?.(await sign({ audience: 'payroll-app' }))).toBe(false);
      expect(await verify?.(await sign({ expiresAt: nowSeconds() - 300 }))).toBe(false);
    } finally {
      jwks.closeAllConnections();
      await new Promise<void>((resolve) => jwks.close(() => resolve()));
    }
  });
});
