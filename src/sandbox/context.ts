/** What the sandbox's hooks and routes share: its state, configuration and per-request bookkeeping. */
import type { FastifyRequest } from 'fastify';
import type { SignInLimiter, TokenClaims, TokenService } from './auth';
import type { SandboxRules } from './config';
import type { FaultInjector } from './faults';
import type { FaultKind } from './config';
import type { SandboxProfile } from './profiles';
import type { SandboxClient, SandboxUser } from './fixtures';
import type { RandomSource } from './random';
import type { SandboxRoute } from './shapes';
import { PLATFORM_PATHS } from './shapes';
import type { StatsRecorder } from './stats';
import type { SandboxStore } from './store';

/** The dependencies of one sandbox instance, built once by `startSandbox`. */
export interface SandboxContext {
  users: readonly SandboxUser[];
  /** Clients of the client credentials grant (profiles with `token.grant` `client_credentials`). */
  clients: readonly SandboxClient[];
  store: SandboxStore;
  stats: StatsRecorder;
  faults: FaultInjector;
  /** Current rules; replaced as a whole by `PUT /_sandbox/rules`. */
  rules: SandboxRules;
  tokens: TokenService;
  /** The profile's limit on token calls. */
  signIns: SignInLimiter;
  /** Clock in epoch milliseconds. */
  now: () => number;
  random: RandomSource;
  /** Bearer token of the control API. */
  controlToken: string;
  /** Base URL the sandbox is reachable at; known once it listens. */
  baseUrl: () => string;
  /** Directory uploads are written to; when undefined they are hashed and discarded. */
  storageDir: string | undefined;
  /** Key of the HMAC that signs download links. */
  linkSecret: Buffer;
  /** The platform this sandbox plays: wire shapes, success codes, error bodies, idempotency. Fixed at start. */
  profile: SandboxProfile;
  /** Whether the platform routes are served only at their path with a trailing slash (`startSandbox`). */
  strictSlash: boolean;
}

/** What the sandbox learned about one platform request while handling it. */
export interface RequestState {
  route: SandboxRoute;
  /** The verified token (every route but `auth`). */
  claims?: TokenClaims;
  /** A commit-then-fail fault to apply once the effect is stored. */
  commitFault?: FaultKind;
  /** Set when the connection was destroyed on purpose (counted as `dropped`). */
  dropped?: boolean;
}

const states = new WeakMap<FastifyRequest, RequestState>();

const ROUTE_BY_PATH: ReadonlyMap<string, SandboxRoute> = new Map([
  [PLATFORM_PATHS.token, 'auth'],
  [PLATFORM_PATHS.stocks, 'stocks'],
  [PLATFORM_PATHS.orders, 'orders'],
  [PLATFORM_PATHS.documents, 'documents'],
]);

/** The platform route of a path (with or without its trailing slash), or undefined. */
export function platformRouteAt(path: string): SandboxRoute | undefined {
  return ROUTE_BY_PATH.get(path.endsWith('/') ? path.slice(0, -1) : path);
}

/** The platform route a request was routed to, or undefined (control API, unknown paths). */
export function platformRouteOf(request: FastifyRequest): SandboxRoute | undefined {
  const url = request.routeOptions.url;
  return url === undefined ? undefined : platformRouteAt(url);
}

/** The state of a platform request, created on first use. */
export function requestState(request: FastifyRequest, route: SandboxRoute): RequestState {
  let state = states.get(request);
  if (!state) {
    state = { route };
    states.set(request, state);
  }
  return state;
}

/** The state of a request if it is a platform request that has one. */
export function existingRequestState(request: FastifyRequest): RequestState | undefined {
  return states.get(request);
}

/** The verified claims of a platform request; only valid after the auth hook ran. */
export function claimsOf(request: FastifyRequest): TokenClaims {
  const claims = states.get(request)?.claims;
  if (!claims) throw new Error('claimsOf() called on a request without verified token');
  return claims;
}
