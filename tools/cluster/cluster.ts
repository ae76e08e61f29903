/**
 * The production-shaped stack on one machine, without Docker (`npm run cluster`, the cluster tests, the
 * benchmark's cluster mode): PostgreSQL; Temporal's schema set up by deploy/temporal/setup-schema.sh with the
 * pinned SQL tool; frontend, history, matching and worker as four processes of the pinned server binary, all
 * reading deploy/temporal/config/temporal.yaml.gotmpl and the shared dynamic config (as docker-compose.yml's
 * `temporal` service does); the namespace and search attributes by deploy/temporal/setup-namespace.sh; then the
 * local stack (tools/stack: sandbox, codec server, workflow bundle, worker processes) connected to that
 * frontend, and the Web UI server. Workers may run in a network namespace of their own, to be cut off. With
 * `oidc`, operators sign in to the Web UI as in production (tools/oidc): a real OIDC provider on loopback, per
 * role a Web UI server that is its client, and an HTTPS codec server that decodes only with that UI's tokens.
 *
 * Everything started is registered in one {@link CleanupList}: `stop()`, Ctrl-C (`stopOnSignals`) or a failure
 * during start stops it all, newest first — no PostgreSQL, Temporal or worker process, no network namespace
 * is left behind.
 */
import { Connection } from '@temporalio/client';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { generatePayloadKeyEntry, parsePayloadKeys, PayloadKeyRing } from '../../src/codec/key-ring';
import { BADGE_SEARCH_ATTRIBUTES } from '../../src/workflow-contract';
import { findFreePort } from '../dev/ports';
import type { ChildProcessHandle } from '../dev/child-process';
import { waitUntil } from '../dev/poll';
import { PROJECT_ROOT, resolveTemporalCli } from '../dev/temporal-cli';
import { ensureGoTool, GO_TOOLS } from '../go-tools/go-tools';
import { startOidcWebUis, type OidcWebUi, type OidcWebUis, type OidcWebUisOptions } from '../oidc';
import {
  CleanupList,
  serviceBundleOnce,
  startLocalStack,
  type LocalStack,
  type LocalStackOptions,
} from '../stack';
import { createNetworkNamespace, removeStaleNetworkNamespaces, type NetworkNamespace } from './netns';
import { startPostgres, type RunningPostgres } from './postgres';
import { runToCompletion } from './process';
import { startTemporalServices, type TemporalServices } from './temporal-services';
import { startWebUi } from './web-ui';

/** Operator sign-in for the cluster's Web UI ({@link ClusterOptions.oidc}): one UI per role, and the provider's users. */
export type ClusterOidcOptions<Role extends string> = Pick<OidcWebUisOptions<Role>, 'roles' | 'users'>;

/** Options of {@link startCluster}; everything is optional. `Role`: the roles of `oidc`, if any. */
export interface ClusterOptions<Role extends string = never> {
  /** Badge-order worker processes started with the cluster. @default 2 */
  readonly workers?: number;
  /** The namespace set up for the workers. @default badge-orders */
  readonly namespace?: string;
  /** Run the Web UI server (with the codec server). @default true */
  readonly webUi?: boolean;
  /**
   * Operator sign-in with OIDC, the production setup (docs/security.md): instead of the open Web UI and the
   * local stack's codec server (which serves callers without credentials on loopback), `startOidcWebUis` of
   * tools/oidc against the cluster's frontend — a real OIDC provider on loopback and, per role, a Web UI server
   * signing operators in there and passing their access token to an HTTPS codec server of its own. `webUi` is
   * then ignored; {@link Cluster.webUiUrl} is the first role's UI.
   */
  readonly oidc?: ClusterOidcOptions<Role>;
  /**
   * Allow workers in network namespaces of their own ({@link Cluster.startWorker} `isolated`): the frontend and
   * the sandbox then listen on every interface, not only loopback. Needs root and iproute2. @default false
   */
  readonly networkNamespaces?: boolean;
  /** The local stack's options (sandbox, payload keys, task queue, worker settings, …). */
  readonly stack?: Omit<
    LocalStackOptions,
    'temporal' | 'temporalServer' | 'webUi' | 'codecServer' | 'stopOnSignals' | 'log'
  >;
  /** Extra environment of every worker process, e.g. `BADGE_IDEMPOTENCY_KEYS`. */
  readonly workerEnv?: Readonly<Record<string, string>>;
  /** `LOG_LEVEL` of the Temporal services. @default warn */
  readonly temporalLogLevel?: string;
  /** For command-line tools: Ctrl-C (SIGINT, SIGTERM) stops everything and exits. @default false */
  readonly stopOnSignals?: boolean;
  /** Progress lines. */
  readonly log?: (message: string) => void;
}

