/**
 * The peer's worker process: polls `TEMPORAL_TASK_QUEUE` on `TEMPORAL_ADDRESS` with the peer's activities and
 * the prebuilt peer bundle at `WORKFLOW_BUNDLE_PATH` (bench/worker-process.ts), calling the platform at
 * `BADGE_BASE_URL` as `BADGE_USERNAME`, documents under `DOCUMENTS_ROOT`: the variables the badge workers get, so
 * both run with the same settings. Started by the bench like `src/main/worker.ts`; SIGTERM stops it.
 */
import { z } from 'zod';
import { benchWorkerEnvSchema, runBenchWorker } from '../worker-process';
import { createPeerActivities } from './activities';

const envSchema = benchWorkerEnvSchema.extend({
  BADGE_BASE_URL: z.string().url(),
  BADGE_USERNAME: z.string().min(1),
  BADGE_PASSWORD: z.string().min(1),
  DOCUMENTS_ROOT: z.string().min(1),
});

runBenchWorker(envSchema, (env) => ({
  activities: createPeerActivities({
    baseUrl: env.BADGE_BASE_URL,
    username: env.BADGE_USERNAME,
    password: env.BADGE_PASSWORD,
    documentsRoot: env.DOCUMENTS_ROOT,
  }),
}));
