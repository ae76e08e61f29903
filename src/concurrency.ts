/** Bounded parallelism that is deterministic in workflow code (no timers, no Node APIs). */

/** Runs `task` for every item with at most `limit` running at once; resolves when all have settled. */
export function runWithConcurrency<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<unknown> {
  // All at once when the limit allows: no lanes, whose promises workflow code pays for (the SDK captures a
  // stack for each). The tasks start in the same order as through lanes.
  if (items.length <= limit) return Promise.all(items.map((item) => task(item)));
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await task(item);
    }
  };
  return Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
