/**
 * The production Web UI server (`github.com/temporalio/ui-server/v2`, the program inside the `temporalio/ui`
 * image; pinned in `tools/go-tools`) on loopback, with a generated configuration: the Temporal frontend it
 * talks to, operator sign-in with an OIDC provider, the codec endpoint it hands the browser (with the
 * operator's access token, `passAccessToken`), and read-only mode (`disableWriteActions`). The same settings
 * are the `TEMPORAL_*` variables of the `temporalio/ui` image (deploy/compose.oidc.yml).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcessHandle } from '../dev/child-process';
import { findFreePort } from '../dev/ports';
import { ensureGoTool, GO_TOOLS } from '../go-tools/go-tools';
import type { CleanupList } from '../stack/cleanup';
import { startBinaryProcess, waitUntilServing } from './binary-process';

/** The path the UI server receives the provider's answer on (`TEMPORAL_AUTH_CALLBACK_URL`). */
export const WEB_UI_CALLBACK_PATH = '/auth/sso/callback';

/** Operator sign-in: the UI server is an OIDC client of `providerUrl`. */
export interface WebUiOidcSettings {
  /** The provider's issuer URL, where `/.well-known/openid-configuration` is (`TEMPORAL_AUTH_PROVIDER_URL`). */
  readonly providerUrl: string;
  /** `TEMPORAL_AUTH_CLIENT_ID`: the audience of the operator's tokens. */
  readonly clientId: string;
  /** `TEMPORAL_AUTH_CLIENT_SECRET`. */
  readonly clientSecret: string;
  /** `TEMPORAL_AUTH_SCOPES`. @default openid, profile, email, offline_access */
  readonly scopes?: readonly string[];
  /** Label of the sign-in button (`TEMPORAL_AUTH_LABEL`). @default Operator sign-in */
  readonly label?: string;
}

/** Options of {@link startWebUiServer}. */
export interface WebUiServerOptions {
  /** The Temporal frontend's gRPC address, `host:port` (`TEMPORAL_ADDRESS`): a dev server's or a cluster's. */
  readonly temporalAddress: string;
  /** `TEMPORAL_DEFAULT_NAMESPACE`. @default default */
  readonly namespace?: string;
  /** 0 or absent: a free one (the port must be known before the provider's redirect URL is: see `port`). */
  readonly port?: number;
  /** Operator sign-in; absent: no sign-in (anyone who reaches the port is an operator). */
  readonly oidc?: WebUiOidcSettings;
  /** The codec server the browser decodes payloads with (`TEMPORAL_CODEC_ENDPOINT`). */
  readonly codecEndpoint?: string;
  /** Send the operator's access token to the codec server (`TEMPORAL_CODEC_PASS_ACCESS_TOKEN`). @default true */
  readonly codecPassAccessToken?: boolean;
  /** Read-only operators: no signal, update, cancel, terminate, reset or start (`TEMPORAL_DISABLE_WRITE_ACTIONS`). */
  readonly disableWriteActions?: boolean;
  /** The UI server is stopped (and its folder removed) when this list runs. */
  readonly cleanups: CleanupList;
  /** Progress lines. */
  readonly log?: (message: string) => void;
}

/** A running Web UI server. */
export interface RunningWebUiServer {
  /** `http://127.0.0.1:<port>`: the operators' address and the origin the codec server must allow. */
  readonly url: string;
  readonly process: ChildProcessHandle;
}

/** The browser address of a UI server on `port`, and its OIDC callback (the provider's redirect URL). */
export function webUiAddresses(port: number): { readonly url: string; readonly callbackUrl: string } {
  const url = `http://127.0.0.1:${port}`;
  return { url, callbackUrl: `${url}${WEB_UI_CALLBACK_PATH}` };
}

/** The UI server's configuration file (YAML, written as JSON, which YAML reads). */
function uiServerConfig(options: WebUiServerOptions, port: number): unknown {
  const { url, callbackUrl } = webUiAddresses(port);
  return {
    temporalGrpcAddress: options.temporalAddress,
    host: '127.0.0.1',
    port,
    enableUi: true,
    defaultNamespace: options.namespace ?? 'default',
    // Loopback over http: the CSRF cookie cannot be `Secure` here. Production serves the UI over https.
    cors: { allowOrigins: [url], unsafeAllowAllOrigins: false, cookieInsecure: url.startsWith('http:') },
    disableNewsFetch: true,
    notifyOnNewVersion: false,
    disableWriteActions: options.disableWriteActions ?? false,
    auth: options.oidc
      ? {
          enabled: true,
          providers: [
            {
              label: options.oidc.label ?? 'Operator sign-in',
              type: 'oidc',
              providerUrl: options.oidc.providerUrl,
              clientId: options.oidc.clientId,
              clientSecret: options.oidc.clientSecret,
              scopes: [...(options.oidc.scopes ?? ['openid', 'profile', 'email', 'offline_access'])],
              callbackUrl,
            },
          ],
        }
      : { enabled: false },
    codec: {
      endpoint: options.codecEndpoint ?? '',
      passAccessToken: options.codecPassAccessToken ?? true,
      includeCredentials: false,
    },
  };
}

/**
 * Builds the UI server once (`ensureGoTool`), starts it with a generated configuration and resolves once it
 * serves `/healthz`. With `oidc`, the provider must be up already: the server reads its discovery document
 * at start.
 */
export async function startWebUiServer(options: WebUiServerOptions): Promise<RunningWebUiServer> {
  const binary = await ensureGoTool(GO_TOOLS.temporalUi, { log: options.log });
  const port = options.port || (await findFreePort());
  const folder = mkdtempSync(join(tmpdir(), 'badge-web-ui-'));
  options.cleanups.add('the Web UI server folder', () => rmSync(folder, { recursive: true, force: true }));
  mkdirSync(join(folder, 'config'));
  // The server reads `<root>/<config>/<env>.yaml`.
  writeFileSync(
    join(folder, 'config', 'badge-orders.yaml'),
    JSON.stringify(uiServerConfig(options, port), null, 2),
  );
  const child = startBinaryProcess({
    name: 'web-ui-server',
    command: binary,
    args: ['--root', folder, '--config', 'config', '--env', 'badge-orders', 'start'],
    cwd: folder,
  });
  options.cleanups.add('the Web UI server', () => child.stop());
  const { url } = webUiAddresses(port);
  await waitUntilServing(child, `${url}/healthz`);
  options.log?.(`Web UI server at ${url} (Temporal at ${options.temporalAddress})`);
  return { url, process: child };
}