/** A worker process of the cluster. */
export interface ClusterWorker {
  readonly process: ChildProcessHandle;
  /** Its network namespace, when it runs in one. */
  readonly network: NetworkNamespace | null;
}

/** A running cluster; see the module comment. */
export interface Cluster<Role extends string = never> {
  /** The local stack on the cluster: sandbox, clients (`stack.temporal.client`), orders, documents. */
  readonly stack: LocalStack;
  readonly postgres: RunningPostgres;
  readonly temporal: TemporalServices;
  readonly namespace: string;
  /** The Web UI's URL, when started. */
  readonly webUiUrl: string | null;
  /** The OIDC provider, Web UIs and codec servers of {@link ClusterOptions.oidc}, when asked for. */
  readonly oidc: OidcWebUis<Role> | null;
  /** The worker processes started so far (exited ones included). */
  readonly workers: readonly ClusterWorker[];
  /**
   * Starts another worker process and resolves once it polls; `isolated` runs it in a network namespace of its
   * own (needs `networkNamespaces`).
   */
  startWorker(options?: { readonly isolated?: boolean }): Promise<ClusterWorker>;
  /** Stops everything, newest first; safe to call twice. */
  stop(): Promise<void>;
}

/** Temporal's database login; a password per cluster, since PostgreSQL listens on TCP. */
const POSTGRES_USER = 'temporal';

