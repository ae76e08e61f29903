/**
 * The Badge Ordering Platform client: typed, streaming and self-healing (token caching, one re-authentication
 * on 401, tolerant response parsing, one error type). See `docs/platform-client.md`.
 */
export { createPlatformClient } from './client';
export type { PlatformClient, PlatformClientOptions, UploadSource } from './types';
export { probePlatform } from './probe';
export type { ProbeCall, ProbeReport } from './probe';
