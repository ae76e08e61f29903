/**
 * Reads docker-compose.yml the way `docker compose` does, without a Docker engine: YAML (with merge keys),
 * variables interpolated from an env file (`.env.example` in tests), override files merged per service.
 * Only what the deployment tests need: environment, volumes, ports, images, depends_on, profiles, secrets.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { load } from 'js-yaml';

/** The project folder (where docker-compose.yml lives). */
export const PROJECT_ROOT = resolve(__dirname, '..', '..');

type Env = Readonly<Record<string, string | undefined>>;

/** One service of the compose file, after interpolation. */
export interface ComposeService {
  readonly image?: string;
  readonly build?: unknown;
  readonly command?: readonly string[];
  readonly container_name?: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly ports: readonly string[];
  readonly volumes: readonly string[];
  readonly depends_on: Readonly<Record<string, { readonly condition: string }>>;
  readonly profiles: readonly string[];
  readonly secrets: readonly string[];
  readonly healthcheck?: { readonly test: readonly string[] };
}

/** The parts of a compose file the tests look at. */
export interface ComposeFile {
  readonly services: Readonly<Record<string, ComposeService>>;
  readonly volumes: Readonly<Record<string, unknown>>;
  readonly secrets: Readonly<Record<string, { readonly file: string }>>;
}

/** Thrown like `docker compose` fails: a `${VAR:?message}` whose variable is unset or empty. */
export class ComposeInterpolationError extends Error {
  override readonly name = 'ComposeInterpolationError';
}

/** Parses a `.env` file: `NAME=value` lines, `#` comments, no quoting (as .env.example is written). */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const separator = trimmed.indexOf('=');
    if (separator <= 0) throw new Error(`not NAME=value: ${line}`);
    env[trimmed.slice(0, separator).trim()] = trimmed.slice(separator + 1).trim();
  }
  return env;
}

const VARIABLE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** Compose's interpolation: `$$`, `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?err}`, `${VAR?err}`. */
export function interpolate(text: string, env: Env): string {
  return text.replace(
    VARIABLE,
    (
      match,
      braced: string | undefined,
      operator: string | undefined,
      argument: string | undefined,
      bare: string | undefined,
    ) => {
      if (match === '$$') return '$';
      const name = braced ?? bare ?? '';
      const value = env[name];
      const missing = operator?.startsWith(':') ? value === undefined || value === '' : value === undefined;
      if (operator?.endsWith('-')) return missing ? (argument ?? '') : (value ?? '');
      if (operator?.endsWith('?') && missing) {
        throw new ComposeInterpolationError(`${name}: ${argument || 'is required'}`);
      }
      return value ?? '';
    },
  );
}

function interpolateTree(value: unknown, env: Env): unknown {
  if (typeof value === 'string') return interpolate(value, env);
  if (Array.isArray(value)) return value.map((item) => interpolateTree(item, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateTree(item, env)]));
  }
  return value;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A scalar as compose reads it (`8888` and `'8888'` alike); anything else as JSON, so a test can show it. */
function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  return JSON.stringify(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(text) : [];
}

/** Environment as a map whether written as a map or as `NAME=value` items; numbers become strings. */
function environmentOf(value: unknown): Record<string, string> {
  if (Array.isArray(value)) {
    return Object.fromEntries(
      value.map(text).map((item) => {
        const separator = item.indexOf('=');
        return separator < 0 ? [item, ''] : [item.slice(0, separator), item.slice(separator + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(record(value)).map(([key, item]) => [key, text(item)]));
}

function dependsOnOf(value: unknown): Record<string, { condition: string }> {
  if (Array.isArray(value))
    return Object.fromEntries(value.map((name) => [text(name), { condition: 'service_started' }]));
  return Object.fromEntries(
    Object.entries(record(value)).map(([name, item]) => [name, { condition: text(record(item).condition) }]),
  );
}

function serviceOf(raw: Record<string, unknown>): ComposeService {
  const healthcheck = record(raw.healthcheck);
  return {
    ...(raw.image !== undefined ? { image: text(raw.image) } : {}),
    ...(raw.build !== undefined ? { build: raw.build } : {}),
    ...(Array.isArray(raw.command) ? { command: strings(raw.command) } : {}),
    ...(raw.container_name !== undefined ? { container_name: text(raw.container_name) } : {}),
    environment: environmentOf(raw.environment),
    ports: strings(raw.ports),
    volumes: strings(raw.volumes),
    depends_on: dependsOnOf(raw.depends_on),
    profiles: strings(raw.profiles),
    secrets: strings(raw.secrets),
    ...(Array.isArray(healthcheck.test) ? { healthcheck: { test: strings(healthcheck.test) } } : {}),
  };
}

/** Merges an override into a service as compose does for these keys: maps by key, lists appended. */
function mergeService(
  base: Record<string, unknown>,
  override: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base, ...override };
  merged.environment = { ...environmentOf(base.environment), ...environmentOf(override.environment) };
  for (const key of ['secrets', 'volumes', 'ports'] as const) {
    merged[key] = [...strings(base[key]), ...strings(override[key])];
  }
  return merged;
}

/** Loads compose files (paths relative to the project folder), interpolated with `env`, overrides merged. */
export function loadCompose(env: Env, files: readonly string[] = ['docker-compose.yml']): ComposeFile {
  const services: Record<string, Record<string, unknown>> = {};
  const volumes: Record<string, unknown> = {};
  const secrets: Record<string, { file: string }> = {};
  for (const file of files) {
    const raw = record(interpolateTree(load(readFileSync(resolve(PROJECT_ROOT, file), 'utf8')), env));
    for (const [name, service] of Object.entries(record(raw.services))) {
      services[name] = mergeService(services[name] ?? {}, record(service));
    }
    Object.assign(volumes, record(raw.volumes));
    for (const [name, secret] of Object.entries(record(raw.secrets))) {
      secrets[name] = { file: resolve(PROJECT_ROOT, text(record(secret).file)) };
    }
  }
  return {
    services: Object.fromEntries(Object.entries(services).map(([name, raw]) => [name, serviceOf(raw)])),
    volumes,
    secrets,
  };
}

/** The variables of `.env.example`, as an operator's `.env` starts out (its required settings empty). */
export function exampleEnv(): Record<string, string> {
  return parseEnvFile(readFileSync(resolve(PROJECT_ROOT, '.env.example'), 'utf8'));
}

/** An operator's `.env` for production: `.env.example` with its required settings filled in. */
export function operatorEnv(): Record<string, string> {
  return {
    ...exampleEnv(),
    POSTGRES_PASSWORD: 'operator-generated-postgres-password',
    BADGE_BASE_URL: 'https://platform.example.com',
    BADGE_USERNAME: 'badge-service',
    WEBHOOK_ALLOWED_HOSTS: 'hooks.example.com',
  };
}

/** The operator's `.env` with `deploy/sandbox.env` on top (`--env-file .env --env-file deploy/sandbox.env`). */
export function sandboxEnv(): Record<string, string> {
  return {
    ...operatorEnv(),
    ...parseEnvFile(readFileSync(resolve(PROJECT_ROOT, 'deploy', 'sandbox.env'), 'utf8')),
  };
}
