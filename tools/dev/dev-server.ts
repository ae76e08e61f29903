/**
 * Starts a Temporal dev server (`temporal server start-dev`) for tests, the demo and local runs.
 *
 * We start the binary ourselves instead of the SDK's `createLocal`, which gives up after 5 s — too short for a
 * cold start on a 2-core machine — and then poll until the server answers. The process is always stopped:
 * by `stop()`, when this process exits, and (on Linux) by the kernel if this process dies.
 */
import { createConnection } from 'node:net';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { BADGE_SEARCH_ATTRIBUTES } from '../../src/workflow-contract';
import { startChildProcess, withParentDeathSignal } from './child-process';
import { ExitedWhileWaitingError, waitUntil } from './poll';
import { findFreePort } from './ports';
import { describeTemporalCli, resolveTemporalCli, type ResolvedTemporalCli } from './temporal-cli';

export interface DevServerOptions {
  /** The CLI to run. @default resolved with {@link resolveTemporalCli} */
  readonly cli?: ResolvedTemporalCli;
  /** IP to bind. @default 127.0.0.1 */
  readonly ip?: string;
  /** gRPC port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Web UI port; 0 picks a free one, `null` runs headless. @default null */
  readonly uiPort?: number | null;
  /** SQLite file for persistence across restarts; in memory when absent. */
  readonly dbFilename?: string;
  /** Namespace created at start. @default default */
  readonly namespace?: string;
  /** Remote codec endpoint the Web UI uses to decode payloads. */
  readonly uiCodecEndpoint?: string;
  /** How long to wait for the server to answer. @default 90 s */
  readonly startTimeoutMs?: number;
  /** Server log level. @default warn */
  readonly logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** Dynamic config values (`--dynamic-config-value`), by key. */
  readonly dynamicConfig?: Readonly<Record<string, string | number | boolean>>;
  /** Progress messages. */
  readonly log?: (message: string) => void;
}

