/**
 * What users deploy, started here: the project's own Docker engine (tools/docker/engine.ts) with the stand-in
 * images (tools/images), the image built from the project's Dockerfile, and `docker compose up` of the
 * production docker-compose.yml with `.env.example` as an operator fills it in, `deploy/sandbox.env` on top
 * (the sandbox profile) and the secret files an operator writes — in a scratch folder (`SECRETS_DIR`), never
 * in the checkout's deploy/secrets/. Published ports are free ones on 127.0.0.1, chosen once, so they stay
 * the same across `down` and `up`. Teardown removes the project's containers, networks and volumes and stops
 * the engine.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { hashApiKey } from '../../src/api/auth';
import { BadgeOrdersClient } from '../../src/client/badge-orders-client';
import { generatePayloadKeyEntry } from '../../src/codec/key-ring';
import { loadTemporalConfig } from '../../src/config';
import { SandboxControl } from '../../src/sandbox';
import { connectClient } from '../../src/temporal/connection';
import { findFreePort } from '../../tools/dev/ports';
import { PROJECT_ROOT } from '../../tools/dev/temporal-cli';
import { startDockerEngine, type DockerEngine, type DockerRunOptions } from '../../tools/docker/engine';
import { ensureStandInImages } from '../../tools/images/stand-ins';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver';
import { pollUntil } from '../../tools/dev/poll';

/** The namespace and task queue of `.env.example`. */
export const NAMESPACE = 'badge-orders';
export const TASK_QUEUE = 'badge-orders';
/** The port the worker serves metrics on in this stack (`METRICS_PORT` of `.env.example`). */
export const METRICS_PORT = 9464;
/** Services that run once and exit 0; every other one keeps running. */
const ONE_SHOT = new Set(['temporal-schema', 'temporal-setup', 'schedule']);

/** One row of `docker compose ps --all --format json`. */
export interface ComposeContainer {
  readonly ID: string;
  readonly Name: string;
  readonly Service: string;
  readonly State: string;
  readonly Health: string;
  readonly ExitCode: number;
}

/** The running stack. */
export interface ComposeStack {
  readonly engine: DockerEngine;
  /** The compose project name (unique per run). */
  readonly project: string;
  /** `badge-orders:<tag>`: the image compose builds from the Dockerfile. */
  readonly image: string;
  /** Runs `docker compose <args>` for the project (files, env files and profile as an operator's). */
  compose(args: readonly string[], options?: DockerRunOptions): Promise<string>;
  /** The project's containers (also exited ones). */
  containers(): Promise<ComposeContainer[]>;
  /** The container's address on the compose network (the host reaches it directly). */
  containerAddress(id: string): Promise<string>;
  /** Waits until every long-running service is up (healthy where it has a check) and the one-shots exited 0. */
  waitHealthy(): Promise<void>;
  /** Published addresses (`http://127.0.0.1:<port>`, the frontend as `127.0.0.1:<port>`). */
  readonly urls: {
    readonly api: string;
    readonly ui: string;
    readonly codec: string;
    readonly sandbox: string;
    readonly temporal: string;
  };
  /** The secrets this stack was given (as an operator generated them). */
  readonly secrets: { readonly apiKey: string; readonly codecToken: string; readonly payloadKeys: string };
  /** The collector the worker and the API export traces to (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
  readonly collector: OtlpReceiver;
  /** The sandbox now running (a new one after `down`/`up`: its control token is in its logs). */
  sandbox(): Promise<SandboxControl>;
  /** A host-side client of the stack's Temporal, with the stack's payload keys. */
  readonly orders: BadgeOrdersClient;
  readonly client: Client;
  /** The environment a host-side tool needs (starter, Temporal CLI): published frontend, namespace, keys. */
  readonly clientEnv: Readonly<Record<string, string>>;
  /** What each phase took, for the report. */
  readonly timings: Record<string, number>;
  teardown(): Promise<void>;
}

