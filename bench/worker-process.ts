/**
 * The start-up the bench's own worker processes share (bench/floor/worker.ts, bench/peer/worker.ts): a worker
 * polling `TEMPORAL_TASK_QUEUE` on `TEMPORAL_ADDRESS` with the prebuilt bundle at `WORKFLOW_BUNDLE_PATH`.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { z } from 'zod';
import { runMain } from '../src/main/run-main';

/** The variables every bench worker reads; a worker extends it with its own. */
export const benchWorkerEnvSchema = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1),
  WORKFLOW_BUNDLE_PATH: z.string().min(1),
  WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().positive().default(50),
});

/**
 * Reads the environment with `envSchema` and runs a worker with what `options` gives for it (its activities,
 * a data converter) until it is stopped; on an error, prints its stack and exits with 1 (`runMain`).
 */
export function runBenchWorker<Env extends z.infer<typeof benchWorkerEnvSchema>>(
  envSchema: z.ZodType<Env>,
  options: (env: Env) => Pick<WorkerOptions, 'activities' | 'dataConverter'>,
): void {
  async function main(): Promise<void> {
    const env = envSchema.parse(process.env);
    Runtime.install({ logger: new DefaultLogger('WARN') });
    const connection = await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS });
    try {
      const worker = await Worker.create({
        connection,
        namespace: env.TEMPORAL_NAMESPACE,
        taskQueue: env.TEMPORAL_TASK_QUEUE,
        ...options(env),
        workflowBundle: { codePath: env.WORKFLOW_BUNDLE_PATH },
        maxConcurrentActivityTaskExecutions: env.WORKER_MAX_CONCURRENT_ACTIVITIES,
      });
      await worker.run();
    } finally {
      await connection.close();
    }
  }

  runMain(main, { messageOnly: [] });
}
