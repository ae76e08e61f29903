/**
 * The floor's worker process: polls `FLOOR_TASK_QUEUE` on `TEMPORAL_ADDRESS` with the no-op activities and the
 * prebuilt floor bundle at `WORKFLOW_BUNDLE_PATH`. Started by the bench like `src/main/worker.ts`; SIGTERM stops it.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { parsePayloadKeys } from '../../src/codec/key-ring';
import { createFloorActivities } from './activities';

const envSchema = z
  .object({
    TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1),
    WORKFLOW_BUNDLE_PATH: z.string().min(1),
    WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().positive().default(50),
    /** `on`: payloads encrypted with `PAYLOAD_KEYS`, as the badge workers' (the featured floor). */
    FLOOR_ENCRYPTION: z.enum(['on', 'off']).default('off'),
    PAYLOAD_KEYS: z.string().optional(),
  })
  .refine((env) => env.FLOOR_ENCRYPTION === 'off' || Boolean(env.PAYLOAD_KEYS), {
    message: 'FLOOR_ENCRYPTION=on needs PAYLOAD_KEYS',
    path: ['PAYLOAD_KEYS'],
  });

async function main(): Promise<void> {
  const env = envSchema.parse(process.env);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS });
  try {
    const worker = await Worker.create({
      connection,
      namespace: env.TEMPORAL_NAMESPACE,
      taskQueue: env.TEMPORAL_TASK_QUEUE,
      activities: createFloorActivities(),
      workflowBundle: { codePath: env.WORKFLOW_BUNDLE_PATH },
      maxConcurrentActivityTaskExecutions: env.WORKER_MAX_CONCURRENT_ACTIVITIES,
      ...(env.FLOOR_ENCRYPTION === 'on' && {
        dataConverter: { payloadCodecs: [new EncryptionCodec(parsePayloadKeys(env.PAYLOAD_KEYS ?? ''))] },
      }),
    });
    await worker.run();
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : String(error));
  process.exit(1);
});
