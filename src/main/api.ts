/**
 * `npm run api`: the HTTP API (src/api). Configuration from the environment (`src/api/config.ts`);
 * SIGINT/SIGTERM stop it after the requests in progress.
 *
 * `npm run api -- new-key <id> <scope…> [--client <client>]` prints a new API key (give it to the backend) and
 * the entry for the keys file (which holds only its SHA-256); `--client` names the client of a key that
 * replaces another (it then sees that client's orders and documents).
 */
import { Command } from 'commander';
import { BadgeOrdersClient } from '../client/badge-orders-client';
import { ConfigError, loadTracingConfig } from '../config';
import { startTracing } from '../tracing';
import { createLogger } from '../logging';
import { PayloadKeysError } from '../codec/key-ring';
import { buildApiApp } from '../api/app';
import { startDocumentCollector } from '../api/document-collector';
import { apiDocumentsFromConfig } from '../api/documents-plugin';
import { createAuthenticator, hashApiKey, newApiKey } from '../api/auth';
import { API_SCOPES, loadApiConfig, type ApiScope } from '../api/config';
import { connectClient } from '../temporal/connection';
import { ensureSearchAttributes } from '../temporal/search-attributes';
import { runMain } from './run-main';

async function serve(): Promise<void> {
  const config = loadApiConfig(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'badge-orders-api' });
  const client = await connectClient(config.temporal);
  if (config.ensureSearchAttributes) {
    try {
      logger.info(
        await ensureSearchAttributes(client.connection, config.temporal.namespace),
        'search attributes checked',
      );
    } catch (error) {
      // Credentials that may not manage search attributes (Temporal Cloud): orders answer 503 saying what to
      // run until someone adds them.
      logger.warn({ err: error }, 'could not make sure the search attributes exist');
    }
  }
  const tracing = await startTracing(loadTracingConfig(), { serviceName: 'badge-orders-api' });
  const orders = new BadgeOrdersClient({ client, taskQueue: config.temporal.taskQueue, tracing });
  const documents = await apiDocumentsFromConfig(config.documents);
  const app = await buildApiApp({
    orders,
    authenticator: createAuthenticator({ apiKeys: config.apiKeys, oidc: config.oidc }),
    limits: config.limits,
    logger,
    webhooks: config.webhooks,
    documents,
    tracing,
  });
  const url = await app.listen({ host: config.host, port: config.port });
  logger.info(
    {
      url,
      keyIds: config.apiKeys.map((key) => key.id),
      oidc: config.oidc !== undefined,
      documentStore: config.documents.store.kind,
    },
    'API listening',
  );
  const { graceMs, intervalMs } = config.documents.collection;
  const stopCollector =
    intervalMs > 0
      ? startDocumentCollector({ store: documents.store, orders, graceMs, intervalMs, logger })
      : () => Promise.resolve();
  const stop = (): void => {
    void stopCollector()
      .then(() => app.close())
      .then(() => client.connection.close())
      .then(() => tracing?.shutdown())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function newKey(id: string, scopes: readonly string[], client: string | undefined): void {
  const unknown = scopes.filter((scope) => !API_SCOPES.includes(scope as ApiScope));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new ConfigError(
      `scopes must be some of ${API_SCOPES.join(', ')}; got ${scopes.join(' ') || 'none'}`,
    );
  }
  const key = newApiKey();
  console.log(`API key (give it to the backend; it is not stored anywhere): ${key}`);
  console.log('Entry for the keys file:');
  const entry = { id, ...(client === undefined ? {} : { client }), sha256: hashApiKey(key), scopes };
  console.log(JSON.stringify(entry, null, 2));
}

async function main(argv: string[]): Promise<void> {
  const program = new Command().name('api').description('The badge-orders HTTP API.').action(serve);
  program
    .command('new-key')
    .description('print a new API key and its keys-file entry')
    .argument('<id>', 'the key id (A-Z a-z 0-9 . _ -)')
    .argument('<scopes...>', `scopes: ${API_SCOPES.join(', ')}`)
    .option('--client <client>', 'the client the key belongs to (default: its id)')
    .action((id: string, scopes: string[], options: { client?: string }) =>
      newKey(id, scopes, options.client),
    );
  await program.parseAsync(argv);
}

runMain(() => main(process.argv), { messageOnly: [ConfigError, PayloadKeysError] });
