/**
 * A cluster (tools/cluster) for one test file: started in `beforeAll`, always stopped in `afterAll` — also when
 * a test fails — so no PostgreSQL, Temporal or worker process and no network namespace outlives the file.
 */
import { generatePayloadKeyEntry } from '../../src/codec/key-ring';
import { startCluster, type Cluster, type ClusterOptions } from '../../tools/cluster';

/** Registers the hooks and returns a getter for the running cluster. */
export function useCluster(options: ClusterOptions = {}): () => Cluster {
  let cluster: Cluster | undefined;
  beforeAll(async () => {
    cluster = await startCluster({
      // A random key per cluster: every payload is encrypted, as in production.
      ...options,
      stack: {
        payloadKeys: generatePayloadKeyEntry('cluster-test'),
        // Worker processes log at info: a failing test shows what the worker did.
        worker: { logLevel: 'info' },
        ...options.stack,
      },
    });
  }, 600_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 120_000);
  return () => {
    if (!cluster) throw new Error('the cluster starts in beforeAll');
    return cluster;
  };
}
