/**
 * Checks the access token the Temporal Web UI passes to the codec server (`passAccessToken`): a JWT signed by
 * the identity provider behind the UI, with the expected issuer and audience.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { AccessTokenVerifier } from './codec-server';

export interface UiAccessTokenOptions {
  /** The provider's signing keys (`createRemoteJWKSet(url)`, or a local set in tests). */
  readonly keys: JWTVerifyGetKey;
  readonly issuer?: string;
  readonly audience?: string;
}

/** A verifier that accepts a JWT with a valid signature, issuer, audience and lifetime. */
export function jwtAccessTokenVerifier(options: UiAccessTokenOptions): AccessTokenVerifier {
  return async (token) => {
    try {
      await jwtVerify(token, options.keys, { issuer: options.issuer, audience: options.audience });
      return true;
    } catch {
      return false;
    }
  };
}

/** The verifier for a provider's JWKS URL. */
export function remoteJwksAccessTokenVerifier(
  jwksUrl: string,
  options: Omit<UiAccessTokenOptions, 'keys'> = {},
): AccessTokenVerifier {
  return jwtAccessTokenVerifier({ ...options, keys: createRemoteJWKSet(new URL(jwksUrl)) });
}
