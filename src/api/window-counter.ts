/**
 * Amounts per key in fixed time windows, in this process's memory: the bytes a client uploaded this hour, the
 * failed authentications of an address this minute. Several API replicas each count their own (like the request
 * rate limit): a limit per replica.
 */

/** Keys kept before expired windows are swept out (one sweep per this many new keys). */
const SWEEP_EVERY = 1_000;

/** Counts per key, each key's window starting with its first amount. */
export class WindowCounter {
  private readonly windows = new Map<string, { startedAt: number; amount: number }>();
  private added = 0;

  constructor(private readonly windowMs: number) {}

  /** What `key` counted in its current window (0 when its window has passed). */
  used(key: string): number {
    return this.current(key)?.amount ?? 0;
  }

  /** Milliseconds until `key`'s window ends (0 without one). */
  remainingMs(key: string): number {
    const window = this.current(key);
    return window === undefined ? 0 : Math.max(0, window.startedAt + this.windowMs - Date.now());
  }

  /** Adds `amount` to `key`'s window (starting one when it has none); returns the new total. */
  add(key: string, amount: number): number {
    const window = this.current(key);
    if (window !== undefined) {
      window.amount += amount;
      return window.amount;
    }
    this.added += 1;
    if (this.added % SWEEP_EVERY === 0) this.sweep();
    this.windows.set(key, { startedAt: Date.now(), amount });
    return amount;
  }

  private current(key: string): { startedAt: number; amount: number } | undefined {
    const window = this.windows.get(key);
    if (window === undefined) return undefined;
    if (window.startedAt + this.windowMs > Date.now()) return window;
    this.windows.delete(key);
    return undefined;
  }

  private sweep(): void {
    for (const key of [...this.windows.keys()]) this.current(key);
  }
}
