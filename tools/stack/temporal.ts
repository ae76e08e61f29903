/**
 * The Temporal part of a local stack: a dev server (`tools/dev/dev-server.ts`) with a client connected to it,
 * and a restart on the same port and database file. A cluster (docker compose) can take this place later
 * behind the same {@link LocalTemporal} shape.
 */
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { startDevServer, type DevServer, type DevServerOptions } from '../dev/dev-server';

/** A running Temporal server and the clients connected to it. */
export interface LocalTemporal {
  readonly server: DevServer;
  readonly connection: Connection;
  /** A client with the stack's data converter (payload codec and failure converter). */
  readonly client: Client;
  /** A client without the payload codec: sees histories as the server stores them. */
  readonly rawClient: Client;
  /** Closes the connection and stops the server. Safe to call twice. */
  stop(): Promise<void>;
}

/** How the clients of {@link startLocalTemporal} decode payloads. */
export interface LocalTemporalClientOptions {
  readonly dataConverter?: DataConverter;
}

/**
 * Starts a dev server (in memory unless `dbFilename` is given) and connects a client, with `dataConverter`
 * when given. Stops the server again when the client cannot connect.
 */
export async function startLocalTemporal(
  options: DevServerOptions = {},
  clientOptions: LocalTemporalClientOptions = {},
): Promise<LocalTemporal> {
  return connectTo(await startDevServer(options), clientOptions);
}

/**
 * Connects to a Temporal server someone else runs (a cluster): `stop()` closes the connection and leaves the
 * server running.
 */
export async function connectLocalTemporal(
  server: { readonly address: string; readonly namespace: string; readonly uiUrl?: string | null },
  clientOptions: LocalTemporalClientOptions = {},
): Promise<LocalTemporal> {
  return connectTo(
    {
      address: server.address,
      namespace: server.namespace,
      uiUrl: server.uiUrl ?? null,
      pid: null,
      metricsUrl: null,
      stop: () => Promise.resolve(),
    },
    clientOptions,
  );
}

async function connectTo(
  server: DevServer,
  clientOptions: LocalTemporalClientOptions,
): Promise<LocalTemporal> {
  try {
    const connection = await Connection.connect({ address: server.address });
    let stopping: Promise<void> | undefined;
    return {
      server,
      connection,
      client: new Client({
        connection,
        namespace: server.namespace,
        dataConverter: clientOptions.dataConverter,
      }),
      rawClient: new Client({ connection, namespace: server.namespace }),
      stop() {
        stopping ??= (async () => {
          // The server must stop even when the connection is already broken.
          await connection.close().catch(() => undefined);
          await server.stop();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/**
 * Stops `running` and starts the server again on the same port (and, through `options`, the same database file,
 * Web UI port and codec endpoint). Only a server with a database file keeps its workflows across the restart.
 */
export async function restartLocalTemporal(
  running: LocalTemporal,
  options: DevServerOptions,
  clientOptions: LocalTemporalClientOptions = {},
): Promise<LocalTemporal> {
  if (!options.dbFilename) {
    throw new Error('restarting Temporal needs a database file (temporal.dbFilename or temporal.persistent)');
  }
  const port = Number(running.server.address.split(':').pop());
  await running.stop();
  return startLocalTemporal({ ...options, port }, clientOptions);
}
