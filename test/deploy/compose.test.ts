/**
 * docker-compose.yml without a Docker engine: the environment it gives the worker (with `.env.example`, and
 * with secrets as files) satisfies the worker's config schema, workers scale, images are pinned, start-up is
 * ordered; and the workflow bundle the image prebuilds runs a real order on a real dev server and sandbox.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { generatePayloadKeyEntry } from '../../src/codec/key-ring';
import { hashApiKey } from '../../src/api/auth';
import { loadApiConfig } from '../../src/api/config';
import {
  loadCodecServerConfig,
  loadReplayScheduleConfig,
  loadTracingConfig,
  loadWorkerConfig,
  VARIABLES,
} from '../../src/config';
import { BADGE_SEARCH_ATTRIBUTES } from '../../src/workflow-contract';
import { DEMO_USER } from '../../src/sandbox';
import { connectionOptions } from '../../src/temporal/connection';
import { createBadgeOrderWorker } from '../../src/worker/create-worker';
import { startTestStack, type TestStack } from '../helpers/stack';
import {
  ComposeInterpolationError,
  PROJECT_ROOT,
  sandboxEnv,
  exampleEnv,
  operatorEnv,
  interpolate,
  loadCompose,
  type ComposeService,
} from './compose-file';

const SECRETS_OVERRIDE = ['docker-compose.yml', 'deploy/compose.secrets.yml'];

/** The secret files an operator writes into deploy/secrets/ before the first `up` (the example has none). */
const OPERATOR_PAYLOAD_KEYS = generatePayloadKeyEntry('k2025');
const OPERATOR_SECRETS: Readonly<Record<string, string>> = {
  badge_password: 'demo-password\n',
  payload_keys: `${OPERATOR_PAYLOAD_KEYS}\n`,
  codec_server_token: 'operator-generated-codec-token\n',
  temporal_api_key: '',
  api_keys: `${JSON.stringify({ keys: [{ id: 'backend', sha256: hashApiKey('bo_operator-key'), scopes: ['orders:write', 'orders:read'] }] })}\n`,
  webhook_secrets: '{}\n',
  document_store_s3_access_key_id: '',
  document_store_s3_secret_access_key: '',
  otel_exporter_otlp_headers: '',
};

/** The `s3` profile's settings in `.env`, and its root key in the secret files. */
const S3_PROFILE_ENV = { DOCUMENT_STORE: 's3', DOCUMENT_STORE_S3_ALLOW_INSECURE_HTTP: 'true' };
const S3_SECRETS: Readonly<Record<string, string>> = {
  ...OPERATOR_SECRETS,
  document_store_s3_access_key_id: 'operator-s3-key-id\n',
  document_store_s3_secret_access_key: 'operator-s3-secret\n',
};

