/**
 * A webhook receiver on loopback that leaves every delivery unanswered until `release()`, and answers 204 from
 * then on: a run that waits for its deliveries (before it ends or continues as new) waits exactly as long as the
 * caller needs. For tests and the history recorder.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingReceiver {
  readonly callbackUrl: string;
  /** Answers the held deliveries, and every later one at once. */
  release(): void;
  close(): Promise<void>;
}

export async function holdingReceiver(): Promise<HoldingReceiver> {
  const held: ServerResponse[] = [];
  let holding = true;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (holding) held.push(response);
      else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    callbackUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    release() {
      holding = false;
      // A delivery whose attempt timed out meanwhile comes again and is answered then.
      for (const response of held.splice(0)) if (!response.destroyed) response.writeHead(204).end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
