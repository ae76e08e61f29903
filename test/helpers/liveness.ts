/** Whether a server still listens: for tests that check that stopping left no port behind. */
import { acceptsConnections } from '../../tools/dev/dev-server';

/** True when a TCP server accepts connections at `where` (`host:port` or a base URL). */
export function isListening(where: string): Promise<boolean> {
  const { hostname, port } = new URL(where.includes('://') ? where : `tcp://${where}`);
  return acceptsConnections(hostname, Number(port));
}