/** Runs a host command to completion; resolves with stdout. */
export function runHost(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  return new Promise((resolveRun, reject) => {
    execFile(
      command,
      [...args],
      { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`${command} ${args.join(' ')}: ${stderr || error.message}`))
          : resolveRun(stdout),
    );
  });
}

/** The secret files of docs/deployment.md, "Run it", as an operator writes them. */
function writeSecrets(dir: string): ComposeStack['secrets'] {
  const apiKey = `bo_${randomBytes(24).toString('hex')}`;
  const codecToken = randomBytes(32).toString('hex');
  const payloadKeys = generatePayloadKeyEntry(`k${Date.now()}`);
  const files: Record<string, string> = {
    badge_password: 'demo-password',
    payload_keys: `${payloadKeys}\n`,
    codec_server_token: `${codecToken}\n`,
    temporal_api_key: '',
    api_keys: `${JSON.stringify({
      keys: [{ id: 'backend', sha256: hashApiKey(apiKey), scopes: ['orders:write', 'orders:read', 'ops'] }],
    })}\n`,
    webhook_secrets: '{}\n',
    document_store_s3_access_key_id: '',
    document_store_s3_secret_access_key: '',
    otel_exporter_otlp_headers: '',
  };
  mkdirSync(dir, { recursive: true });
  // Readable by the containers' users (uid 1000, and root for the s3 service), as docs/deployment.md says.
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), content, { mode: 0o644 });
  return { apiKey, codecToken, payloadKeys };
}

