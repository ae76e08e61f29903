/**
 * Free loopback ports for the servers the tests, the demo and the benchmarks start.
 *
 * A port is picked before the program that binds it starts (it must be written into other programs' settings
 * first), so something else could take it in between. Two things keep that from happening:
 * - Ports come from 10000–32767, below Linux's ephemeral range (32768–60999), from which the kernel picks the
 *   local port of every outgoing connection and of every server listening on port 0. Temporal also stores
 *   membership ports in a PostgreSQL `smallint`, so they must be below 32768 anyway.
 * - Each pick is reserved across processes (parallel test files, a cluster's helpers) for as long as the
 *   picking process runs: it holds a Unix socket named after the port in Linux's abstract namespace, a name
 *   the kernel drops when the process ends, however it ends (no file is left behind, and no exit handler is
 *   needed: Jest's test files see a copy of `process` whose `exit` never fires).
 */
import { createServer, type Server } from 'node:net';

const LOWEST_PORT = 10_000;
const HIGHEST_PORT = 32_767;

/** Reserves `port` for as long as this process runs: null when another reservation holds it. */
function reserve(port: number): Promise<Server | null> {
  return new Promise((resolveReservation, reject) => {
    const holder = createServer();
    holder.unref();
    holder.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolveReservation(null) : reject(error),
    );
    holder.listen(`\0badge-orders-port-${port}`, () => resolveReservation(holder));
  });
}

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolveBind) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolveBind(false));
    server.listen(port, host, () => server.close(() => resolveBind(true)));
  });
}

/** A free TCP port on `host`, reserved for as long as this process runs; see the module comment. */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 1_000; attempt += 1) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (HIGHEST_PORT - LOWEST_PORT + 1));
    const reservation = process.platform === 'linux' ? await reserve(port) : undefined;
    if (reservation === null) continue;
    if (await canBind(port, host)) return port;
    reservation?.close();
  }
  throw new Error(`no free port between ${LOWEST_PORT} and ${HIGHEST_PORT} on ${host}`);
}
