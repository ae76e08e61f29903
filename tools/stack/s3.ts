/**
 * A real S3-compatible server on loopback for tests and the demo: versitygw (a pinned Go program, see
 * tools/go-tools) with its posix backend in a scratch folder, on a free port, with a random root access key.
 * Its stop is registered in the caller's {@link CleanupList} (or the stack's `onStop`), so it always stops.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ensureGoTool, GO_TOOLS } from '../go-tools/go-tools';
import { startChildProcess, withParentDeathSignal } from '../dev/child-process';
import { acceptsConnections } from '../dev/dev-server';
import { findFreePort } from '../dev/ports';

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
  const server = startChildProcess({
    name: 'versitygw',
    command,
    args,
    env: { ...process.env, ROOT_ACCESS_KEY_ID: accessKeyId, ROOT_SECRET_ACCESS_KEY: secretAccessKey },
    maxOutputChars: 4_000,
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
      await server.stop();
    })();
    return stopping;
  };
  options.cleanups.add(`versitygw ${server.pid}`, stop);

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  while (!(await acceptsConnections('127.0.0.1', port))) {
    if (!server.running()) {
      throw new Error(`versitygw exited at start (${await server.exited}): ${server.output()}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`versitygw did not listen on ${endpoint} in time: ${server.output()}`);
    }
    // Polling interval between readiness probes, not synchronisation on a guess.
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
  }
  const buckets = options.buckets ?? ['documents'];
  for (const bucket of buckets) await client.send(new CreateBucketCommand({ Bucket: bucket }));
  options.log?.(`S3-compatible server (versitygw) at ${endpoint}`);
  return { endpoint, region, accessKeyId, secretAccessKey, bucket: buckets[0] ?? 'documents', client, stop };
}
