/**
 * `npm run sandbox -- --port N [options]`: starts the sandbox as a process. Logs go to stderr (pino); stdout
 * carries only the start-up lines, the last of which is the base URL. SIGINT/SIGTERM close it gracefully.
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import pino from 'pino';
import { SandboxConfigError, parseFaultConfig } from './config';
import type { FaultConfig } from './config';
import { DEFAULT_CLIENTS, DEFAULT_USERS } from './fixtures';
import { startSandbox } from './index';
import { IDEMPOTENCY_MODES, SANDBOX_PROFILE_NAMES, STRICT_PROFILE_NAMES } from './profiles';
import type { IdempotencyMode } from './profiles';
import { runMain } from '../main/run-main';
import { isLoopbackHost } from '../url-policy';
import { SANDBOX_ROUTES } from './shapes';
import type { SandboxRoute } from './shapes';

function number(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError('not a number');
  return parsed;
}

function integer(value: string): number {
  const parsed = number(value);
  if (!Number.isInteger(parsed)) throw new InvalidArgumentError('not an integer');
  return parsed;
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function latency(value: string): number | { min: number; max: number } {
  const range = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(value.trim());
  if (range) return { min: Number(range[1]), max: Number(range[2]) };
  return number(value);
}

function json(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new InvalidArgumentError('not valid JSON');
  }
}

interface CliOptions {
  port: number;
  host: string;
  tokenTtl?: number;
  controlToken?: string;
  controlTokenFile?: string;
  maxUploadBytes?: number;
  acceptedContentTypes?: string[];
  faults?: unknown;
  errorRate?: number;
  rateLimitRate?: number;
  retryAfter?: number;
  dropRate?: number;
  commitThenFailRate?: number;
  latency?: number | { min: number; max: number };
  faultRoutes?: string[];
  maintenance?: boolean;
  seed?: number;
  storageDir?: string;
  profile?: string;
  idempotency?: IdempotencyMode;
  strictSlash?: boolean;
  logLevel: string;
}

/** Combines `--faults <json>` with the single fault flags (flags win). */
function faultsFrom(options: CliOptions): FaultConfig {
  const base = options.faults === undefined ? {} : parseFaultConfig(options.faults);
  const routes = options.faultRoutes?.map((route) => {
    if (!(SANDBOX_ROUTES as readonly string[]).includes(route)) {
      throw new SandboxConfigError(
        `unknown route "${route}" (routes: ${SANDBOX_ROUTES.join(', ')})`,
        'routes',
      );
    }
    return route as SandboxRoute;
  });
  const flags: FaultConfig = {
    ...(routes ? { routes } : {}),
    ...(options.errorRate !== undefined ? { errorRate: options.errorRate } : {}),
    ...(options.rateLimitRate !== undefined ? { rateLimitRate: options.rateLimitRate } : {}),
    ...(options.retryAfter !== undefined ? { retryAfterSeconds: options.retryAfter } : {}),
    ...(options.dropRate !== undefined ? { dropRate: options.dropRate } : {}),
    ...(options.commitThenFailRate !== undefined ? { commitThenFailRate: options.commitThenFailRate } : {}),
    ...(options.latency !== undefined ? { latencyMs: options.latency } : {}),
    ...(options.maintenance === true ? { maintenance: true } : {}),
  };
  return parseFaultConfig({ ...base, ...flags });
}

/**
 * The control token from `--control-token` or `--control-token-file` (not both). A file keeps the token out
 * of the process list and the shell history; its trailing newline is dropped. `undefined`: a random one.
 */