/** A running dev server. */
export interface DevServer {
  /** gRPC address, `host:port`. */
  readonly address: string;
  readonly namespace: string;
  /** Web UI base URL, or null when headless. */
  readonly uiUrl: string | null;
  /** OS process id, or null when the SDK runs the server. */
  readonly pid: number | null;
  /** The server's Prometheus counters (`/metrics`), or null when the SDK runs the server. */
  readonly metricsUrl: string | null;
  /** Stops the server and waits until it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/** Thrown when the dev server does not come up; carries the end of its output. */
export class DevServerStartError extends Error {
  override readonly name = 'DevServerStartError';
  constructor(
    message: string,
    /** The server process ended (rather than not answering in time). */
    readonly exited = false,
  ) {
    super(message);
  }
}

/** Whether something accepts TCP connections at host:port. */
export function acceptsConnections(host: string, port: number): Promise<boolean> {
  return new Promise((resolveProbe) => {
    const socket = createConnection({ host, port });
    socket.setTimeout(1_000);
    const done = (result: boolean): void => {
      socket.destroy();
      resolveProbe(result);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

function cliSearchAttributeArgs(): string[] {
  const cliTypeNames: Record<string, string> = { KEYWORD: 'Keyword', TEXT: 'Text', INT: 'Int', BOOL: 'Bool' };
  return BADGE_SEARCH_ATTRIBUTES.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${cliTypeNames[key.type]}`,
  ]);
}

/** `--dynamic-config-value KEY=JSON` for each value, as the CLI takes them. */
function dynamicConfigArgs(values: DevServerOptions['dynamicConfig'] = {}): string[] {
  return Object.entries(values).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}

/** Whether the frontend answers for the namespace (and the UI, when enabled). */
async function serves(address: string, namespace: string, uiUrl: string | null): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 1_000 });
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } finally {
    await connection.close();
  }
  if (uiUrl) {
    const response = await fetch(uiUrl, { signal: AbortSignal.timeout(1_000) });
    if (!response.ok) throw new Error(`Web UI answered ${response.status}`);
  }
  return true;
}

async function startWithSdk(options: DevServerOptions, namespace: string, ip: string): Promise<DevServer> {
  const uiPort = options.uiPort === null || options.uiPort === undefined ? undefined : options.uiPort;
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip,
      namespace,
      port: options.port || undefined,
      ui: uiPort !== undefined,
      uiPort: uiPort || undefined,
      dbFilename: options.dbFilename,
      searchAttributes: [...BADGE_SEARCH_ATTRIBUTES],
      extraArgs: [
        ...(options.uiCodecEndpoint ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : []),
        ...dynamicConfigArgs(options.dynamicConfig),
      ],
    },
  });
  const address = env.address;
  let stopped = false;
  return {
    address,
    namespace,
    uiUrl: uiPort ? `http://${ip}:${uiPort}` : null,
    pid: null,
    metricsUrl: null,
    async stop() {
      if (stopped) return;
      stopped = true;
      await env.teardown();
    },
  };
}

/** Starts a dev server and resolves once it answers. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const log = options.log ?? (() => undefined);
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const cli = options.cli ?? (await resolveTemporalCli({ log }));
  log(`Using ${describeTemporalCli(cli)}`);
  if (cli.kind === 'sdk-download') return startWithSdk(options, namespace, ip);

  // The ports picked here are reserved (./ports), but the server picks more ports of its own, and another
  // process may take one of those first (tests start servers in parallel): a server that exits while starting
  // on ports picked here is started again on other ports. It then panics with "address already in
  // use" somewhere in a long stack trace, so the exit itself decides, not the text.
  const picksPorts = !options.port || options.uiPort === 0;
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port || (await findFreePort(ip));
    const uiPort =
      options.uiPort === null || options.uiPort === undefined
        ? null
        : options.uiPort || (await findFreePort(ip));
    const metricsPort = await findFreePort(ip);
    try {
      return await launchDevServer({ options, cli: cli.path, ip, namespace, port, uiPort, metricsPort, log });
    } catch (error) {
      const exitedWhileStarting = error instanceof DevServerStartError && error.exited;
      if (!picksPorts || !exitedWhileStarting || attempt >= 3) throw error;
      log(
        `the dev server exited while starting on port ${port} (a port taken meanwhile?); trying other ports`,
      );
    }
  }
}

/** Starts the CLI's dev server on the given ports and waits until it serves. */
async function launchDevServer(launch: {
  readonly options: DevServerOptions;
  readonly cli: string;
  readonly ip: string;
  readonly namespace: string;
  readonly port: number;
  readonly uiPort: number | null;
  readonly metricsPort: number;
  readonly log: (message: string) => void;
}): Promise<DevServer> {
  const { options, ip, namespace, port, uiPort, metricsPort, log } = launch;
  const args = [
    'server',
    'start-dev',
    '--ip',
    ip,
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--log-level',
    options.logLevel ?? 'warn',
    '--metrics-port',
    String(metricsPort),
    ...cliSearchAttributeArgs(),
    ...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort), '--ui-disable-news-fetch']),
    ...(options.dbFilename ? ['--db-filename', options.dbFilename] : []),
    ...(options.uiCodecEndpoint ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : []),
    ...dynamicConfigArgs(options.dynamicConfig),
  ];
  const [command, commandArgs] = withParentDeathSignal(launch.cli, args);
  // With this process's environment: the CLI reads its own settings there.
  const server = startChildProcess({
    name: 'the dev server',
    command,
    args: commandArgs,
    env: process.env,
    // Enough to keep the top of a Go panic, where its reason is.
    maxOutputChars: 64 * 1024,
  });

  const address = `${ip}:${port}`;
  const uiUrl = uiPort === null ? null : `http://${ip}:${uiPort}`;
  try {
    await waitUntil('the dev server to answer', () => serves(address, namespace, uiUrl), {
      timeoutMs: options.startTimeoutMs ?? 90_000,
      intervalMs: 200,
      processes: [server],
    });
  } catch (error) {
    await server.stop();
    // Both messages carry the server's output.
    const message = error instanceof Error ? error.message : String(error);
    throw new DevServerStartError(message, error instanceof ExitedWhileWaitingError);
  }
  log(`Temporal dev server at ${address}${uiUrl ? `, Web UI at ${uiUrl}` : ''}`);
  return {
    address,
    namespace,
    uiUrl,
    pid: server.pid,
    metricsUrl: `http://${ip}:${metricsPort}/metrics`,
    stop: () => server.stop(),
  };
}
