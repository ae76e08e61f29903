/**
 * A real OpenID Connect provider on loopback for the operator sign-in tests: `oidc-provider` (OpenID
 * Certified) in a child process (`oidc-provider-main.ts`), in memory, with static password users and static
 * clients. Its issuer is `http://127.0.0.1:<port>`, its signing keys are published at `<issuer>/jwks`, and the
 * access tokens it issues to a client are JWTs with that client's id as audience.
 *
 * (Dex, the provider first chosen, cannot be built from the Go module proxy: its only version there needs an
 * unpublished version of its own `api/v2` module.)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT, type ChildProcessHandle } from '../dev/child-process';
import { findFreePort } from '../dev/ports';
import type { CleanupList } from '../stack/cleanup';
import { startBinaryProcess, waitUntilServing } from './binary-process';
import type { ProviderProcessConfig } from './oidc-provider-main';

/** A user who signs in with email address and password. */
export interface OidcUser {
  readonly email: string;
  readonly username: string;
  readonly password: string;
  /** The `sub` of the user's tokens. */
  readonly userId: string;
}

/**
 * The operator of the local tests, a loopback-only user. Its password is drawn for each process (as the
 * clients' secrets are), so no password is written in the repository; the test that signs in reads it here.
 */
export const LOCAL_OPERATOR: OidcUser = Object.freeze({
  email: 'operator@badge-orders.test',
  username: 'operator',
  password: randomBytes(18).toString('base64url'),
  userId: '6e1f3a52-0d5c-4f38-9a61-0c2b7f4f2b10',
});

/** An application that signs users in through the provider (e.g. a Web UI server). */
export interface OidcClient {
  /** The client id: the audience of the access tokens issued to it. */
  readonly id: string;
  /** At least 16 characters. */
  readonly secret: string;
  /** Where the provider may send the browser back to with the authorization code. */
  readonly redirectUris: readonly string[];
}

/** Options of {@link startOidcProvider}. */
export interface OidcProviderOptions {
  readonly clients: readonly OidcClient[];
  /** @default [LOCAL_OPERATOR] */
  readonly users?: readonly OidcUser[];
  /** The provider is stopped (and its folder removed) when this list runs. */
  readonly cleanups: CleanupList;
  /** Progress lines. */
  readonly log?: (message: string) => void;
}

/** A running provider. */
export interface RunningOidcProvider {
  /** `http://127.0.0.1:<port>`: the `iss` of its tokens and the base of its discovery document. */
  readonly issuer: string;
  /** The JSON Web Key Set with the key its tokens are signed with. */
  readonly jwksUrl: string;
  /** Where clients exchange codes and credentials for tokens. */
  readonly tokenUrl: string;
  readonly process: ChildProcessHandle;
}

/** Starts the provider on a free loopback port; resolves once its discovery document is served. */
export async function startOidcProvider(options: OidcProviderOptions): Promise<RunningOidcProvider> {
  const port = await findFreePort();
  const issuer = `http://127.0.0.1:${port}`;
  const folder = mkdtempSync(join(tmpdir(), 'badge-oidc-'));
  options.cleanups.add('the OIDC provider folder', () => rmSync(folder, { recursive: true, force: true }));
  const config: ProviderProcessConfig = {
    port,
    clients: options.clients.map((client) => ({ ...client, redirectUris: [...client.redirectUris] })),
    users: [...(options.users ?? [LOCAL_OPERATOR])],
  };
  // Client secrets and passwords: a file only this user can read, not the environment or the command line.
  const configPath = join(folder, 'provider.json');
  writeFileSync(configPath, JSON.stringify(config), { mode: 0o600 });
  const child = startBinaryProcess({
    name: 'OIDC provider',
    command: process.execPath,
    args: ['--import', 'tsx', join(PROJECT_ROOT, 'tools', 'oidc', 'oidc-provider-main.ts'), configPath],
    cwd: PROJECT_ROOT,
  });
  options.cleanups.add('the OIDC provider', () => child.stop());
  await waitUntilServing(child, `${issuer}/.well-known/openid-configuration`);
  options.log?.(`OIDC provider at ${issuer}`);
  return { issuer, jwksUrl: `${issuer}/jwks`, tokenUrl: `${issuer}/token`, process: child };
}
