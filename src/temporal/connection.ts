/**
 * Client connections to Temporal from configuration: plain for a local dev server, mTLS or an API key for a
 * secured cluster or Temporal Cloud, as the connection profile says. Loads no native worker code, so backend
 * code can use it; the worker's own connection (`src/worker/create-worker.ts`) takes the same options.
 */
import { toClientOptions } from '@temporalio/envconfig';
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { createDataConverter } from '../codec/data-converter';
import type { TemporalConfig } from '../config';

/** The options both connection kinds share. */
type SharedConnectionOptions = Pick<ConnectionOptions, 'address' | 'tls' | 'apiKey' | 'metadata'>;

/** Connection options from configuration (certificate files are read here, so errors name the file). */
export function connectionOptions(config: TemporalConfig): SharedConnectionOptions {
  const { tls, apiKey, metadata } = toClientOptions({
    ...config.profile,
    address: config.address,
    namespace: config.namespace,
  }).connectionOptions;
  return { address: config.address, tls, apiKey, metadata };
}

/**
 * Connects a client (starter, operator CLI, backend code) to Temporal, with the payload codec and failure
 * converter of the configuration: what it sends is encrypted, what it reads is decrypted.
 */
export async function connectClient(config: TemporalConfig): Promise<Client> {
  return clientOn(await Connection.connect(connectionOptions(config)), config);
}

/**
 * A client that connects on its first call, for command-line tools whose `--help` or argument errors must
 * not need a reachable server.
 */
export function lazyClient(config: TemporalConfig): Client {
  return clientOn(Connection.lazy(connectionOptions(config)), config);
}

function clientOn(connection: Connection, config: TemporalConfig): Client {
  return new Client({
    connection,
    namespace: config.namespace,
    dataConverter: createDataConverter(config.codec.payloadKeys),
  });
}
