/** Runs orders at a fixed concurrency, optionally at a fixed pace, and times each one end to end. */
import { setTimeout as sleep } from 'node:timers/promises';

/** What {@link runOrders} measured. */
export interface PoolResult {
  /** End-to-end latency of each successful order, in ms, in completion order. */
  readonly latenciesMs: number[];
  /** Wall time from the first start to the last completion, in ms. */
  readonly wallMs: number;
  /** Orders that threw, with the first few messages. */
  readonly failures: number;
  readonly failureSamples: string[];
}

/**
 * Runs `runOne(0…count-1)` with at most `concurrency` in flight; never rejects (failures are counted). With
 * `ordersPerSecond`, order `i` starts no earlier than `i / ordersPerSecond` seconds after the first: the pace of
 * another implementation, so that the same work is measured at the same request rate.
 */
export async function runOrders(
  count: number,
  concurrency: number,
  runOne: (index: number) => Promise<void>,
  ordersPerSecond?: number,
): Promise<PoolResult> {
  const latenciesMs: number[] = [];
  const failureSamples: string[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  const lane = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      if (ordersPerSecond !== undefined) {
        const due = started + (index * 1000) / ordersPerSecond;
        // Timers may fire a little early (the event loop's cached clock): wait until it is due.
        while (performance.now() < due) await sleep(due - performance.now());
      }
      const begin = performance.now();
      try {
        await runOne(index);
        latenciesMs.push(performance.now() - begin);
      } catch (error) {
        failures += 1;
        if (failureSamples.length < 5)
          failureSamples.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, lane));
  return { latenciesMs, wallMs: performance.now() - started, failures, failureSamples };
}
