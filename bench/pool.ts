/** Runs orders at a fixed concurrency and times each one end to end. */

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

/** Runs `runOne(0…count-1)` with at most `concurrency` in flight; never rejects (failures are counted). */
export async function runOrders(
  count: number,
  concurrency: number,
  runOne: (index: number) => Promise<void>,
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
