/**
 * docker-compose.yml and the cluster runner cannot drift: the compose file's `temporal` service reads the very
 * server config and dynamic config files `startCluster` gives its four processes, and runs the server version
 * the runner builds.
 */
import { posix, relative } from 'node:path';
import { GO_TOOLS } from '../../tools/go-tools/go-tools';
import { TEMPORAL_CONFIG_FILE, TEMPORAL_DYNAMIC_CONFIG_FILE } from '../../tools/cluster';
import { PROJECT_ROOT, operatorEnv, loadCompose } from '../deploy/compose-file';

/** Where a host path is mounted in the service's container, from its `host:container[:mode]` volumes. */
function containerPath(volumes: readonly string[], hostFile: string): string | undefined {
  for (const volume of volumes) {
    const [host = '', container = ''] = volume.split(':');
    const hostDir = relative(PROJECT_ROOT, host.startsWith('/') ? host : `${PROJECT_ROOT}/${host}`);
    const file = relative(PROJECT_ROOT, hostFile);
    if (file.startsWith(`${hostDir}/`)) return posix.join(container, file.slice(hostDir.length + 1));
  }
  return undefined;
}

describe('the Temporal config shared by docker-compose.yml and the cluster runner', () => {
  const temporal = loadCompose(operatorEnv()).services.temporal;

  it('mounts the runner’s server config and dynamic config, and points the server at them', () => {
    expect(temporal).toBeDefined();
    const volumes = temporal?.volumes ?? [];
    expect(temporal?.environment.TEMPORAL_SERVER_CONFIG_FILE_PATH).toBe(
      containerPath(volumes, TEMPORAL_CONFIG_FILE),
    );
    expect(temporal?.environment.DYNAMIC_CONFIG_FILE_PATH).toBe(
      containerPath(volumes, TEMPORAL_DYNAMIC_CONFIG_FILE),
    );
  });

  it('runs the server version the runner builds', () => {
    expect(temporal?.image).toBe(`temporalio/server:${GO_TOOLS.temporalServer.version.replace(/^v/, '')}`);
    const adminTools = loadCompose(operatorEnv()).services['temporal-schema']?.image;
    expect(adminTools).toBe(`temporalio/admin-tools:${GO_TOOLS.temporalSql.version.replace(/^v/, '')}`);
  });
});
