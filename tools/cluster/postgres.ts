/**
 * A scratch PostgreSQL server for the cluster: Debian's PostgreSQL binaries, a data folder of its own, a free
 * port on loopback, password login for Temporal's user. PostgreSQL refuses to run as root, so when this process
 * is root it runs as `nobody`, and the folders it writes are given to that user.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcessHandle } from '../dev/child-process';
import { waitUntil } from '../dev/poll';
import { findFreePort } from '../dev/ports';
import { runToCompletion, startProcess } from './process';

/** The user PostgreSQL runs as when we are root (Debian's `nobody`/`nogroup`). */
const UNPRIVILEGED = { uid: 65534, gid: 65534 } as const;

/** Options of {@link startPostgres}. */
export interface PostgresOptions {
  /** An empty folder of the caller's; the data folder goes inside. */
  readonly dir: string;
  readonly user: string;
  readonly password: string;
  /** @default a free one */
  readonly port?: number;
  /** Folder with initdb, postgres and pg_isready. @default the newest /usr/lib/postgresql/<n>/bin */
  readonly binDir?: string;
  readonly log?: (message: string) => void;
}

/** A running PostgreSQL server. */
export interface RunningPostgres {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** The server process now running (another one after {@link restart}). */
  readonly process: ChildProcessHandle;
  /** Fast shutdown (clients are disconnected), then the same data folder and port again. */
  restart(): Promise<void>;
  /** Fast shutdown; safe to call twice. */
  stop(): Promise<void>;
}

/** The folder of Debian's PostgreSQL binaries, the newest version installed. */
export function findPostgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (newest === undefined) {
    throw new Error(
      'PostgreSQL is not installed: apt-get install postgresql-15 (the cluster runs its own scratch server)',
    );
  }
  return join(root, newest, 'bin');
}

function giveAway(path: string, runAs: typeof UNPRIVILEGED | undefined): void {
  if (runAs) chownSync(path, runAs.uid, runAs.gid);
}

/** Initialises a data folder in `options.dir` and starts the server; resolves once it accepts logins. */
export async function startPostgres(options: PostgresOptions): Promise<RunningPostgres> {
  const binDir = options.binDir ?? findPostgresBinDir();
  const runAs = process.getuid?.() === 0 ? UNPRIVILEGED : undefined;
  const log = options.log ?? (() => undefined);
  // The unprivileged user must reach the folder through its parents (mkdtemp makes them 0700).
  chmodSync(options.dir, 0o711);
  const dataDir = join(options.dir, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  giveAway(dataDir, runAs);
  const passwordFile = join(options.dir, 'initdb-password');
  writeFileSync(passwordFile, options.password, { mode: 0o600 });
  giveAway(passwordFile, runAs);
  try {
    await runToCompletion({
      name: 'initdb',
      command: join(binDir, 'initdb'),
      // No fsync while initialising a scratch folder: it is thrown away if this fails anyway.
      args: ['-D', dataDir, '-U', options.user, `--pwfile=${passwordFile}`, '--auth=scram-sha-256'].concat([
        '-E',
        'UTF8',
        '--locale=C',
        '--no-sync',
      ]),
      cwd: dataDir,
      runAs,
    });
  } finally {
    rmSync(passwordFile, { force: true });
  }
  const host = '127.0.0.1';
  const port = options.port || (await findFreePort(host));

  const launch = async (): Promise<ChildProcessHandle> => {
    const server = startProcess({
      name: 'postgresql',
      command: join(binDir, 'postgres'),
      args: [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        `listen_addresses=${host}`,
        // The socket in the data folder, not /var/run/postgresql (not ours, maybe not there).
        '-c',
        `unix_socket_directories=${dataDir}`,
        // Four Temporal services open up to 30 connections each (SQL_MAX_CONNS + SQL_VIS_MAX_CONNS).
        '-c',
        'max_connections=200',
      ],
      cwd: dataDir,
      runAs,
    });
    try {
      await waitUntil(
        `PostgreSQL on port ${port}`,
        async () => {
          const ready = startProcess({
            name: 'pg_isready',
            command: join(binDir, 'pg_isready'),
            args: ['-h', host, '-p', String(port), '-U', options.user, '-d', 'postgres'],
          });
          return (await ready.exited) === 'exit code 0';
        },
        { processes: [server], timeoutMs: 60_000 },
      );
    } catch (error) {
      await stopServer(server);
      throw error;
    }
    log(`PostgreSQL at ${host}:${port} (pid ${server.pid}, data in ${dataDir})`);
    return server;
  };

  let current = await launch();
  let stopping: Promise<void> | undefined;
  return {
    host,
    port,
    user: options.user,
    password: options.password,
    get process() {
      return current;
    },
    async restart() {
      await stopServer(current);
      current = await launch();
    },
    stop() {
      stopping ??= stopServer(current);
      return stopping;
    },
  };
}

/** SIGINT is PostgreSQL's fast shutdown; SIGTERM (smart) would wait for Temporal's pooled connections. */
async function stopServer(server: ChildProcessHandle): Promise<void> {
  if (!server.running()) return;
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 30_000);
  await server.kill('SIGINT');
  clearTimeout(timer);
}
