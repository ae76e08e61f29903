/**
 * A worker process with its Prometheus endpoint on a free port. The SDK binds the port it is given (it cannot
 * report one it picked), so the port is picked here. The pick is reserved against the tooling's other picks
 * (tools/dev/ports), but a server that chooses ports of its own (the Temporal dev server does) may bind it
 * before the worker does; the worker then exits at start, and is started again on another port.
 */
import { findFreePort } from '../../tools/dev/ports';
import { waitUntilServing } from '../../tools/oidc/binary-process';
import type { TestStack, WorkerProcess } from './stack';

/** The worker and a scrape of its endpoint. */
export interface MetricsWorker {
  readonly worker: WorkerProcess;
  /** The endpoint's text; rejects on a status other than 200. */
  readonly scrape: () => Promise<string>;
}

/**
 * Starts a worker process of `stack` serving `/metrics` on 127.0.0.1 (with `env` added) and resolves once it
 * answers there; the caller stops the worker.
 */
export async function startMetricsWorker(
  stack: Pick<TestStack, 'startWorkerProcess'>,
  env: Readonly<Record<string, string>> = {},
): Promise<MetricsWorker> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}/metrics`;
    const worker = stack.startWorkerProcess({
      ...env,
      METRICS_PORT: String(port),
      METRICS_HOST: '127.0.0.1',
    });
    try {
      await waitUntilServing(worker, url);
    } catch (error) {
      // Rejected with its output: a worker still running did not serve in time; the third exit is no race.
      const stillRunning = worker.running();
      await worker.kill('SIGTERM');
      if (stillRunning || attempt === 3) throw error;
      continue;
    }
    const scrape = async (): Promise<string> => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
      return response.text();
    };
    return { worker, scrape };
  }
}
