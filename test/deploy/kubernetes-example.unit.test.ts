/**
 * The Kubernetes manifests of docs/deployment.md, read as a kubelet would run them: each container's
 * configuration is loaded from its `env` (secrets as files) with the loader its command runs, and every probe
 * must target a port the process listens on at the pod's address — not its loopback, which the kubelet cannot
 * reach (a liveness probe there restarts the pod forever). Unversioned workers are replaced all at once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { hashApiKey } from '../../src/api/auth';
import { loadApiConfig } from '../../src/api/config';
import { generatePayloadKeyEntry } from '../../src/codec/key-ring';
import { loadCodecServerConfig, loadWorkerConfig } from '../../src/config';
import { isLoopbackHost } from '../../src/url-policy';
import { PROJECT_ROOT } from './compose-file';

interface Probe {
  readonly tcpSocket?: { readonly port: string | number };
  readonly httpGet?: { readonly path: string; readonly port: string | number };
}
interface Container {
  readonly name: string;
  readonly command: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value: string }[];
  readonly ports?: readonly { readonly name: string; readonly containerPort: number }[];
  readonly livenessProbe?: Probe;
  readonly readinessProbe?: Probe;
}
interface Deployment {
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly strategy?: { readonly type?: string };
    readonly template: { readonly spec: { readonly containers: readonly Container[] } };
  };
}

/** Where each process listens, from its configuration, by the entry point its command runs. */
const LISTENS: Readonly<Record<string, (env: Record<string, string>) => { host: string; port?: number }>> = {
  'dist/main/worker.js': (env) => {
    const config = loadWorkerConfig(env);
    return { host: config.metricsHost, port: config.metricsPort };
  },
  'dist/main/api.js': (env) => loadApiConfig(env),
  'dist/main/codec-server.js': (env) => loadCodecServerConfig(env),
};

/** The secret files the example mounts at /run/secrets, as an operator fills them. */
const SECRETS: Readonly<Record<string, string>> = {
  badge_password: 'platform-password',
  payload_keys: generatePayloadKeyEntry('k2026'),
  temporal_api_key: '',
  codec_server_token: 'operator-generated-codec-token',
  api_keys: JSON.stringify({
    keys: [{ id: 'backend', sha256: hashApiKey('bo_key'), scopes: ['orders:write'] }],
  }),
  webhook_secrets: '{}',
};

function exampleDeployments(): Deployment[] {
  const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'deployment.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## The same topology on Kubernetes'));
  const end = section.indexOf('\n## ', 1);
  const blocks = [...section.slice(0, end).matchAll(/```yaml\n([\s\S]*?)```/g)].map(
    (match) => match[1] ?? '',
  );
  return blocks
    .flatMap((block) => loadAll(block) as Deployment[])
    .filter((manifest) => manifest?.kind === 'Deployment');
}

describe('the Kubernetes example of docs/deployment.md', () => {
  let secrets: string;
  beforeAll(() => {
    secrets = mkdtempSync(join(tmpdir(), 'badge-k8s-secrets-'));
    for (const [name, content] of Object.entries(SECRETS)) writeFileSync(join(secrets, name), content);
  });
  afterAll(() => rmSync(secrets, { recursive: true, force: true }));

  /** A container's environment as the pod gets it, its secret files in this test's folder. */
  const containerEnv = (container: Container): Record<string, string> =>
    Object.fromEntries(
      (container.env ?? []).map(({ name, value }) => [name, value.replace(/^\/run\/secrets(?=\/)/, secrets)]),
    );

  it('has the worker, the API and the codec server', () => {
    const entries = exampleDeployments().flatMap((deployment) =>
      deployment.spec.template.spec.containers.map((container) => container.command.at(-1)),
    );
    expect(entries.sort()).toEqual(Object.keys(LISTENS).sort());
  });

  it('probes each container on a port its process listens on at the pod’s address', () => {
    for (const deployment of exampleDeployments()) {
      for (const container of deployment.spec.template.spec.containers) {
        const listens = LISTENS[container.command.at(-1) ?? ''];
        if (!listens)
          throw new Error(`${deployment.metadata.name}: unknown command ${container.command.join(' ')}`);
        const listening = listens(containerEnv(container));
        const probes = [container.livenessProbe, container.readinessProbe].filter(
          (probe): probe is Probe => probe !== undefined,
        );
        expect({ deployment: deployment.metadata.name, probes: probes.length > 0 }).toEqual({
          deployment: deployment.metadata.name,
          probes: true,
        });
        for (const probe of probes) {
          const named = probe.tcpSocket?.port ?? probe.httpGet?.port;
          const port =
            typeof named === 'number'
              ? named
              : container.ports?.find((candidate) => candidate.name === named)?.containerPort;
          expect({
            deployment: deployment.metadata.name,
            port,
            reachable: !isLoopbackHost(listening.host),
          }).toEqual({
            deployment: deployment.metadata.name,
            port: listening.port,
            reachable: true,
          });
        }
      }
    }
  });

  it('replaces unversioned workers all at once, so that two releases never poll together', () => {
    const workers = exampleDeployments().flatMap((deployment) =>
      deployment.spec.template.spec.containers
        .filter((container) => container.command.at(-1) === 'dist/main/worker.js')
        .map((container) => ({ deployment, container })),
    );
    expect(workers).toHaveLength(1);
    for (const { deployment, container } of workers) {
      // An older release cannot replay the orders a newer one started (docs/runbook.md).
      expect(loadWorkerConfig(containerEnv(container)).versioning.enabled).toBe(false);
      expect(deployment.spec.strategy?.type).toBe('Recreate');
    }
  });
});