/** Starts the cluster; see the module comment. */
export async function startCluster<Role extends string = never>(
  options: ClusterOptions<Role> = {},
): Promise<Cluster<Role>> {
  const log = options.log ?? (() => undefined);
  const cleanups = new CleanupList();
  if (options.stopOnSignals) cleanups.stopOnSignals({ log });
  const namespace = options.namespace ?? 'badge-orders';
  // Bundling takes a while and needs nothing of the cluster: it runs while PostgreSQL and Temporal start.
  serviceBundleOnce().catch(() => undefined);
  try {
    if (options.networkNamespaces) {
      const stale = await removeStaleNetworkNamespaces();
      if (stale.length > 0) log(`removed network namespaces of runs that died: ${stale.join(', ')}`);
    }
    const scratchDir = mkdtempSync(join(tmpdir(), 'badge-cluster-'));
    cleanups.add('the cluster scratch folder', () => rmSync(scratchDir, { recursive: true, force: true }));
    log(`cluster scratch folder ${scratchDir}`);

    const [serverBinary, sqlTool, uiBinary] = await Promise.all([
      ensureGoTool(GO_TOOLS.temporalServer, { log }),
      ensureGoTool(GO_TOOLS.temporalSql, { log }),
      options.webUi === false || options.oidc
        ? Promise.resolve(null)
        : ensureGoTool(GO_TOOLS.temporalUi, { log }),
    ]);
    const cli = await resolveTemporalCli({ log });
    if (cli.kind !== 'binary') {
      throw new Error('the cluster needs the Temporal CLI for its setup: npm run temporal:install');
    }

    const postgresDir = join(scratchDir, 'postgres');
    mkdirSync(postgresDir);
    // PostgreSQL runs as another user, who must pass through the scratch folder (but not list it).
    chmodSync(scratchDir, 0o711);
    const postgres = await startPostgres({
      dir: postgresDir,
      user: POSTGRES_USER,
      password: randomBytes(18).toString('base64url'),
      log,
    });
    cleanups.add('PostgreSQL', () => postgres.stop());

    // The compose file's schema script, with the pinned SQL tool instead of the admin-tools image's.
    const schemaOutput = await runToCompletion({
      name: 'deploy/temporal/setup-schema.sh',
      command: '/bin/sh',
      args: [join(PROJECT_ROOT, 'deploy', 'temporal', 'setup-schema.sh')],
      env: {
        TEMPORAL_SQL_TOOL: sqlTool,
        POSTGRES_SEEDS: postgres.host,
        DB_PORT: String(postgres.port),
        POSTGRES_USER: postgres.user,
        POSTGRES_PWD: postgres.password,
      },
    });
    log(
      schemaOutput
        .split('\n')
        .filter((line) => line.startsWith('database '))
        .join('; '),
    );

    const temporal = await startTemporalServices({
      serverBinary,
      postgres,
      frontendBindIp: options.networkNamespaces ? '0.0.0.0' : '127.0.0.1',
      logLevel: options.temporalLogLevel,
      log,
    });
    cleanups.add('the Temporal services', () => temporal.stop());

    await runToCompletion({
      name: 'deploy/temporal/setup-namespace.sh',
      command: '/bin/sh',
      args: [join(PROJECT_ROOT, 'deploy', 'temporal', 'setup-namespace.sh')],
      env: {
        TEMPORAL_CLI: cli.path,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_NAMESPACE: namespace,
      },
    });
    await waitUntilNamespaceServes(temporal.address, namespace, temporal);
    log(
      `namespace ${namespace} with search attributes ${BADGE_SEARCH_ATTRIBUTES.map((key) => key.name).join(', ')}`,
    );

    const stackOptions = options.stack ?? {};
    // With sign-in, the workers' keys are known before the stack starts (the stack's default: a random key), so
    // the UIs and their codec servers are up first and the workers link to the UI. Without, the stack decides.
    const payloadKeysEntry =
      options.oidc && stackOptions.payloadKeys === undefined
        ? generatePayloadKeyEntry('local-stack')
        : stackOptions.payloadKeys;
    const oidc = options.oidc
      ? await startOidcWebUis({
          ...options.oidc,
          temporalAddress: temporal.address,
          namespace,
          payloadKeys: payloadKeysEntry ? parsePayloadKeys(payloadKeysEntry) : PayloadKeyRing.empty(),
          cleanups,
          log,
        })
      : null;
    const firstOidcUi = oidc ? Object.values<OidcWebUi>(oidc.ui)[0] : undefined;

    const uiPort = uiBinary ? await findFreePort() : null;
    const uiUrl = uiPort === null ? (firstOidcUi?.url ?? null) : `http://127.0.0.1:${uiPort}`;
    const stack = await startLocalStack({
      ...stackOptions,
      payloadKeys: payloadKeysEntry,
      sandbox: {
        ...stackOptions.sandbox,
        ...(options.networkNamespaces ? { host: '0.0.0.0' } : {}),
      },
      temporalServer: { address: temporal.address, namespace, uiUrl },
      ...(uiPort === null ? {} : { webUi: { port: uiPort }, codecServer: true }),
      log,
    });
    cleanups.add('the local stack', () => stack.stop());

    if (uiBinary && uiPort !== null) {
      const ui = await startWebUi({
        binary: uiBinary,
        dir: join(scratchDir, 'web-ui'),
        temporalAddress: temporal.address,
        namespace,
        port: uiPort,
        codecEndpoint: stack.codecServer?.url,
      });
      cleanups.add('the Web UI', () => ui.stop());
      log(`Web UI at ${ui.url}`);
    }

    const sandboxPort = new URL(stack.sandbox.baseUrl).port;
    const workers: ClusterWorker[] = [];
    let started = 0;
    const startWorker = async (
      workerOptions: { readonly isolated?: boolean } = {},
    ): Promise<ClusterWorker> => {
      started += 1;
      let network: NetworkNamespace | null = null;
      if (workerOptions.isolated) {
        if (!options.networkNamespaces)
          throw new Error('isolated workers need startCluster({ networkNamespaces: true })');
        const created = await createNetworkNamespace();
        cleanups.add(`network namespace ${created.name}`, () => created.remove());
        network = created;
      }
      const child = stack.startWorkerProcess({
        name: `worker ${started}${network ? ` (in ${network.name})` : ''}`,
        ...(network ? { wrapper: network.exec } : {}),
        env: {
          ...options.workerEnv,
          ...(network
            ? {
                TEMPORAL_ADDRESS: `${network.hostAddress}:${temporal.frontendPort}`,
                BADGE_BASE_URL: `http://${network.hostAddress}:${sandboxPort}`,
                // The sandbox on the host's end of the link: plain HTTP, but not loopback.
                BADGE_ALLOW_INSECURE_HTTP: 'true',
              }
            : {}),
        },
      });
      // Killed before its network namespace is deleted (newest first).
      cleanups.add(child.name, () => child.kill('SIGKILL'));
      const worker = { process: child, network };
      workers.push(worker);
      await stack.waitUntilPolling([child]);
      log(`${child.name} polls (pid ${child.pid})`);
      return worker;
    };
    for (let index = 0; index < (options.workers ?? 2); index += 1) await startWorker();

    return {
      stack,
      postgres,
      temporal,
      namespace,
      webUiUrl: uiUrl,
      oidc,
      workers,
      startWorker,
      stop: () => cleanups.run(),
    };
  } catch (error) {
    // The start's error is the one to report; the cleanup's own failures would only hide it.
    await cleanups.run().catch(() => undefined);
    throw error;
  }
}

/**
 * The namespace is created in the database at once, but each service learns of it on its next cache refresh;
 * this waits until the frontend lists workflows by our search attributes in it.
 */
async function waitUntilNamespaceServes(
  address: string,
  namespace: string,
  temporal: TemporalServices,
): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await waitUntil(
      `namespace ${namespace}`,
      async () => {
        await connection.workflowService.countWorkflowExecutions({
          namespace,
          query: BADGE_SEARCH_ATTRIBUTES.map((key) => `${key.name} = 'probe'`).join(' AND '),
        });
        return true;
      },
      { processes: [temporal.process('frontend'), temporal.process('history')], timeoutMs: 120_000 },
    );
  } finally {
    await connection.close();
  }
}
