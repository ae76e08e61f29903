/**
 * The peer's worker process: polls `TEMPORAL_TASK_QUEUE` on `TEMPORAL_ADDRESS` with the peer's activities and
 * the prebuilt peer bundle at `WORKFLOW_BUNDLE_PATH`, calling the platform at `BADGE_BASE_URL` as
 * `BADGE_USERNAME`, documents under `DOCUMENTS_ROOT`: the variables the badge workers get, so both run with the
 * same settings. Started by the bench like `src/main/worker.ts`; SIGTERM stops it.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { createPeerActivities } from './activities';

const envSchema = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1),
  WORKFLOW_BUNDLE_PATH: z.string().min(1),
  WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().positive().default(50),
  BADGE_BASE_URL: z.string().url(),
  BADGE_USERNAME: z.string().min(1),
  BADGE_PASSWORD: z.string().min(1),
  DOCUMENTS_ROOT: z.string().min(1),
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
      activities: createPeerActivities({
        baseUrl: env.BADGE_BASE_URL,
        username: env.BADGE_USERNAME,
        password: env.BADGE_PASSWORD,
        documentsRoot: env.DOCUMENTS_ROOT,
      }),
      workflowBundle: { codePath: env.WORKFLOW_BUNDLE_PATH },
      maxConcurrentActivityTaskExecutions: env.WORKER_MAX_CONCURRENT_ACTIVITIES,
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
