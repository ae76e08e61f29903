/**
 * Operator sign-in as production runs it, on loopback: a real OIDC provider (`oidc-provider.ts`), the production Web UI server
 * (one per role, e.g. operators and read-only auditors) signing operators in there, and for each UI a codec
 * server process (`src/main/codec-server.ts`, configured through its environment exactly as in production)
 * that accepts only the operator's access token the UI passes on — checked against the provider's JWKS, issuer and that
 * UI's client id as audience. Everything is registered in the caller's {@link CleanupList}.
 *
 * The Temporal frontend is a parameter (`temporalAddress`): the production-shaped cluster starts this with
 * `startCluster({ oidc })` (tools/cluster), test/cluster/oidc-sign-in.test.ts signs in there; a dev server works too.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PayloadKeyRing } from '../../src/codec/key-ring';
import { startTsProcess, type ChildProcessHandle } from '../dev/child-process';
import { findFreePort } from '../dev/ports';
import type { CleanupList } from '../stack/cleanup';
import { waitUntilServing } from './binary-process';
import { loopbackCertificate, type LoopbackCertificate } from './tls';
import {
  LOCAL_OPERATOR,
  startOidcProvider,
  type OidcClient,
  type OidcUser,
  type RunningOidcProvider,
} from './oidc-provider';
import { startWebUiServer, webUiAddresses } from './web-ui-server';

export { LOCAL_OPERATOR, startOidcProvider, type OidcClient, type OidcUser, type RunningOidcProvider };
export {
  startWebUiServer,
  webUiAddresses,
  WEB_UI_CALLBACK_PATH,
  type RunningWebUiServer,
  type WebUiOidcSettings,
  type WebUiServerOptions,
} from './web-ui-server';

/** What one Web UI server may do for the operators who sign in to it. */
export interface WebUiRole {
  /** `TEMPORAL_DISABLE_WRITE_ACTIONS`: read-only operators. @default false */
  readonly disableWriteActions?: boolean;
}

/** Options of {@link startOidcWebUis}. */
export interface OidcWebUisOptions<Role extends string> {
  /** The Temporal frontend, `host:port`. */
  readonly temporalAddress: string;
  /** @default default */
  readonly namespace?: string;
  /** The workers' payload keys: each codec server decodes with them. */
  readonly payloadKeys: PayloadKeyRing;
  /** One Web UI server (and codec server) per role. */
  readonly roles: Readonly<Record<Role, WebUiRole>>;
  /** The provider's users. @default [LOCAL_OPERATOR] */
  readonly users?: readonly OidcUser[];
  readonly cleanups: CleanupList;
  readonly log?: (message: string) => void;
}

/** One role's Web UI. */
export interface OidcWebUi {
  /** Where operators open the UI, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The UI's OIDC client id: the audience its codec server requires. */
  readonly clientId: string;
  /** The client's secret (tests ask the provider for tokens with it). */
  readonly clientSecret: string;
  /** The codec server the UI's browser pages call (`https://`, {@link OidcWebUis.codecCertificate}). */
  readonly codecUrl: string;
  readonly codecProcess: ChildProcessHandle;
}

/** The running provider and UIs. */
export interface OidcWebUis<Role extends string> {
  readonly provider: RunningOidcProvider;
  readonly ui: Readonly<Record<Role, OidcWebUi>>;
  /** The codec servers' self-signed certificate (PEM): what a client calling them must trust. */
  readonly codecCertificate: string;
}

/** `PAYLOAD_KEYS` text of a key ring (newest key first, as the ring holds them). */
function payloadKeysText(keys: PayloadKeyRing): string {
  return keys.ids.map((id) => `${id}=${keys.key(id)?.export().toString('base64') ?? ''}`).join(',');
}

/**
 * The environment of a codec server that accepts only the Web UI's passed access tokens from `provider` for
 * `audience` (no shared bearer token): the production settings of deploy/compose.oidc.yml.
 */
