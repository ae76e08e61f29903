/**
 * The sandbox: a fault-injecting simulation of the Badge Ordering Platform over real HTTP.
 *
 * `startSandbox()` starts one on a TCP port (0 picks a free one), playing one profile of the platform (see
 * `profiles.ts`), and returns its base URL, control token, resolved profile and a control client. See
 * `docs/sandbox.md`.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { SignInLimiter, TokenService } from './auth';
import { DEFAULT_RULES, parseFaultConfig, parseRulesUpdate } from './config';
import type { FaultConfig, SandboxRules, SandboxRulesUpdate } from './config';
import type { SandboxContext } from './context';
import { SandboxControl } from './control-client';
import { FaultInjector } from './faults';
import { DEFAULT_CLIENTS, DEFAULT_USERS } from './fixtures';
import type { SandboxClient, SandboxUser } from './fixtures';
import { resolveProfile } from './profiles';
import type { IdempotencyMode, SandboxProfile, SandboxProfileSelection } from './profiles';
import { seededRandom } from './random';
import type { RandomSource } from './random';
import { buildSandboxApp } from './server';
import { StatsRecorder } from './stats';
import { SandboxStore } from './store';

export { SandboxControl, SandboxControlError } from './control-client';
export type { SandboxControlOptions } from './control-client';
export { DEFAULT_RULES, FAULT_KINDS, SandboxConfigError, parseFaultConfig, parseRulesUpdate } from './config';
export type { FailNextRule, FaultConfig, FaultKind, SandboxRules, SandboxRulesUpdate } from './config';
export {
  BADGE_ONLY_USER,
  DEFAULT_CLIENTS,
  DEFAULT_USERS,
  DEMO_CLIENT,
  DEMO_USER,
  DOCUMENT_ONLY_USER,
} from './fixtures';
export { subjectUuid } from './auth';
export type { SandboxClient, SandboxUser } from './fixtures';
export {
  DEFAULT_PROFILE_NAME,
  DOCUMENT_ID_STYLES,
  DOCUMENT_LINK_STYLES,
  ERROR_STYLES,
  IDEMPOTENCY_MODES,
  ORDER_ENVELOPES,
  ORDER_FIELD_SETS,
  SANDBOX_PROFILE_NAMES,
  SANDBOX_TENANT_ID,
  STOCK_ENVELOPES,
  STRICT_PROFILE_NAMES,
  STOCK_LINK_STYLES,
  STOCK_TOTAL_HEADERS,
  namedProfile,
  resolveProfile,
  sandboxProfileSchema,
} from './profiles';
export type {
  DocumentIdStyle,
  DocumentLinkStyle,
  ErrorStyle,
  IdempotencyMode,
  OrderEnvelope,
  OrderFieldSet,
  SandboxProfile,
  SandboxProfileName,
  SandboxProfileSelection,
  StockEnvelope,
  StrictProfileName,
} from './profiles';
export { seededRandom } from './random';
export type { RandomSource } from './random';
export type { SandboxStats } from './stats';
export type {
  DocumentRecord,
  IdempotencyRecord,
  OrderRecord,
  RecordFilter,
  SandboxState,
  StoredDocument,
  StoredOrder,
} from './store';
export * from './shapes';

/** Options of {@link startSandbox}. Everything is optional. */
export interface StartSandboxOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** Lifetime of issued tokens in seconds (fractional allowed); overrides `rules.tokenTtlSeconds`. @default 900 */
  tokenTtlSeconds?: number;
  /** The users. @default DEFAULT_USERS (demo, badge-only, document-only) */
  users?: readonly SandboxUser[];
  /** Clients of the client credentials grant (profiles such as `strict-client`). @default DEFAULT_CLIENTS (demo-client) */
  clients?: readonly SandboxClient[];
  /** Fault configuration at start. @default {} (no faults) */
  faults?: FaultConfig;
  /** Rules at start; omitted fields take the defaults. @default DEFAULT_RULES */
  rules?: SandboxRulesUpdate;
  /** Bearer token of the control API. @default 32 random bytes, hex */
  controlToken?: string;
  /** Random source for probabilistic faults. @default seededRandom(seed) if `seed` is given, else Math.random */
  random?: RandomSource;
  /** Seed for a deterministic random source (ignored when `random` is given). */
  seed?: number;
  /** Clock in epoch milliseconds, for token expiry without sleeping. @default Date.now */
  now?: () => number;
  /** A pino logger for request logs, or false. @default false */
  logger?: false | Logger;
  /** Directory to write uploaded files to (named by document id). @default none: bytes are hashed and discarded */
  storageDir?: string;
  /**
   * The platform the sandbox plays: a name of {@link SANDBOX_PROFILE_NAMES}, `random:<seed>`, or a whole
   * {@link SandboxProfile}. @default 'reference'
   */
  profile?: SandboxProfileSelection;
  /** Overrides the profile's `idempotency`, e.g. to run any profile with keys ignored. @default the profile's */
  idempotency?: IdempotencyMode;
  /**
   * Serve every platform route (token, stocks, orders, documents) only at its path with a trailing slash; the
   * path without it answers `307 Temporary Redirect` with a relative `Location`, before anything else is looked
   * at, as Starlette and FastAPI do by default. Works with any profile. @default false
   */
  strictSlash?: boolean;
}

