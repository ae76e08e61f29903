/**
 * The Temporal server as production runs it: frontend, history, matching and worker as four processes of the
 * pinned server binary, on PostgreSQL, each reading deploy/temporal/config/temporal.yaml.gotmpl (the file
 * docker-compose.yml mounts) with the dynamic config deploy/temporal/dynamicconfig/badge-orders.yaml. Only
 * environment variables differ: here every port is a free one. Each service can be killed, started and
 * restarted on its own, on the same ports, as an orchestrator would replace a pod.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildProcessHandle } from '../dev/child-process';
import { waitUntil } from '../dev/poll';
import { PROJECT_ROOT } from '../dev/temporal-cli';
import { acceptsConnections } from '../dev/dev-server';
import { findFreePort } from '../dev/ports';
import { startProcess } from './process';

/** The four services, in the order they start (the frontend first: the others find it through it). */
export const TEMPORAL_SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
export type TemporalServiceName = (typeof TEMPORAL_SERVICES)[number];

/** The one server config of every deployment of this project. */
export const TEMPORAL_CONFIG_FILE = join(
  PROJECT_ROOT,
  'deploy',
  'temporal',
  'config',
  'temporal.yaml.gotmpl',
);
/** The one dynamic config file. */
export const TEMPORAL_DYNAMIC_CONFIG_FILE = join(
  PROJECT_ROOT,
  'deploy',
  'temporal',
  'dynamicconfig',
  'badge-orders.yaml',
);

/** Options of {@link startTemporalServices}. */
export interface TemporalServicesOptions {
  /** The pinned server binary (`ensureGoTool(GO_TOOLS.temporalServer)`). */
  readonly serverBinary: string;
  readonly postgres: {
    readonly host: string;
    readonly port: number;
    readonly user: string;
    readonly password: string;
  };
  /** Where the frontend listens for clients. @default 127.0.0.1 */
  readonly frontendBindIp?: string;
  /** `LOG_LEVEL` of the services. @default warn */
  readonly logLevel?: string;
  readonly log?: (message: string) => void;
}

/** The running services. */
export interface TemporalServices {
  /** The frontend's gRPC address for clients on this host, `127.0.0.1:<port>`. */
  readonly address: string;
  readonly frontendPort: number;
  /** The process of each service now running. */
  process(service: TemporalServiceName): ChildProcessHandle;
  /** CPU time (user + system, ms) each service's processes used so far, restarts included. */
  cpuMs(): Promise<Readonly<Record<TemporalServiceName, number>>>;
  /** Sends `signal` to the service's process and waits until it has exited. */
  kill(service: TemporalServiceName, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped service again on its ports; resolves once it listens. */
  start(service: TemporalServiceName): Promise<void>;
  /** SIGTERM (graceful), then {@link start}. */
  restart(service: TemporalServiceName): Promise<void>;
  /** Stops every service, the frontend last; safe to call twice. */
  stop(): Promise<void>;
}

interface ServicePorts {
  readonly grpc: number;
  readonly membership: number;
}

/** Reads a process's CPU time in ms from /proc (0 once it has exited). */
async function processCpuMs(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start after the last ')'; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100;
  } catch {
    return 0;
  }
}

/** Starts the four services and resolves once each listens; on failure stops what started. */
export async function startTemporalServices(options: TemporalServicesOptions): Promise<TemporalServices> {
  const log = options.log ?? (() => undefined);
  const ports = {} as Record<TemporalServiceName, ServicePorts>;
  for (const service of TEMPORAL_SERVICES) {
    // Membership ports go into a PostgreSQL smallint: findFreePort's ports are all below 32768.
    ports[service] = { grpc: await findFreePort(), membership: await findFreePort() };
  }
  const frontendHttpPort = await findFreePort();
  const env: Record<string, string> = {
    TEMPORAL_SERVER_CONFIG_FILE_PATH: TEMPORAL_CONFIG_FILE,
    TEMPORAL_ALLOW_NO_AUTH: 'true',
    DYNAMIC_CONFIG_FILE_PATH: TEMPORAL_DYNAMIC_CONFIG_FILE,
    POSTGRES_SEEDS: options.postgres.host,
    DB_PORT: String(options.postgres.port),
    POSTGRES_USER: options.postgres.user,
    POSTGRES_PWD: options.postgres.password,
    BIND_ON_IP: '127.0.0.1',
    FRONTEND_BIND_ON_IP: options.frontendBindIp ?? '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    FRONTEND_HTTP_PORT: String(frontendHttpPort),
    LOG_LEVEL: options.logLevel ?? 'warn',
    ...Object.fromEntries(
      TEMPORAL_SERVICES.flatMap((service) => [
        [`${service.toUpperCase()}_GRPC_PORT`, String(ports[service].grpc)],
        [`${service.toUpperCase()}_MEMBERSHIP_PORT`, String(ports[service].membership)],
      ]),
    ),
  };
  const processes = new Map<TemporalServiceName, ChildProcessHandle>();
  const pastCpuMs = Object.fromEntries(TEMPORAL_SERVICES.map((service) => [service, 0])) as Record<
    TemporalServiceName,
    number
  >;

  const start = async (service: TemporalServiceName): Promise<void> => {
    const child = startProcess({
      name: `temporal ${service}`,
      command: options.serverBinary,
      args: ['start', '--service', service],
      env,
      cwd: PROJECT_ROOT,
    });
    processes.set(service, child);
    await waitUntil(
      `the Temporal ${service} service`,
      () => acceptsConnections('127.0.0.1', ports[service].grpc),
      { processes: [child] },
    );
    log(`Temporal ${service} (pid ${child.pid}) on port ${ports[service].grpc}`);
  };
  const kill = async (service: TemporalServiceName, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const child = processes.get(service);
    if (!child) return;
    const cpu = await processCpuMs(child.pid);
    if (signal === 'SIGKILL') await child.kill('SIGKILL');
    else await child.stop();
    pastCpuMs[service] += cpu;
  };
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      for (const service of [...TEMPORAL_SERVICES].reverse()) await kill(service, 'SIGTERM');
    })();
    return stopping;
  };

  try {
    for (const service of TEMPORAL_SERVICES) await start(service);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    address: `127.0.0.1:${ports.frontend.grpc}`,
    frontendPort: ports.frontend.grpc,
    process(service) {
      const child = processes.get(service);
      if (!child) throw new Error(`the Temporal ${service} service was never started`);
      return child;
    },
    async cpuMs() {
      const entries = await Promise.all(
        TEMPORAL_SERVICES.map(async (service) => {
          const child = processes.get(service);
          const now = child?.running() ? await processCpuMs(child.pid) : 0;
          return [service, pastCpuMs[service] + now] as const;
        }),
      );
      return Object.fromEntries(entries) as Record<TemporalServiceName, number>;
    },
    kill,
    start,
    async restart(service) {
      await kill(service, 'SIGTERM');
      await start(service);
    },
    stop,
  };
}
