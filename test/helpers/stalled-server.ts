/**
 * A server that accepts connections and never answers: a stalled store (an S3 endpoint behind a hung proxy, a
 * disk that blocks), on a free loopback port.
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface StalledServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Connections it has accepted so far. */
  readonly accepted: () => number;
  close(): Promise<void>;
}

export async function startStalledServer(): Promise<StalledServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
