/**
 * Checks the access token the Temporal Web UI passes to the codec server (`passAccessToken`): a JWT signed by
 * the identity provider behind the UI, issued by that provider (`iss`) for this audience (`aud`), and not
 * expired. Issuer and audience are required: without them any token the provider ever issued — for any
 * application, to any user who can sign in there — would open every order's personal data.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { loadCodecServerConfig } from '../config';
import { insecureUrlProblem } from '../url-policy';
import type { AccessTokenVerifier } from './codec-server';

/** Signature algorithms accepted: the asymmetric ones identity providers sign with. */
const UI_TOKEN_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
]);

/**
 * Claims every access token must carry, for the codec server and the HTTP API alike: jose checks `exp` only
 * when present, so a token without one would be valid forever.
 */
export const REQUIRED_TOKEN_CLAIMS: readonly string[] = Object.freeze(['exp', 'iss', 'aud']);

export interface UiAccessTokenOptions {
  /** The provider's signing keys (`createRemoteJWKSet(url)`, or a local set in tests). */
  readonly keys: JWTVerifyGetKey;
  /** The `iss` the provider writes into its tokens, e.g. `https://login.example.com/realms/ops`. Required. */
  readonly issuer: string;
  /** The `aud` of tokens meant for the Web UI (one of them must match). Required. */
  readonly audience: string | readonly string[];
}

/** Thrown when UI access tokens are switched on without what it takes to check them; names the variables. */
export class UiAccessTokenConfigError extends Error {
  override readonly name = 'UiAccessTokenConfigError';
}

function requireIssuerAndAudience(options: Pick<UiAccessTokenOptions, 'issuer' | 'audience'>): void {
  // Checked at run time too: configuration reaches here from JavaScript and from optional settings.
  const audience = options.audience as string | readonly string[] | undefined;
  const audiences = audience === undefined ? [] : typeof audience === 'string' ? [audience] : audience;
  const missing = [
    ...(typeof options.issuer === 'string' && options.issuer.trim() !== '' ? [] : ['an issuer']),
    ...(audiences.length > 0 && audiences.every((audience) => audience.trim() !== '') ? [] : ['an audience']),
  ];
  if (missing.length > 0) {
    throw new UiAccessTokenConfigError(
      `UI access tokens need ${missing.join(' and ')} to check them against`,
    );
  }
}

/**
 * A verifier that accepts a JWT with a valid signature (one of {@link UI_TOKEN_ALGORITHMS}), the issuer, one of
 * the audiences, and an `exp` that has not passed. Throws {@link UiAccessTokenConfigError} without issuer or
 * audience.
 */
export function jwtAccessTokenVerifier(options: UiAccessTokenOptions): AccessTokenVerifier {
  requireIssuerAndAudience(options);
  const verifyOptions = {
    issuer: options.issuer,
    audience: typeof options.audience === 'string' ? options.audience : [...options.audience],
    algorithms: [...UI_TOKEN_ALGORITHMS],
    // Seconds of clock difference allowed for `exp` and `nbf`.
    clockTolerance: 30,
    requiredClaims: [...REQUIRED_TOKEN_CLAIMS],
  };
  return async (token) => {
    try {
      await jwtVerify(token, options.keys, verifyOptions);
      return true;
    } catch {
      return false;
    }
  };
}

/** The codec server's settings for the Web UI's access tokens (`CODEC_ALLOW_UI_ACCESS_TOKEN`, `CODEC_UI_*`). */
type UiAccessTokenSettings = Pick<
  ReturnType<typeof loadCodecServerConfig>,
  'allowUiAccessToken' | 'uiJwksUrl' | 'uiTokenIssuer' | 'uiTokenAudience'
>;

/**
 * The verifier the codec server's configuration asks for: undefined when UI access tokens are off. Throws
 * {@link UiAccessTokenConfigError} naming every variable missing when they are on.
 */
export function uiAccessTokenVerifierFromSettings(
  settings: UiAccessTokenSettings,
): AccessTokenVerifier | undefined {
  if (!settings.allowUiAccessToken) return undefined;
  const missing = [
    ['CODEC_UI_JWKS_URL', settings.uiJwksUrl],
    ['CODEC_UI_TOKEN_ISSUER', settings.uiTokenIssuer],
    ['CODEC_UI_TOKEN_AUDIENCE', settings.uiTokenAudience],
  ]
    .filter(([, value]) => value === undefined || value.trim() === '')
    .map(([name]) => name);
  const { uiJwksUrl, uiTokenIssuer, uiTokenAudience } = settings;
  if (missing.length > 0 || !uiJwksUrl || !uiTokenIssuer || !uiTokenAudience) {
    throw new UiAccessTokenConfigError(
      `CODEC_ALLOW_UI_ACCESS_TOKEN=true needs ${missing.join(', ')}: without them any token of the identity ` +
        'provider would be accepted',
    );
  }
  // The keys over HTTPS (HTTP on loopback for local providers): keys fetched in clear could be swapped on the way.
  const problem = insecureUrlProblem(uiJwksUrl);
  if (problem !== undefined) throw new UiAccessTokenConfigError(`CODEC_UI_JWKS_URL ${problem}`);
  return jwtAccessTokenVerifier({
    keys: createRemoteJWKSet(new URL(uiJwksUrl)),
    issuer: uiTokenIssuer,
    audience: uiTokenAudience,
  });
}
