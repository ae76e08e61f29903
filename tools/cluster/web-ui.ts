/**
 * The Temporal Web UI as deployed next to a real cluster: the pinned UI server (`GO_TOOLS.temporalUi`) with a
 * config file generated here (frontend address, port, default namespace, the codec server's endpoint) — the
 * settings docker-compose.yml gives the `temporalio/ui` image as environment.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import type { ChildProcessHandle } from '../dev/child-process';
import { waitUntil } from '../dev/poll';
import { startProcess } from './process';

/** Options of {@link startWebUi}. */
export interface WebUiOptions {
  /** The pinned UI server binary. */
  readonly binary: string;
  /** A folder of the caller's for the generated config. */
  readonly dir: string;
  /** The frontend's gRPC address. */
  readonly temporalAddress: string;
  readonly namespace: string;
  readonly port: number;
  /** The codec server the browser calls to decode payloads. */
  readonly codecEndpoint?: string;
}

/** A running Web UI. */
export interface RunningWebUi {
  readonly url: string;
  readonly process: ChildProcessHandle;
  stop(): Promise<void>;
}

/** Writes the config, starts the UI server and resolves once it serves its page. */
export async function startWebUi(options: WebUiOptions): Promise<RunningWebUi> {
  const configDir = join(options.dir, 'config');
  mkdirSync(configDir, { recursive: true });
  const url = `http://127.0.0.1:${options.port}`;
  const config = {
    temporalGrpcAddress: options.temporalAddress,
    host: '127.0.0.1',
    port: options.port,
    enableUi: true,
    defaultNamespace: options.namespace,
    // Nothing leaves the machine: no news, no version check.
    disableNewsFetch: true,
    notifyOnNewVersion: false,
    hideLogs: true,
    cors: { allowOrigins: [url], cookieInsecure: true },
    codec: { endpoint: options.codecEndpoint ?? '', passAccessToken: false, includeCredentials: false },
  };
  writeFileSync(join(configDir, 'cluster.yaml'), dump(config));
  const child = startProcess({
    name: 'temporal web ui',
    command: options.binary,
    args: ['--root', options.dir, '--config', 'config', '--env', 'cluster', 'start'],
  });
  try {
    await waitUntil(
      `the Web UI at ${url}`,
      async () => (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok,
      { processes: [child], timeoutMs: 60_000 },
    );
  } catch (error) {
    await child.stop();
    throw error;
  }
  return { url, process: child, stop: () => child.stop() };
}
