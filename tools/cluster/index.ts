/** The production-shaped local cluster (`npm run cluster`): see `cluster.ts`. */
export {
  startCluster,
  type Cluster,
  type ClusterOidcOptions,
  type ClusterOptions,
  type ClusterWorker,
} from './cluster';
export { createNetworkNamespace, removeStaleNetworkNamespaces, type NetworkNamespace } from './netns';
export { findPostgresBinDir, startPostgres, type PostgresOptions, type RunningPostgres } from './postgres';
export {
  TEMPORAL_CONFIG_FILE,
  TEMPORAL_DYNAMIC_CONFIG_FILE,
  TEMPORAL_SERVICES,
  startTemporalServices,
  type TemporalServiceName,
  type TemporalServices,
} from './temporal-services';