function service(name: string, files?: readonly string[], env = sandboxEnv()): ComposeService {
  const found = loadCompose(env, files).services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

let secretsDir: string;
beforeAll(() => {
  secretsDir = mkdtempSync(join(tmpdir(), 'badge-secrets-'));
});
afterAll(() => rmSync(secretsDir, { recursive: true, force: true }));

/**
 * A service's environment as its process sees it, with the secret files of `secrets` where the container has
 * them (/run/secrets/<name>, here a temporary folder): only the secrets the service declares are there.
 */
function environmentWithSecrets(
  name: string,
  secrets: Readonly<Record<string, string>> = OPERATOR_SECRETS,
  env: Readonly<Record<string, string>> = sandboxEnv(),
  files?: readonly string[],
): Record<string, string> {
  const found = service(name, files, env);
  const dir = mkdtempSync(join(secretsDir, `${name}-`));
  for (const secret of found.secrets) {
    const content = secrets[secret];
    if (content !== undefined) writeFileSync(join(dir, secret), content);
  }
  return Object.fromEntries(
    Object.entries(found.environment).map(([key, value]) => [
      key,
      value.replace(/^\/run\/secrets(?=\/)/, dir),
    ]),
  );
}

/** What each process of ours reads its configuration with (src/main/*.ts), by compose service. */
const PROCESSES: Readonly<Record<string, readonly ((env: Record<string, string | undefined>) => unknown)[]>> =
  {
    worker: [loadWorkerConfig],
    api: [loadApiConfig, loadTracingConfig],
    'codec-server': [loadCodecServerConfig],
    schedule: [loadReplayScheduleConfig],
  };

/** Other branches of the configuration, each read once: an S3 store, OIDC bearer tokens. */
const VARIANTS: readonly Readonly<Record<string, string>>[] = [
  {},
  { DOCUMENT_STORE: 's3', DOCUMENT_STORE_S3_ALLOW_INSECURE_HTTP: 'true' },
  { API_OIDC_JWKS_URL: 'https://login.example.com/jwks', API_OIDC_ISSUER: 'https://login.example.com' },
];

/** Variables @temporalio/envconfig reads but never applies, and why: compose must not pass them. */
const READ_BUT_IGNORED: Readonly<Record<string, string>> = {
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'read into the TOML profile, but fromTomlTLS (utils.js) drops it',
};

/** Temporal's standard variables, read for src/config.ts by @temporalio/envconfig (as the Temporal CLI does). */
const TEMPORAL_CLIENT_VARIABLES = [
  ...new Set(
    readFileSync(require.resolve('@temporalio/envconfig/lib/envconfig-toml.js'), 'utf8').match(
      /\bTEMPORAL_[A-Z_]*[A-Z]\b/g,
    ),
  ),
].filter((name) => !(name in READ_BUT_IGNORED));

/** Variables a process reads that compose leaves out on purpose, and why. */
const NOT_IN_COMPOSE: Readonly<Record<string, string>> = {
  PAYLOAD_ENCRYPTION: 'only `off`, for local experiments: a deployment always encrypts payloads',
  BADGE_CLIENT_ID:
    'client credentials: compose signs in with user credentials (BADGE_USERNAME is required there); a tenant given a client id sets these in an override file',
  BADGE_CLIENT_SECRET: 'as BADGE_CLIENT_ID',
  BADGE_CLIENT_SECRET_FILE: 'as BADGE_CLIENT_ID',
  BADGE_CLIENT_AUTH: 'as BADGE_CLIENT_ID',
  BADGE_TOKEN_PATH: 'the spec’s token path; a platform with another sets it in an override file',
  WEBHOOK_ALLOW_HTTP_LOOPBACK: 'loopback inside a container is the container itself',
  DOCUMENT_STORE_S3_SESSION_TOKEN:
    'short-lived: a container uses the SDK’s own chain (an instance role) instead',
  DOCUMENT_STORE_S3_SESSION_TOKEN_FILE: 'as DOCUMENT_STORE_S3_SESSION_TOKEN',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS:
    'traces are the only signal: OTEL_EXPORTER_OTLP_HEADERS (a secret file) covers them',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS_FILE: 'as OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  TEMPORAL_TLS_CERT_PATH: 'an earlier name, read only to refuse it naming TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_KEY_PATH: 'an earlier name, read only to refuse it naming TEMPORAL_TLS_CLIENT_KEY_PATH',
  TEMPORAL_TLS_CA_PATH: 'an earlier name, read only to refuse it naming TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  OTEL_SERVICE_NAME: 'each process names itself; one .env value would give the worker and the API one name',
  TEMPORAL_TLS_CLIENT_CERT_DATA: 'PEM in the environment: mount the file, TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_CLIENT_KEY_DATA: 'PEM in the environment: mount the file, TEMPORAL_TLS_CLIENT_KEY_PATH',
  TEMPORAL_TLS_SERVER_CA_CERT_DATA:
    'PEM in the environment: mount the file, TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  TEMPORAL_CODEC_ENDPOINT: 'not used: payloads are encrypted in the process with PAYLOAD_KEYS',
  TEMPORAL_CODEC_AUTH: 'not used: payloads are encrypted in the process with PAYLOAD_KEYS',
  TEMPORAL_GRPC_META_: 'a prefix, not a variable: gRPC headers by name, for an override file',
};

/** Variables compose sets to one value on purpose, and why. */
const FIXED_BY_COMPOSE: Readonly<Record<string, string>> = {
  DOCUMENTS_ROOT: 'where the `documents` volume is mounted',
  WORKFLOW_BUNDLE_PATH: 'the bundle the image prebuilds',
  METRICS_HOST: 'all interfaces of the container, for a scraper on the compose network',
  API_HOST: 'all interfaces of the container; compose publishes the port',
  API_PORT: 'the port compose publishes and probes',
};

/**
 * The variables `readers` read from a service's environment (and its branches): a recording proxy, which
 * counts a name read directly (`env.X`, `env[X]`) and not one only listed (`Object.entries(env)`), plus
 * Temporal's own variables for every process that connects to Temporal.
 */
function namesRead(
  readers: readonly ((env: Record<string, string | undefined>) => unknown)[],
  name: string,
  files: readonly string[] | undefined,
  env: Readonly<Record<string, string>>,
): Set<string> {
  const names = new Set<string>();
  for (const variant of VARIANTS) {
    const target: Record<string, string | undefined> = {
      ...environmentWithSecrets(name, OPERATOR_SECRETS, env, files),
      ...variant,
    };
    let listed: string | symbol | undefined;
    const recording = new Proxy(target, {
      getOwnPropertyDescriptor(object, key) {
        listed = key;
        return Reflect.getOwnPropertyDescriptor(object, key);
      },
      get(object, key) {
        if (typeof key === 'string' && key !== listed) names.add(key);
        listed = undefined;
        return Reflect.get(object, key) as unknown;
      },
    });
    for (const read of readers) {
      try {
        read(recording);
      } catch {
        // A branch may be invalid as a whole (OIDC without an audience); what it read until then counts.
      }
    }
  }
  // TEMPORAL_TASK_QUEUE is ours; the process connects to Temporal with the profile envconfig reads.
  if (names.has('TEMPORAL_TASK_QUEUE')) for (const key of TEMPORAL_CLIENT_VARIABLES) names.add(key);
  return names;
}

const OIDC_OVERLAY = ['docker-compose.yml', 'deploy/compose.oidc.yml'];
/** The OIDC overlay's required settings. */
const OIDC_ENV = {
  TEMPORAL_UI_PUBLIC_URL: 'https://temporal.example.com',
  CODEC_PUBLIC_URL: 'https://codec.example.com',
};

/** Runs a command to completion; rejects with its output when it exits non-zero. */
function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolveRun, rejectRun) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', rejectRun);
    // 'close', not 'exit': the output may still be arriving when the process has exited.
    child.once('close', (code) =>
      code === 0 ? resolveRun(output) : rejectRun(new Error(`${command} exited with ${code}: ${output}`)),
    );
  });
}

