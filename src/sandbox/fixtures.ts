/**
 * Default users of the sandbox. Tests, the demo and `npm run sandbox` use them; a sandbox started with
 * `users` replaces them.
 */
import type { Scope, StockRecord } from './shapes';

/** A platform user as the sandbox knows it. */
export interface SandboxUser {
  /**
   * Numeric user id as string; the token's `sub` (or, under a profile with a user id claim, that claim beside a
   * UUID `sub`) and the expected `document_owner`.
   */
  id: string;
  username: string;
  password: string;
  /** Scopes granted in the user's tokens. */
  scopes: Scope[];
  /** Stocks listed for the user; an order naming any other stock id answers 404. */
  stocks: StockRecord[];
  /**
   * Stocks still listed (the catalogue lags behind) but retired: an order naming one answers 404, as if the
   * stock did not exist. Lets tests and the demo exercise the 404 fallback after a successful lookup.
   */
  retiredStockIds?: number[];
  /**
   * Stocks the platform accepts in the user's orders but never lists (a tenant's shared stock, say): the
   * stock lookup reads a complete list without them, and creation still takes them. Shows that the lookup
   * never decides.
   */
  sharedStockIds?: number[];
}

/**
 * `demo` / `demo-password`: id 4711, scopes badge and document, stocks 1001 and 1002; 1003 listed but retired;
 * 1004 not listed but accepted (shared).
 */
export const DEMO_USER: SandboxUser = Object.freeze<SandboxUser>({
  id: '4711',
  username: 'demo',
  password: 'demo-password',
  scopes: ['badge', 'document'],
  stocks: [
    { stock_id: 1001, name: 'Green badge stock A', badge_type: 'green', available: 250 },
    { stock_id: 1002, name: 'Green badge stock B', badge_type: 'green', available: 40 },
    { stock_id: 1003, name: 'Green badge stock (retired)', badge_type: 'green', available: 0 },
  ],
  retiredStockIds: [1003],
  sharedStockIds: [1004],
});

/** `badge-only` / `badge-only-password`: id 4712, scope badge only (uploads answer 403), stock 1101. */
export const BADGE_ONLY_USER: SandboxUser = Object.freeze<SandboxUser>({
  id: '4712',
  username: 'badge-only',
  password: 'badge-only-password',
  scopes: ['badge'],
  stocks: [{ stock_id: 1101, name: 'Green badge stock C', badge_type: 'green', available: 10 }],
});

/** `document-only` / `document-only-password`: id 4713, scope document only (stocks and orders answer 403). */
export const DOCUMENT_ONLY_USER: SandboxUser = Object.freeze<SandboxUser>({
  id: '4713',
  username: 'document-only',
  password: 'document-only-password',
  scopes: ['document'],
  stocks: [],
});

/**
 * A client of the client credentials grant (RFC 6749 §4.4): its tokens name the client, not a user, and it acts
 * on the stocks, orders and documents of one user (a service account's), whose id is the expected
 * `document_owner`.
 */
export interface SandboxClient {
  clientId: string;
  clientSecret: string;
  /** The user whose scopes the client's tokens carry and whose records it works on. */
  userId: string;
}

/** `demo-client` / `demo-client-secret`: acts for the demo user (4711). */
export const DEMO_CLIENT: SandboxClient = Object.freeze<SandboxClient>({
  clientId: 'demo-client',
  clientSecret: 'demo-client-secret',
  userId: DEMO_USER.id,
});

/** The clients a sandbox has when started without `clients`. */
export const DEFAULT_CLIENTS: readonly SandboxClient[] = Object.freeze([DEMO_CLIENT]);

/** The users a sandbox has when started without `users`. */
export const DEFAULT_USERS: readonly SandboxUser[] = Object.freeze([
  DEMO_USER,
  BADGE_ONLY_USER,
  DOCUMENT_ONLY_USER,
]);
