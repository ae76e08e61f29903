/** The platform client as configured for this service: the worker's and the probe's are built alike. */
import type { PlatformConfig } from '../config';
import { createPlatformClient, type PlatformClient, type PlatformClientOptions } from '../platform';

/** Builds the platform client from the parsed platform settings. */
export function platformClientFromConfig(
  config: PlatformConfig,
  hooks: Pick<PlatformClientOptions, 'logger' | 'onRequest'> = {},
): PlatformClient {
  return createPlatformClient({
    baseUrl: config.baseUrl,
    credentials: { username: config.username, password: config.password },
    timeouts: {
      requestMs: config.requestTimeoutMs,
      uploadMs: config.uploadTimeoutMs,
      ...(config.uploadStallMs !== undefined && { uploadStallMs: config.uploadStallMs }),
      ...(config.minUploadBytesPerSecond !== undefined && {
        minUploadBytesPerSecond: config.minUploadBytesPerSecond,
      }),
    },
    ...(config.responseMap !== undefined && { responseMap: config.responseMap }),
    ...hooks,
  });
}
