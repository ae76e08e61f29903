/**
 * Direct calls: the platform calls of a badge order made by a plain script with the same client
 * (`createPlatformClient`), at the same concurrency, without Temporal; as fast as they go, or at a given pace
 * (`ordersPerSecond`: badgeOrder's, so that the platform's work is measured at the rate badgeOrder asks for
 * it). Run as a child process by the bench
 * (`node --import tsx bench/direct.ts`, options as JSON in `BENCH_DIRECT_OPTIONS`: the password stays out
 * of the command line) so that its CPU is not mixed with the sandbox's; it prints one JSON line, a
 * {@link DirectResult}.
 */
import { z } from 'zod';
import { createPlatformClient, type PlatformClient } from '../src/platform';
import type { FailureCode } from '../src/failure-types';
import { runWithConcurrency } from '../src/concurrency';
import { runMain } from '../src/main/run-main';
import { runOrders, type PoolResult } from './pool';
import { BADGE, VEHICLE } from './order-data';

/** Options of {@link runDirect}. */
const directOptionsSchema = z.object({
  baseUrl: z.string().url(),
  username: z.string().min(1),
  password: z.string().min(1),
  /** Absolute paths of the documents each order uploads. */
  documents: z.array(z.string().min(1)),
  stockId: z.union([z.string(), z.number()]).optional(),
  orders: z.number().int().positive(),
  warmupOrders: z.number().int().min(0),
  concurrency: z.number().int().positive(),
  /** Start orders at this pace (warm-up and measured alike) instead of as fast as they go. */
  ordersPerSecond: z.number().positive().optional(),
  maxParallelUploads: z.number().int().positive(),
  /** Prefix of idempotency keys, unique per run. */
  runId: z.string().min(1),
});
/** Options of {@link runDirect}. */
export type DirectOptions = z.infer<typeof directOptionsSchema>;

/** What the direct baseline measured (CPU and memory of its own process). */
export interface DirectResult extends PoolResult {
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
}

async function placeOrder(platform: PlatformClient, options: DirectOptions, key: string): Promise<void> {
  const session = await platform.authenticate();
  const stockId = options.stockId;
  // As the workflow does: the lookup only advises, the order goes with its stock, only a 404 leaves it out.
  if (stockId !== undefined) await platform.checkStock(stockId);
  const create = (withStock: boolean) =>
    platform.createOrder({
      payload: {
        vehicle: VEHICLE,
        badge: BADGE,
        ...(withStock && stockId !== undefined && { stock_id: String(stockId) }),
      },
      idempotencyKey: withStock ? `${key}:create` : `${key}:create:without-stock`,
    });
  const order = await create(true).catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== ('STOCK_NOT_FOUND' satisfies FailureCode)) throw error;
    return create(false);
  });
  const jobs = options.documents.map((filePath, index) => ({ filePath, index }));
  await runWithConcurrency(jobs, options.maxParallelUploads, async ({ filePath, index }) => {
    await platform.uploadDocument({
      filePath,
      orderId: order.orderId,
      documentOwner: session.documentOwner?.id ?? '',
      idempotencyKey: `${key}:doc:${index}`,
    });
  });
}

/** Places `warmupOrders` unmeasured, then `orders` measured orders; CPU is measured over the latter. */
async function runDirect(options: DirectOptions): Promise<DirectResult> {
  const platform = createPlatformClient({
    baseUrl: options.baseUrl,
    credentials: { username: options.username, password: options.password },
  });
  await runOrders(
    options.warmupOrders,
    options.concurrency,
    (index) => placeOrder(platform, options, `${options.runId}:warmup-${index}`),
    options.ordersPerSecond,
  );
  const cpuBefore = process.cpuUsage();
  const result = await runOrders(
    options.orders,
    options.concurrency,
    (index) => placeOrder(platform, options, `${options.runId}:${index}`),
    options.ordersPerSecond,
  );
  const cpu = process.cpuUsage(cpuBefore);
  return {
    ...result,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

if (require.main === module) {
  runMain(
    async () => {
      const result = await runDirect(
        directOptionsSchema.parse(JSON.parse(process.env.BENCH_DIRECT_OPTIONS ?? '{}')),
      );
      process.stdout.write(`${JSON.stringify(result)}\n`);
    },
    { messageOnly: [] },
  );
}
