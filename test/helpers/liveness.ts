/** Whether something still runs: for tests that check that stopping left no process or port behind. */
import { createConnection } from 'node:net';

/** True when a TCP server accepts connections at `where` (`host:port` or a base URL). */
export async function isListening(where: string): Promise<boolean> {
  const { hostname, port } = new URL(where.includes('://') ? where : `tcp://${where}`);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** True while a process with this id exists. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
