/**
 * The data converter of the worker, the clients (starter, operator CLI, client API) and the workflow bundle:
 * the encryption codec plus the failure converter that encodes messages and stack traces.
 */
import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec';
import type { PayloadKeyRing } from './key-ring';

/**
 * Module with the `failureConverter` export. Pass it as `failureConverterPath` to `bundleWorkflowCode` when a
 * bundle is built ahead of time; `Worker.create` with `workflowsPath` picks it up from the data converter.
 */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/** The data converter for a key ring (an empty ring: no encryption, failures still encoded). */
export function createDataConverter(keys: PayloadKeyRing): DataConverter {
  return { failureConverterPath: FAILURE_CONVERTER_PATH, payloadCodecs: [new EncryptionCodec(keys)] };
}
