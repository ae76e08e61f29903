/**
 * Connections to Temporal from configuration: plain for a local dev server, mTLS or an API key for a secured
 * cluster or Temporal Cloud. Used by the worker (NativeConnection) and by clients (Connection).
 */
import { readFileSync } from 'node:fs';
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import { createDataConverter } from '../codec/data-converter';
import type { TemporalConfig } from '../config';

type SharedOptions = Pick<ConnectionOptions, 'address' | 'tls' | 'apiKey'>;

/** Connection options from configuration (exported for tests: certificate files are read here). */
export function connectionOptions(config: TemporalConfig): SharedOptions {
  const tls = config.tls
    ? {
        serverNameOverride: config.tls.serverName,
        serverRootCACertificate: config.tls.serverRootCaPath
          ? readFileSync(config.tls.serverRootCaPath)
          : undefined,
        clientCertPair: {
          crt: readFileSync(config.tls.clientCertPath),
          key: readFileSync(config.tls.clientKeyPath),
        },
      }
    : undefined;
  return {
    address: config.address,
    // An API key is only ever sent over TLS.
    tls: tls ?? (config.apiKey ? true : undefined),
    apiKey: config.apiKey,
  };
}

/** Connects a worker to Temporal. */
export async function connectWorker(config: TemporalConfig): Promise<NativeConnection> {
  return NativeConnection.connect(connectionOptions(config) as NativeConnectionOptions);
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
