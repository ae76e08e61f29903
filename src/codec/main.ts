/**
 * `npm run codec-server`: serves the payload codec to the Temporal Web UI and CLI. Configuration from the
 * environment (`src/config.ts`, `loadCodecServerConfig`); SIGINT/SIGTERM stop it.
 */
import { ConfigError, loadCodecServerConfig } from '../config';
import { createLogger } from '../logging';
import { startCodecServer } from './codec-server';
import { remoteJwksAccessTokenVerifier } from './ui-access-token';

async function main(): Promise<void> {
  const config = loadCodecServerConfig();
  const logger = createLogger({ level: config.logLevel, name: 'badge-orders-codec-server' });
  const server = await startCodecServer({
    keys: config.payloadKeys,
    corsOrigin: config.corsOrigin,
    port: config.port,
    host: config.host,
    token: config.token,
    verifyUiAccessToken:
      config.allowUiAccessToken && config.uiJwksUrl
        ? remoteJwksAccessTokenVerifier(config.uiJwksUrl, {
            issuer: config.uiTokenIssuer,
            audience: config.uiTokenAudience,
          })
        : undefined,
    logger,
  });
  logger.info(
    { url: server.url, corsOrigin: config.corsOrigin, keyIds: config.payloadKeys.ids },
    'codec server listening',
  );
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : error);
  process.exit(1);
});
