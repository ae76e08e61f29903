/** The worker's native connection to Temporal, from the same connection profile as the clients'. */
import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import type { TemporalConfig } from '../config';
import { connectionOptions } from './connection';

/** Connects a worker to Temporal. */
export async function connectWorker(config: TemporalConfig): Promise<NativeConnection> {
  return NativeConnection.connect(connectionOptions(config) as NativeConnectionOptions);
}