/** Starts the engine, builds the images and brings the stack up; see the module comment. */
export async function startComposeStack(
  options: { readonly log?: (message: string) => void } = {},
): Promise<ComposeStack> {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const timings: Record<string, number> = {};
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await work();
    } finally {
      timings[name] = Date.now() - started;
      log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  };
  const scratch = mkdtempSync(join(tmpdir(), 'badge-compose-'));
  const cleanups: (() => Promise<void>)[] = [
    () => Promise.resolve(rmSync(scratch, { recursive: true, force: true })),
  ];
  const teardown = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => log(`cleanup failed: ${String(error)}`));
    }
  };
  try {
    const engine = await timed('engine start', () => startDockerEngine({ log }));
    cleanups.push(() => engine.stop());
    await timed('stand-in images', () => ensureStandInImages(engine, log));

    const collector = await startOtlpReceiver({ host: await engine.hostAddress() });
    cleanups.push(() => collector.close());

    const project = `badge-compose-${process.pid}`;
    const tag = `compose-test-${process.pid}`;
    const ports = {
      temporal: await findFreePort(),
      ui: await findFreePort(),
      codec: await findFreePort(),
      sandbox: await findFreePort(),
      api: await findFreePort(),
    };
    const urls = {
      api: `http://127.0.0.1:${ports.api}`,
      ui: `http://127.0.0.1:${ports.ui}`,
      codec: `http://127.0.0.1:${ports.codec}`,
      sandbox: `http://127.0.0.1:${ports.sandbox}`,
      temporal: `127.0.0.1:${ports.temporal}`,
    };
    const secrets = writeSecrets(join(scratch, 'secrets'));
    // .env: the example as it is, then what an operator fills in, then this run's addresses and exporters.
    const envFile = join(scratch, '.env');
    copyFileSync(join(PROJECT_ROOT, '.env.example'), envFile);
    writeFileSync(
      envFile,
      [
        '',
        '# --- filled in by the operator',
        `POSTGRES_PASSWORD=${randomBytes(18).toString('hex')}`,
        `SECRETS_DIR=${join(scratch, 'secrets')}`,
        // What `ops probe` tells the operator for the reference sandbox, which honours Idempotency-Key.
        'BADGE_IDEMPOTENCY_KEYS=honoured',
        `BADGE_ORDERS_IMAGE_TAG=${tag}`,
        '# --- this run: free loopback ports, the collector, quick exports',
        `TEMPORAL_GRPC_HOST_PORT=127.0.0.1:${ports.temporal}`,
        `TEMPORAL_UI_HOST_PORT=127.0.0.1:${ports.ui}`,
        `CODEC_SERVER_HOST_PORT=127.0.0.1:${ports.codec}`,
        `SANDBOX_HOST_PORT=127.0.0.1:${ports.sandbox}`,
        `API_HOST_PORT=127.0.0.1:${ports.api}`,
        `TEMPORAL_UI_PUBLIC_URL=${urls.ui}`,
        `TEMPORAL_WEB_UI_URL=${urls.ui}`,
        `CODEC_PUBLIC_URL=${urls.codec}`,
        `CODEC_CORS_ORIGIN=${urls.ui}`,
        `OTEL_EXPORTER_OTLP_ENDPOINT=${collector.url}`,
        'OTEL_BSP_SCHEDULE_DELAY=500',
        'STATUS_METRICS_INTERVAL_MS=5000',
        '',
      ].join('\n'),
      { flag: 'a' },
    );
    const composeArgs = [
      'compose',
      '--project-name',
      project,
      '--project-directory',
      PROJECT_ROOT,
      '--file',
      join(PROJECT_ROOT, 'docker-compose.yml'),
      '--env-file',
      envFile,
      '--env-file',
      join(PROJECT_ROOT, 'deploy', 'sandbox.env'),
    ];
    const compose = (args: readonly string[], runOptions?: DockerRunOptions): Promise<string> =>
      engine.docker([...composeArgs, ...args], runOptions);
    cleanups.push(async () => {
      await compose(['down', '--volumes', '--remove-orphans', '--timeout', '10']);
      await engine.docker(['image', 'rm', '--force', `badge-orders:${tag}`]).catch(() => '');
    });

    const containers = async (): Promise<ComposeContainer[]> =>
      (await compose(['ps', '--all', '--format', 'json']))
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as ComposeContainer);
    const waitHealthy = async (): Promise<void> => {
      await pollUntil(
        containers,
        (list) =>
          list.length > 0 &&
          list.every((container) =>
            ONE_SHOT.has(container.Service)
              ? container.State === 'exited' && container.ExitCode === 0
              : container.State === 'running' && (container.Health === '' || container.Health === 'healthy'),
          ) &&
          [...ONE_SHOT].every((service) => list.some((container) => container.Service === service)),
        {
          what: 'every service up and healthy, the one-shot jobs done',
          timeoutMs: 300_000,
          intervalMs: 1_000,
        },
      );
    };

    await timed('image build (docker compose build)', () => compose(['build'], { stream: true }));
    await timed('docker compose up until healthy', async () => {
      await compose(['up', '--detach']);
      await waitHealthy();
    });

    const clientEnv = {
      TEMPORAL_ADDRESS: urls.temporal,
      TEMPORAL_NAMESPACE: NAMESPACE,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      PAYLOAD_KEYS: secrets.payloadKeys,
    };
    const client = await connectClient(loadTemporalConfig(clientEnv));
    cleanups.push(() => client.connection.close());
    const orders = new BadgeOrdersClient({ client, taskQueue: TASK_QUEUE });

    return {
      engine,
      project,
      image: `badge-orders:${tag}`,
      compose,
      containers,
      async containerAddress(id) {
        return (
          await engine.docker([
            'inspect',
            '--format',
            '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
            id,
          ])
        ).trim();
      },
      waitHealthy,
      urls,
      secrets,
      collector,
      async sandbox() {
        // The sandbox prints its control token at start; the last one printed is the running sandbox's.
        const token = await pollUntil(
          async () => {
            const logs = await compose(['logs', '--no-log-prefix', 'sandbox']);
            return [...logs.matchAll(/control token: ([0-9a-f]+)/g)].at(-1)?.[1];
          },
          (found) => found !== undefined,
          { what: 'the sandbox control token in its logs' },
        );
        return new SandboxControl({ baseUrl: urls.sandbox, controlToken: token ?? '' });
      },
      orders,
      client,
      clientEnv,
      timings,
      teardown,
    };
  } catch (error) {
    await teardown();
    throw error;
  }
}
