/**
 * `npm run codec-server`: serves the payload codec to the Temporal Web UI and CLI. Configuration from the
 * environment (`src/config.ts`, `loadCodecServerConfig`); SIGINT/SIGTERM stop it.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, loadCodecServerConfig } from '../config';
import { createLogger } from '../logging';
import { CodecServerOptionsError, startCodecServer } from '../codec/codec-server';
import { PayloadKeysError } from '../codec/key-ring';
import { UiAccessTokenConfigError, uiAccessTokenVerifierFromSettings } from '../codec/ui-access-token';
import { runMain } from './run-main';

async function main(): Promise<void> {
  const config = loadCodecServerConfig(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'badge-orders-codec-server' });
  const server = await startCodecServer({
    keys: config.payloadKeys,
    corsOrigin: config.corsOrigin,
    port: config.port,
    host: config.host,
    token: config.token,
    // Refuses to start when UI tokens are on without JWKS, issuer and audience.
    verifyUiAccessToken: uiAccessTokenVerifierFromSettings(config),
    ...(config.tlsCertFile && config.tlsKeyFile
      ? { tls: { cert: readFileSync(config.tlsCertFile), key: readFileSync(config.tlsKeyFile) } }
      : {}),
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

runMain(main, {
  messageOnly: [ConfigError, CodecServerOptionsError, PayloadKeysError, UiAccessTokenConfigError],
});