function oidcCodecServerEnv(options: {
  readonly provider: Pick<RunningOidcProvider, 'issuer' | 'jwksUrl'>;
  readonly audience: string;
  readonly corsOrigin: string;
  readonly port: number;
  readonly payloadKeys: PayloadKeyRing;
  readonly tls: Pick<LoopbackCertificate, 'certFile' | 'keyFile'>;
}): Record<string, string> {
  return {
    PAYLOAD_KEYS: payloadKeysText(options.payloadKeys),
    CODEC_TLS_CERT_FILE: options.tls.certFile,
    CODEC_TLS_KEY_FILE: options.tls.keyFile,
    CODEC_SERVER_HOST: '127.0.0.1',
    CODEC_SERVER_PORT: String(options.port),
    CODEC_CORS_ORIGIN: options.corsOrigin,
    CODEC_ALLOW_UI_ACCESS_TOKEN: 'true',
    CODEC_UI_JWKS_URL: options.provider.jwksUrl,
    CODEC_UI_TOKEN_ISSUER: options.provider.issuer,
    CODEC_UI_TOKEN_AUDIENCE: options.audience,
    LOG_LEVEL: 'info',
  };
}

/** Starts `src/main/codec-server.ts` with `env`; resolves once it answers (401 without credentials). */
async function startCodecServerProcess(
  name: string,
  env: Readonly<Record<string, string>>,
  ca: string,
  cleanups: CleanupList,
): Promise<{ readonly url: string; readonly process: ChildProcessHandle }> {
  const child = startTsProcess({ name, script: 'src/main/codec-server.ts', env });
  cleanups.add(name, () => child.stop());
  const url = `https://127.0.0.1:${env.CODEC_SERVER_PORT}`;
  await waitUntilServing(child, `${url}/decode`, { ca, ready: (status) => status === 401 || status === 404 });
  return { url, process: child };
}

/**
 * Starts the provider, then per role a codec server and a Web UI server signing operators in there; see the
 * module comment. Ports are picked first: the provider needs each UI's callback URL, each codec server its UI's origin, and
 * each UI its codec server's URL.
 */
export async function startOidcWebUis<Role extends string>(
  options: OidcWebUisOptions<Role>,
): Promise<OidcWebUis<Role>> {
  const roles = Object.keys(options.roles) as Role[];
  const planned = [];
  for (const role of roles) {
    const uiPort = await findFreePort();
    const codecPort = await findFreePort();
    const client: OidcClient = {
      id: `badge-orders-web-ui-${role}`,
      secret: randomBytes(24).toString('base64url'),
      redirectUris: [webUiAddresses(uiPort).callbackUrl],
    };
    planned.push({ role, uiPort, codecPort, client });
  }
  const provider = await startOidcProvider({
    clients: planned.map(({ client }) => client),
    users: options.users ?? [LOCAL_OPERATOR],
    cleanups: options.cleanups,
    log: options.log,
  });
  // The Web UI passes the operator's token only to an https:// codec endpoint: the codec servers serve TLS.
  const folder = mkdtempSync(join(tmpdir(), 'badge-codec-tls-'));
  options.cleanups.add('the codec TLS folder', () => rmSync(folder, { recursive: true, force: true }));
  const certificate = loopbackCertificate(folder);
  const ui = {} as Record<Role, OidcWebUi>;
  for (const { role, uiPort, codecPort, client } of planned) {
    const { url: uiUrl } = webUiAddresses(uiPort);
    const codec = await startCodecServerProcess(
      `codec server (${role})`,
      oidcCodecServerEnv({
        provider,
        audience: client.id,
        corsOrigin: uiUrl,
        port: codecPort,
        payloadKeys: options.payloadKeys,
        tls: certificate,
      }),
      certificate.cert,
      options.cleanups,
    );
    const server = await startWebUiServer({
      temporalAddress: options.temporalAddress,
      namespace: options.namespace,
      port: uiPort,
      oidc: { providerUrl: provider.issuer, clientId: client.id, clientSecret: client.secret },
      codecEndpoint: codec.url,
      codecPassAccessToken: true,
      disableWriteActions: options.roles[role].disableWriteActions ?? false,
      cleanups: options.cleanups,
      log: options.log,
    });
    ui[role] = {
      url: server.url,
      clientId: client.id,
      clientSecret: client.secret,
      codecUrl: codec.url,
      codecProcess: codec.process,
    };
  }
  return { provider, ui, codecCertificate: certificate.cert };
}