describe('compose interpolation (test helper)', () => {
  it('follows compose: defaults, required variables, $$', () => {
    const env = { SET: 'value', EMPTY: '' };
    expect(interpolate('${SET:-x} ${EMPTY:-x} ${EMPTY-x} ${UNSET-x} $SET $$HOME', env)).toBe(
      'value x  x value $HOME',
    );
    expect(() => interpolate('${EMPTY:?set EMPTY}', env)).toThrow(
      new ComposeInterpolationError('EMPTY: set EMPTY'),
    );
    expect(interpolate('${EMPTY?unused}', env)).toBe('');
  });
});

describe('docker-compose.yml', () => {
  it('gives the worker, with .env.example and the secret files, an environment the worker config accepts', () => {
    const config = loadWorkerConfig(environmentWithSecrets('worker'));

    expect(config.temporal).toMatchObject({
      address: 'temporal:7233',
      namespace: 'badge-orders',
      taskQueue: 'badge-orders',
    });
    expect(connectionOptions(config.temporal)).toMatchObject({ tls: undefined, apiKey: undefined });
    expect(config.platform).toMatchObject({
      baseUrl: 'http://sandbox:4010',
      credentials: { username: 'demo', password: 'demo-password' },
    });
    expect(config.documentsRoot).toBe('/data/documents');
    expect(config.workflowBundlePath).toBe('/app/bundle/workflows.js');
    expect(config.temporal.codec.payloadKeys.ids).toEqual(['k2025']);
    // An API key in its file reaches the connection (Temporal Cloud).
    const cloud = loadWorkerConfig(
      environmentWithSecrets('worker', { ...OPERATOR_SECRETS, temporal_api_key: 'cloud-api-key\n' }),
    );
    expect(connectionOptions(cloud.temporal)).toMatchObject({ apiKey: 'cloud-api-key' });
  });

  it('gives the API, with .env.example and the secret files, an environment the API config accepts', () => {
    const api = service('api');
    const config = loadApiConfig(environmentWithSecrets('api'));
    expect(config).toMatchObject({ host: '0.0.0.0', port: 8090 });
    expect(config.apiKeys).toEqual([
      { id: 'backend', sha256: hashApiKey('bo_operator-key'), scopes: ['orders:write', 'orders:read'] },
    ]);
    // The same Temporal, keys and store as the worker: the orders it starts are the worker's orders.
    const worker = loadWorkerConfig(environmentWithSecrets('worker'));
    expect(config.temporal).toMatchObject({
      address: worker.temporal.address,
      namespace: worker.temporal.namespace,
      taskQueue: worker.temporal.taskQueue,
    });
    expect(config.temporal.codec.payloadKeys.ids).toEqual(['k2025']);
    expect(config.documents).toMatchObject({
      documentsRoot: worker.documentsRoot,
      maxDocumentBytes: worker.maxDocumentBytes,
      store: worker.documentStore,
    });
    expect(config.documents.store).toEqual({ kind: 'local' });
    // Uploads are written where the workers read them: the same volume, writable here only.
    expect(api.volumes).toEqual(['documents:/data/documents']);
    expect(service('worker').volumes).toEqual(['documents:/data/documents:ro']);
    // Published on the host's loopback; the health check asks the port the API listens on.
    expect(api.ports).toEqual([`127.0.0.1:${config.port}:${config.port}`]);
    expect(api.healthcheck?.test.join(' ')).toContain('/healthz');
    expect(api.healthcheck?.test.at(-1)).toBe(String(config.port));
    expect(api.command).toEqual(['node', 'dist/main/api.js']);
    // Without a keys file entry nobody could call it: it refuses to start, naming API_KEYS_FILE.
    expect(() =>
      loadApiConfig(environmentWithSecrets('api', { ...OPERATOR_SECRETS, api_keys: '{"keys":[]}' })),
    ).toThrow(/API_KEYS_FILE/);
    expect(() => loadApiConfig(environmentWithSecrets('api', { ...OPERATOR_SECRETS, api_keys: '' }))).toThrow(
      /API_KEYS_FILE/,
    );
  });

  it('switches the worker and the API to the `s3` profile’s store with DOCUMENT_STORE=s3', () => {
    const env = { ...sandboxEnv(), ...S3_PROFILE_ENV };
    const s3 = service('s3', undefined, env);
    expect(s3.profiles).toEqual(['s3']);
    expect(s3.image).toBe('versity/versitygw:v1.8.0');
    const expected = {
      kind: 's3',
      bucket: s3.environment.DOCUMENT_STORE_S3_BUCKET,
      endpoint: 'http://s3:7070',
      region: 'us-east-1',
      allowInsecureHttp: true,
      credentials: { accessKeyId: 'operator-s3-key-id', secretAccessKey: 'operator-s3-secret' },
    };
    expect(loadWorkerConfig(environmentWithSecrets('worker', S3_SECRETS, env)).documentStore).toMatchObject(
      expected,
    );
    expect(loadApiConfig(environmentWithSecrets('api', S3_SECRETS, env)).documents.store).toMatchObject(
      expected,
    );
    // The server listens where the endpoint points, and takes its root key from the same secret files.
    const command = s3.command?.join(' ') ?? '';
    expect(command).toContain('--port :7070');
    expect(command).toContain('mkdir -p "/data/$DOCUMENT_STORE_S3_BUCKET"');
    expect(command).toContain('$(cat /run/secrets/document_store_s3_access_key_id)');
    expect(command).toContain('$(cat /run/secrets/document_store_s3_secret_access_key)');
    expect(s3.volumes).toEqual(['s3-data:/data']);
    expect(Object.keys(loadCompose(env).volumes)).toContain('s3-data');
    // A plain-HTTP store off loopback is refused unless the operator allows it (the example does not).
    expect(() =>
      loadWorkerConfig(
        environmentWithSecrets('worker', S3_SECRETS, { ...sandboxEnv(), DOCUMENT_STORE: 's3' }),
      ),
    ).toThrow(/DOCUMENT_STORE_S3_ALLOW_INSECURE_HTTP/);
  });

  it('passes every variable a process reads through .env, and sets none it does not read', () => {
    const sentinel = (name: string): string => `set-through-compose-${name}`;
    for (const [name, reader] of Object.entries(PROCESSES)) {
      const files = name === 'codec-server' ? OIDC_OVERLAY : undefined;
      const env = name === 'codec-server' ? { ...sandboxEnv(), ...OIDC_ENV } : sandboxEnv();
      const environment = service(name, files, env).environment;
      const read = namesRead(reader, name, files, env);
      // Read but not in the service's environment (a secret counts as set through its `_FILE`).
      const unset = [...read].filter(
        (key) => !(key in environment) && !(`${key}_FILE` in environment) && !(key in NOT_IN_COMPOSE),
      );
      // In the service's environment but read by no code of that process.
      const unread = Object.keys(environment).filter((key) => !read.has(key));
      expect({ name, unset, unread }).toEqual({ name, unset: [], unread: [] });
      if (files !== undefined) continue;
      // Each one is a path to a secret file, fixed by compose on purpose, or taken from .env as it is.
      const fromEnv = loadCompose({
        ...sandboxEnv(),
        ...Object.fromEntries(Object.keys(environment).map((key) => [key, sentinel(key)])),
      }).services[name]?.environment;
      const fixed = Object.keys(environment).filter(
        (key) =>
          fromEnv?.[key] !== sentinel(key) &&
          !environment[key]?.startsWith('/run/secrets/') &&
          !(key in FIXED_BY_COMPOSE),
      );
      expect({ name, fixed }).toEqual({ name, fixed: [] });
    }
  });

  it('reads only declared variables, and sets every variable a deployment needs (src/config.ts)', () => {
    const declared = new Set(VARIABLES.flatMap((v) => (v.secret ? [v.name, `${v.name}_FILE`] : [v.name])));
    for (const [name, reader] of Object.entries(PROCESSES)) {
      const files = name === 'codec-server' ? OIDC_OVERLAY : undefined;
      const env = name === 'codec-server' ? { ...sandboxEnv(), ...OIDC_ENV } : sandboxEnv();
      const environment = service(name, files, env).environment;
      // What the process reads is declared (Temporal's own variables: @temporalio/envconfig reads those).
      const undeclared = [...namesRead(reader, name, files, env)].filter(
        (key) => !declared.has(key) && !TEMPORAL_CLIENT_VARIABLES.includes(key) && !(key in NOT_IN_COMPOSE),
      );
      // What a deployment must set is in the service's environment, as a value or a secret file.
      const missing = VARIABLES.filter(
        (v) => v.required === true && v.processes.includes(name as (typeof v.processes)[number]),
      )
        .map((v) => v.name)
        .filter((key) => !(key in environment) && !(`${key}_FILE` in environment));
      expect({ name, undeclared, missing }).toEqual({ name, undeclared: [], missing: [] });
    }
  });

  it('applies the nightly Schedule from the stack: a one-shot job after the namespace, with the worker’s Temporal', () => {
    const schedule = service('schedule');
    expect(schedule.command).toEqual(['node', 'dist/main/schedule.js', 'apply']);
    expect(schedule.depends_on).toEqual({
      'temporal-setup': { condition: 'service_completed_successfully' },
    });
    const config = loadReplayScheduleConfig(environmentWithSecrets('schedule'));
    const worker = loadWorkerConfig(environmentWithSecrets('worker'));
    expect(config.temporal).toMatchObject({
      address: worker.temporal.address,
      namespace: worker.temporal.namespace,
      taskQueue: worker.temporal.taskQueue,
    });
    // Its action's input is encrypted with the keys the worker decrypts with.
    expect(config.temporal.codec.payloadKeys.ids).toEqual(worker.temporal.codec.payloadKeys.ids);
    expect(config).toMatchObject({ time: { hour: 2, minute: 0 }, timezone: 'Europe/Berlin' });
  });

  it('stops the worker without payload keys, naming PAYLOAD_KEYS and PAYLOAD_ENCRYPTION', () => {
    for (const payloadKeys of [undefined, '']) {
      const secrets = { ...OPERATOR_SECRETS, payload_keys: payloadKeys };
      const load = (): unknown =>
        loadWorkerConfig(
          environmentWithSecrets(
            'worker',
            Object.fromEntries(
              Object.entries(secrets).filter((entry): entry is [string, string] => entry[1] !== undefined),
            ),
          ),
        );
      expect(load).toThrow(
        payloadKeys === undefined
          ? /PAYLOAD_KEYS_FILE: cannot read/
          : /PAYLOAD_KEYS: is required.*PAYLOAD_ENCRYPTION=off/,
      );
    }
  });

  it('refuses a plain-HTTP platform with .env.example’s settings: only deploy/sandbox.env allows it', () => {
    expect(exampleEnv().BADGE_ALLOW_INSECURE_HTTP).toBe('false');
    const env: Record<string, string> = { ...operatorEnv(), BADGE_BASE_URL: 'http://platform.example.com' };
    const worker = loadCompose(env).services.worker;
    expect(worker?.environment.BADGE_ALLOW_INSECURE_HTTP).toBe('false');
    const platform = {
      BADGE_BASE_URL: worker?.environment.BADGE_BASE_URL,
      BADGE_ALLOW_INSECURE_HTTP: worker?.environment.BADGE_ALLOW_INSECURE_HTTP,
    };
    expect(() => loadWorkerConfig({ ...environmentWithSecrets('worker'), ...platform })).toThrow(
      /BADGE_BASE_URL: .*BADGE_ALLOW_INSECURE_HTTP=true/,
    );
  });

  it('gives the codec server the worker’s keys and an environment its config accepts', () => {
    const codec = service('codec-server');
    const config = loadCodecServerConfig(environmentWithSecrets('codec-server'));
    expect(config).toMatchObject({ host: '0.0.0.0', port: 8888, corsOrigin: 'http://localhost:8080' });
    expect(config.payloadKeys.ids).toEqual(['k2025']);
    expect(codec.environment.PAYLOAD_KEYS_FILE).toBe(service('worker').environment.PAYLOAD_KEYS_FILE);
    expect(codec.ports).toEqual(['127.0.0.1:8888:8888']);
    // Without generated secrets it refuses to start, naming what is missing.
    expect(() =>
      loadCodecServerConfig(
        environmentWithSecrets('codec-server', { payload_keys: '', codec_server_token: '' }),
      ),
    ).toThrow(/PAYLOAD_KEYS.*CODEC_SERVER_TOKEN|CODEC_SERVER_TOKEN.*PAYLOAD_KEYS/);
  });

  it('refuses to interpolate without the settings that have no safe default, which .env.example leaves empty', () => {
    const required = ['POSTGRES_PASSWORD', 'BADGE_BASE_URL', 'BADGE_USERNAME', 'WEBHOOK_ALLOWED_HOSTS'];
    for (const name of required) {
      expect({ name, example: exampleEnv()[name] }).toEqual({ name, example: '' });
      const env = { ...operatorEnv(), [name]: '' };
      expect(() => loadCompose(env)).toThrow(ComposeInterpolationError);
      expect(() => loadCompose(env)).toThrow(name);
    }
  });

  it('delivers webhooks only to the listed hosts, or to any host when WEBHOOK_ALLOWED_HOSTS is * on purpose', () => {
    const listed = loadWorkerConfig(environmentWithSecrets('worker', OPERATOR_SECRETS, operatorEnv()));
    expect(listed.webhooks.allowedHosts).toEqual(['hooks.example.com']);
    const open = { ...operatorEnv(), WEBHOOK_ALLOWED_HOSTS: '*' };
    expect(
      loadWorkerConfig(environmentWithSecrets('worker', OPERATOR_SECRETS, open)).webhooks.allowedHosts,
    ).toEqual([]);
    expect(
      loadApiConfig(environmentWithSecrets('api', OPERATOR_SECRETS, open)).webhooks.allowedHosts,
    ).toEqual([]);
    const mixed = { ...operatorEnv(), WEBHOOK_ALLOWED_HOSTS: '*,hooks.example.com' };
    expect(() => loadWorkerConfig(environmentWithSecrets('worker', OPERATOR_SECRETS, mixed))).toThrow(
      /WEBHOOK_ALLOWED_HOSTS: "\*" allows any host/,
    );
  });

  it('reads every secret of the worker and the codec server from files, never from environment values', () => {
    const compose = loadCompose(sandboxEnv());
    const storeSecrets = ['document_store_s3_access_key_id', 'document_store_s3_secret_access_key'];
    expect(compose.services.worker?.secrets).toEqual([
      'badge_password',
      'payload_keys',
      'temporal_api_key',
      'webhook_secrets',
      ...storeSecrets,
      'otel_exporter_otlp_headers',
    ]);
    expect(compose.services.api?.secrets).toEqual([
      'api_keys',
      'payload_keys',
      'temporal_api_key',
      ...storeSecrets,
      'otel_exporter_otlp_headers',
    ]);
    expect(compose.services.schedule?.secrets).toEqual(['payload_keys', 'temporal_api_key']);
    expect(compose.services.s3?.secrets).toEqual(storeSecrets);
    expect(compose.services['codec-server']?.secrets).toEqual(['payload_keys', 'codec_server_token']);
    for (const name of Object.keys(OPERATOR_SECRETS)) {
      expect(compose.secrets[name]?.file).toBe(join(PROJECT_ROOT, 'deploy', 'secrets', name));
    }
    // SECRETS_DIR moves them all, e.g. out of the checkout.
    const moved = loadCompose({ ...sandboxEnv(), SECRETS_DIR: '/etc/badge-orders/secrets' });
    expect(Object.values(moved.secrets).map((secret) => secret.file)).toEqual(
      Object.keys(compose.secrets).map((name) => `/etc/badge-orders/secrets/${name}`),
    );
    const secretVariable = /PASSWORD|TOKEN|KEYS|API_KEY|SECRET|HEADERS/;
    for (const name of ['worker', 'api', 'codec-server', 's3', 'schedule']) {
      const environment = compose.services[name]?.environment ?? {};
      // BADGE_IDEMPOTENCY_KEYS says how the platform treats Idempotency-Key: a mode, not a key.
      const direct = Object.keys(environment).filter(
        (key) => secretVariable.test(key) && !key.endsWith('_FILE') && key !== 'BADGE_IDEMPOTENCY_KEYS',
      );
      expect({ name, direct }).toEqual({ name, direct: [] });
    }
    // The example holds no secret of theirs either.
    for (const key of [
      'BADGE_PASSWORD',
      'PAYLOAD_KEYS',
      'CODEC_SERVER_TOKEN',
      'TEMPORAL_API_KEY',
      'API_KEYS',
      'DOCUMENT_STORE_S3_ACCESS_KEY_ID',
      'DOCUMENT_STORE_S3_SECRET_ACCESS_KEY',
    ]) {
      expect(sandboxEnv()[key]).toBeUndefined();
    }
    // deploy/compose.secrets.yml is kept for existing commands and changes nothing.
    expect(loadCompose(sandboxEnv(), SECRETS_OVERRIDE).services).toEqual(compose.services);
  });

  it('lets workers scale: no fixed name or port, documents on a shared named volume', () => {
    const compose = loadCompose(sandboxEnv());
    const worker = compose.services.worker;
    expect(worker?.container_name).toBeUndefined();
    expect(worker?.ports).toEqual([]);
    const [volume, mountPoint] =
      (worker?.volumes ?? []).find((entry) => entry.startsWith('documents:'))?.split(':') ?? [];
    expect(mountPoint).toBe(worker?.environment.DOCUMENTS_ROOT);
    expect(Object.keys(compose.volumes)).toContain(volume);
  });

  it('runs Temporal on PostgreSQL with pinned images, never auto-setup or latest', () => {
    const services = Object.values(loadCompose(sandboxEnv()).services);
    for (const { image } of services) {
      expect(image).toMatch(/^[\w./-]+:[\w.-]+$/);
      expect(image).not.toMatch(/:latest$|auto-setup/);
    }
    const images = services.map((entry) => entry.image?.split(':')[0]);
    expect(images).toEqual(
      expect.arrayContaining(['postgres', 'temporalio/server', 'temporalio/admin-tools', 'temporalio/ui']),
    );
    expect(service('temporal').environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
  });

  it('starts in order: database, schema, server, namespace and search attributes, then workers', () => {
    expect(service('temporal-schema').depends_on).toEqual({ postgresql: { condition: 'service_healthy' } });
    expect(service('temporal').depends_on).toEqual({
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
    expect(service('temporal-setup').depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
    expect(service('api').depends_on).toEqual({
      'temporal-setup': { condition: 'service_completed_successfully' },
    });
    // The API creates the local store's folders; workers mount them read-only.
    expect(service('worker').depends_on).toEqual({
      'temporal-setup': { condition: 'service_completed_successfully' },
      api: { condition: 'service_healthy' },
    });
    for (const name of ['postgresql', 'temporal', 'codec-server', 'sandbox', 'api', 's3']) {
      expect(service(name).healthcheck?.test.length).toBeGreaterThan(0);
    }
  });

  it('creates the worker’s namespace and every search attribute of the contract as Keyword', () => {
    expect(service('temporal-setup').environment.TEMPORAL_NAMESPACE).toBe(
      service('worker').environment.TEMPORAL_NAMESPACE,
    );
    const script = readFileSync(join(PROJECT_ROOT, 'deploy', 'temporal', 'setup-namespace.sh'), 'utf8');
    const listed = /^SEARCH_ATTRIBUTES="([^"]*)"$/m.exec(script)?.[1]?.split(' ');
    expect(listed?.sort()).toEqual(BADGE_SEARCH_ATTRIBUTES.map((key) => key.name).sort());
    expect(BADGE_SEARCH_ATTRIBUTES.every((key) => key.type === 'KEYWORD')).toBe(true);
  });

  it('points the Web UI at the codec server, which shares the worker’s keys; the sandbox is a profile', () => {
    expect(service('temporal-ui').environment.TEMPORAL_CODEC_ENDPOINT).toBe('http://localhost:8888');
    expect(service('codec-server').command).toEqual(['node', 'dist/main/codec-server.js']);
    expect(service('sandbox').profiles).toEqual(['sandbox']);
    expect(service('worker').command).toEqual(['node', 'dist/main/worker.js']);
    expect(service('sandbox').command?.slice(0, 2)).toEqual(['node', 'dist/sandbox/main.js']);
  });

  it('runs a supported Node.js: the current LTS in the image, engines without end-of-life Node.js 20', () => {
    const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1] ?? '';
    expect(image).toMatch(/^node:24(\.\d+){0,2}-bookworm-slim$/);
    const { engines } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    // engines is a lower bound, `>=major.minor[.patch]`.
    const floor = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(engines.node);
    expect(floor).not.toBeNull();
    const bound = [1, 2, 3].map((group) => Number(floor?.[group] ?? 0));
    const satisfies = (version: string): boolean => {
      const parts = version.split('.').map(Number);
      for (const [index, least] of bound.entries()) {
        const part = parts[index] ?? 0;
        if (part !== least) return part > least;
      }
      return true;
    };
    for (const version of ['20.19.0', '20.20.2', '22.11.0']) {
      expect({ version, supported: satisfies(version) }).toEqual({ version, supported: false });
    }
    for (const version of ['22.12.0', '24.0.0', '24.11.1']) {
      expect({ version, supported: satisfies(version) }).toEqual({ version, supported: true });
    }
  });

  it('uses the bundle path the Dockerfile builds, which no compiled module overwrites', () => {
    const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('tools/build-workflow-bundle.ts --out bundle/workflows.js');
    // tsc writes src/<x>.ts to dist/<x>.js: a bundle there would replace a module (it once replaced
    // dist/workflow-bundle.js, and the worker in the image crashed at start).
    const { compilerOptions } = JSON.parse(
      readFileSync(join(PROJECT_ROOT, 'tsconfig.build.json'), 'utf8'),
    ) as {
      compilerOptions: { outDir: string };
    };
    expect(`bundle/workflows.js`.startsWith(`${compilerOptions.outDir}/`)).toBe(false);
    expect(dockerfile).toMatch(/^WORKDIR \/app$/m);
    expect(dockerfile).toContain(
      `WORKFLOW_BUNDLE_PATH=${service('worker').environment.WORKFLOW_BUNDLE_PATH}`,
    );
    expect(dockerfile).toMatch(/^USER node$/m);
  });
});

describe('tools/build-workflow-bundle.ts', () => {
  let stack: TestStack;
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'badge-bundle-'));
    stack = await startTestStack();
  });

  afterAll(async () => {
    await stack?.teardown();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('writes a bundle that a worker configured like the compose worker runs orders with', async () => {
    const bundlePath = join(scratch, 'bundle', 'workflows.js');
    const output = await run(process.execPath, [
      '--import',
      'tsx',
      'tools/build-workflow-bundle.ts',
      '--out',
      bundlePath,
    ]);
    expect(output).toContain(`workflow bundle written to ${bundlePath}`);

    const config = loadWorkerConfig({
      ...environmentWithSecrets('worker'),
      TEMPORAL_ADDRESS: stack.temporal.server.address,
      TEMPORAL_NAMESPACE: stack.temporal.server.namespace,
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      BADGE_BASE_URL: stack.sandbox.baseUrl,
      DOCUMENTS_ROOT: stack.documentsRoot,
      WORKFLOW_BUNDLE_PATH: bundlePath,
    });
    // The stack's client encrypts with the stack's key, so the worker gets that key instead of the example's.
    const withStackKeys = {
      ...config,
      temporal: { ...config.temporal, codec: stack.workerConfig.temporal.codec },
    };
    // No workflowBundle override: the worker loads the bundle from WORKFLOW_BUNDLE_PATH, as in the image.
    const { worker, connection } = await createBadgeOrderWorker(withStackKeys, pino({ level: 'silent' }));
    try {
      stack.writeDocument('bundle/form.pdf', '%PDF bundle');
      const result = await worker.runUntil(async () => {
        const started = await stack.orders.startOrder({
          orderRef: 'prebuilt-bundle',
          stockId: 1001,
          vehicle: { licensePlate: 'B-XY 1234', vin: 'WVWZZZ1JZXW000001', fuel: 'diesel' },
          badge: { type: 'green', validFrom: '2027-01-01' },
          documents: [{ path: 'bundle/form.pdf' }],
        });
        return started.handle.result();
      });
      expect(result.documents.map((document) => document.status)).toEqual(['uploaded']);
      const state = await stack.sandbox.control.state();
      expect(state.orders).toEqual([expect.objectContaining({ id: result.orderId, stock_id: 1001 })]);
      expect(state.documents).toEqual([
        expect.objectContaining({ document_type_id: result.orderId, document_owner: DEMO_USER.id }),
      ]);
    } finally {
      await connection.close();
    }
  });
});
