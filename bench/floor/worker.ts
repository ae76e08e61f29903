/**
 * The floor's worker process: polls `TEMPORAL_TASK_QUEUE` on `TEMPORAL_ADDRESS` with the no-op activities and the
 * prebuilt floor bundle at `WORKFLOW_BUNDLE_PATH` (bench/worker-process.ts). Started by the bench like
 * `src/main/worker.ts`; SIGTERM stops it.
 */
import { z } from 'zod';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { parsePayloadKeys } from '../../src/codec/key-ring';
import { benchWorkerEnvSchema, runBenchWorker } from '../worker-process';
import { createFloorActivities } from './activities';

const envSchema = benchWorkerEnvSchema
  .extend({
    /** `on`: payloads encrypted with `PAYLOAD_KEYS`, as the badge workers' (the featured floor). */
    FLOOR_ENCRYPTION: z.enum(['on', 'off']).default('off'),
    PAYLOAD_KEYS: z.string().optional(),
  })
  .refine((env) => env.FLOOR_ENCRYPTION === 'off' || Boolean(env.PAYLOAD_KEYS), {
    message: 'FLOOR_ENCRYPTION=on needs PAYLOAD_KEYS',
    path: ['PAYLOAD_KEYS'],
  });

runBenchWorker(envSchema, (env) => ({
  activities: createFloorActivities(),
  ...(env.FLOOR_ENCRYPTION === 'on' && {
    dataConverter: { payloadCodecs: [new EncryptionCodec(parsePayloadKeys(env.PAYLOAD_KEYS ?? ''))] },
  }),
}));
