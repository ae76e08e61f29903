/** The platform client as configured for this service: the worker's and the probe's are built alike. */
import { ConfigError, insecureBaseUrlReason, type PlatformConfig } from '../config';
import { createPlatformClient, type PlatformClient, type PlatformClientOptions } from '../platform';

export function platformClientFromConfig(
  config: PlatformConfig,
  hooks: Pick<PlatformClientOptions, 'logger' | 'onRequest'> = {},
): PlatformClient {
  // The parser checks BADGE_BASE_URL; a base URL given later (`ops probe --base-url`) is checked here.
  const reason = insecureBaseUrlReason(config.baseUrl, config.allowInsecureHttp);
  if (reason !== undefined) throw new ConfigError(`Invalid configuration: BADGE_BASE_URL: ${reason}`);
  return createPlatformClient({
    baseUrl: config.baseUrl,
    credentials: config.credentials,
    tokenPath: config.tokenPath,
    timeouts: {
      requestMs: config.requestTimeoutMs,
      uploadMs: config.uploadTimeoutMs,
      ...(config.uploadStallMs !== undefined && { uploadStallMs: config.uploadStallMs }),
      ...(config.minUploadBytesPerSecond !== undefined && {
        minUploadBytesPerSecond: config.minUploadBytesPerSecond,
      }),
    },
    ...(config.responseMap !== undefined && { responseMap: config.responseMap }),
    ...(config.requestProfile !== undefined && { requestProfile: config.requestProfile }),
    ...(config.tenantId !== undefined && { tenantId: config.tenantId }),
    ...(config.documentOwner !== undefined && {
      documentOwner: { kind: 'fixed', id: config.documentOwner },
    }),
    ...(config.userIdClaim !== undefined && { documentOwner: { kind: 'claim', claim: config.userIdClaim } }),
    ...hooks,
  });
}

/**
 * What the worker says at start when nothing will name the document owner: a token of client credentials names
 * no user, so only BADGE_DOCUMENT_OWNER (or an order's own documentOwner) can; `undefined` when all is well.
 */
export function documentOwnerWarning(config: PlatformConfig): string | undefined {
  if (!('clientId' in config.credentials)) return undefined;
  if (config.documentOwner !== undefined || config.userIdClaim !== undefined) return undefined;
  return 'client credentials (BADGE_CLIENT_ID): the token names no user and BADGE_DOCUMENT_OWNER is not set, so orders with documents fail unless they give their own documentOwner; set BADGE_DOCUMENT_OWNER to the platform user id';
}