function controlTokenFrom(options: CliOptions): string | undefined {
  if (options.controlTokenFile === undefined) return options.controlToken;
  if (options.controlToken !== undefined) {
    throw new SandboxConfigError('give --control-token or --control-token-file, not both', 'controlToken');
  }
  let text: string;
  try {
    text = readFileSync(options.controlTokenFile, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new SandboxConfigError(
      `--control-token-file: cannot read ${options.controlTokenFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      'controlToken',
    );
  }
  if (text.trim() === '') {
    throw new SandboxConfigError(
      `--control-token-file: ${options.controlTokenFile} is empty`,
      'controlToken',
    );
  }
  return text;
}

async function main(argv: readonly string[]): Promise<void> {
  const program = new Command('sandbox')
    .description('Fault-injecting simulation of the Badge Ordering Platform')
    .option('--port <port>', 'TCP port; 0 picks a free one', integer, 0)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--token-ttl <seconds>', 'token lifetime in seconds (default 900)', number)
    .option('--control-token <token>', 'bearer token of /_sandbox/* (default: random)')
    .option('--control-token-file <path>', 'read the bearer token of /_sandbox/* from this file')
    .option('--max-upload-bytes <bytes>', 'largest accepted document (default 20 MiB)', integer)
    .option('--accepted-content-types <list>', 'comma-separated accepted document content types', list)
    .option('--faults <json>', 'full fault configuration as JSON (see docs/sandbox.md)', json)
    .option('--error-rate <share>', 'share of 500/502/503 answers (0..1)', number)
    .option('--rate-limit-rate <share>', 'share of 429 answers (0..1)', number)
    .option('--retry-after <seconds>', 'Retry-After of 429 and maintenance answers', integer)
    .option('--drop-rate <share>', 'share of dropped connections (0..1)', number)
    .option('--commit-then-fail-rate <share>', 'share of stored-then-failed orders/documents (0..1)', number)
    .option('--latency <ms>', 'added latency: fixed ms or a range "min-max"', latency)
    .option('--fault-routes <list>', `routes the faults apply to (${SANDBOX_ROUTES.join(',')})`, list)
    .option('--maintenance', 'start in maintenance mode (everything answers 503)')
    .option('--seed <seed>', 'seed of the random source, for reproducible faults', integer)
    .option('--storage-dir <dir>', 'write uploaded files to this directory')
    .option(
      '--profile <name>',
      `platform profile to play: ${[...SANDBOX_PROFILE_NAMES, ...STRICT_PROFILE_NAMES].join(', ')} or random:<seed> (default reference)`,
    )
    .addOption(
      new Option('--idempotency <mode>', "override the profile's Idempotency-Key handling").choices(
        IDEMPOTENCY_MODES,
      ),
    )
    .option('--strict-slash', 'serve the platform routes only with a trailing slash; 307 without it')
    .addOption(new Option('--log-level <level>', 'pino log level').default('info'));
  program.parse(argv);
  const options = program.opts<CliOptions>();

  const logger = pino({ name: 'badge-sandbox', level: options.logLevel }, pino.destination(2));
  const controlToken = controlTokenFrom(options);
  if (!isLoopbackHost(options.host)) {
    // A test double: public demo passwords, fault injection, and a control API behind one bearer token.
    logger.warn(
      { host: options.host },
      'the sandbox listens beyond this machine: its demo users and passwords are public and /_sandbox/* is guarded by the control token only; expose it only to a network you control',
    );
  }
  const sandbox = await startSandbox({
    port: options.port,
    host: options.host,
    faults: faultsFrom(options),
    rules: { maxUploadBytes: options.maxUploadBytes, acceptedContentTypes: options.acceptedContentTypes },
    tokenTtlSeconds: options.tokenTtl,
    controlToken,
    seed: options.seed,
    storageDir: options.storageDir,
    profile: options.profile,
    idempotency: options.idempotency,
    strictSlash: options.strictSlash === true,
    logger,
  });

  let closing = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  const users = DEFAULT_USERS.map((user) => `${user.username}/${user.password} (${user.scopes.join('+')})`);
  process.stdout.write(
    [
      'Badge Ordering Platform sandbox is listening.',
      sandbox.profile.token.grant === 'client_credentials'
        ? `clients: ${DEFAULT_CLIENTS.map((client) => `${client.clientId}/${client.clientSecret}`).join(', ')}`
        : `users: ${users.join(', ')}`,
      // A token from a file stays there: printing it would put it into the logs the file keeps it out of.
      `control token: ${options.controlTokenFile === undefined ? sandbox.controlToken : `from ${options.controlTokenFile}`}`,
      `profile: ${sandbox.profile.name} (Idempotency-Key ${sandbox.profile.idempotency})`,
      sandbox.baseUrl,
      '',
    ].join('\n'),
  );
}

runMain(() =>
  main(process.argv).catch((error: unknown) => {
    throw new Error(`sandbox failed to start: ${error instanceof Error ? error.message : String(error)}`);
  }),
);