/** A running sandbox. */
export interface RunningSandbox {
  /** E.g. `http://127.0.0.1:43123`; all three APIs and the control API live under it. */
  baseUrl: string;
  /** Bearer token of the control API. */
  controlToken: string;
  /** A control client bound to this sandbox. */
  control: SandboxControl;
  /** The resolved profile (also `GET /_sandbox/profile`). */
  profile: SandboxProfile;
  /** Stops listening and closes every connection, including idle keep-alive sockets. */
  close(): Promise<void>;
}

function formatBaseUrl(address: AddressInfo): string {
  const host =
    address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '[::1]' : address.address;
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${bracketed}:${address.port}`;
}

/** Starts a sandbox and resolves once it listens. */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const now = options.now ?? Date.now;
  const random =
    options.random ?? (options.seed !== undefined ? seededRandom(options.seed) : (): number => Math.random());
  const ruleUpdate = parseRulesUpdate({
    ...options.rules,
    ...(options.tokenTtlSeconds !== undefined ? { tokenTtlSeconds: options.tokenTtlSeconds } : {}),
  });
  const rules: SandboxRules = { ...structuredClone(DEFAULT_RULES), ...stripUndefined(ruleUpdate) };
  const controlToken = options.controlToken ?? randomBytes(32).toString('hex');
  const profile = resolveProfile(options.profile, options.idempotency);
  let baseUrl = '';

  const clients = structuredClone([...(options.clients ?? DEFAULT_CLIENTS)]);
  const ctx: SandboxContext = {
    users: structuredClone([...(options.users ?? DEFAULT_USERS)]),
    clients,
    store: new SandboxStore(profile.orders.firstOrderId),
    stats: new StatsRecorder(),
    faults: new FaultInjector(parseFaultConfig(options.faults ?? {}), random),
    rules,
    tokens: new TokenService(now, profile.token, clients),
    signIns: new SignInLimiter(profile.token.signInLimit, now),
    now,
    random,
    controlToken,
    baseUrl: () => baseUrl,
    storageDir: options.storageDir,
    linkSecret: randomBytes(32),
    profile,
    strictSlash: options.strictSlash === true,
  };

  const app = await buildSandboxApp(ctx, { logger: options.logger ?? false });
  await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') {
    await app.close();
    throw new Error('the sandbox did not get a TCP address');
  }
  baseUrl = formatBaseUrl(address);

  return {
    baseUrl,
    controlToken,
    control: new SandboxControl({ baseUrl, controlToken }),
    profile,
    close: () => app.close(),
  };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
