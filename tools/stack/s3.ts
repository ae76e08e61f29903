/**
 * A real S3-compatible server on loopback for tests and the demo: versitygw (a pinned Go program, see
 * tools/go-tools) with its posix backend in a scratch folder, on a free port, with a random root access key.
 * Its stop is registered in the caller's {@link CleanupList} (or the stack's `onStop`), so it always stops.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ensureGoTool, GO_TOOLS } from '../go-tools/go-tools';
import { withParentDeathSignal } from '../dev/child-process';
import { findFreePort } from '../dev/dev-server';

/** Where to register the server's stop: a `CleanupList`, or a stack's `onStop`. */
export interface StopRegistry {
  add(name: string, stop: () => Promise<void> | void): unknown;
}

/** Options of {@link startLocalS3}. */
export interface LocalS3Options {
  /** Registers the server's stop (and the removal of its folder). */
  readonly cleanups: StopRegistry;
  /** Buckets created at start. @default ['documents'] */
  readonly buckets?: readonly string[];
  /** The folder holding the buckets. @default a new temporary folder, removed at stop */
  readonly dataDir?: string;
  /** How long to wait for the server to answer. @default 60 s */
  readonly startTimeoutMs?: number;
  readonly log?: (message: string) => void;
}

/** A running S3-compatible server. */
export interface LocalS3 {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The first bucket created. */
  readonly bucket: string;
  /** A client for the server (path-style, the root user's key). */
  readonly client: S3Client;
  /** Stops the server; safe to call twice (the cleanup list calls it too). */
  stop(): Promise<void>;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolveAnswer(true);
    });
    socket.once('error', () => resolveAnswer(false));
  });
}

/** Starts versitygw (building it once if needed) and creates the buckets. */
export async function startLocalS3(options: LocalS3Options): Promise<LocalS3> {
  const binary = await ensureGoTool(GO_TOOLS.versitygw, { log: options.log });
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'badge-s3-'));
  if (options.dataDir === undefined) {
    options.cleanups.add('the S3 data folder', () => rmSync(dataDir, { recursive: true, force: true }));
  }
  mkdirSync(dataDir, { recursive: true });
  const accessKeyId = `test${randomBytes(8).toString('hex')}`;
  const secretAccessKey = randomBytes(24).toString('base64url');
  const region = 'us-east-1';
  const port = await findFreePort();
  const [command, args] = withParentDeathSignal(binary, [
    '--port',
    `127.0.0.1:${port}`,
    '--region',
    region,
    '--quiet',
    'posix',
    dataDir,
  ]);
  // The root key goes through the environment, not the command line that `ps` shows.
  const child = spawn(command, args, {
    env: { ...process.env, ROOT_ACCESS_KEY_ID: accessKeyId, ROOT_SECRET_ACCESS_KEY: secretAccessKey },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    errors = (errors + text).slice(-4_000);
  });
  let stopping: Promise<void> | undefined;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      client.destroy();
      await stopChild(child);
    })();
    return stopping;
  };
  options.cleanups.add(`versitygw ${child.pid ?? ''}`, stop);

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  while (!(await accepts(port))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`versitygw exited at start (${child.exitCode ?? child.signalCode}): ${errors}`);
    }
    if (Date.now() > deadline) throw new Error(`versitygw did not listen on ${endpoint} in time: ${errors}`);
    // Polling interval between readiness probes, not synchronisation on a guess.
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
  }
  const buckets = options.buckets ?? ['documents'];
  for (const bucket of buckets) await client.send(new CreateBucketCommand({ Bucket: bucket }));
  options.log?.(`S3-compatible server (versitygw) at ${endpoint}`);
  return { endpoint, region, accessKeyId, secretAccessKey, bucket: buckets[0] ?? 'documents', client, stop };
}
