import { runOrders } from '../../bench/pool';

describe('runOrders', () => {
  it('keeps at most `concurrency` orders in flight and counts failures without rejecting', async () => {
    let inFlight = 0;
    let most = 0;
    const result = await runOrders(12, 3, async (index) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      if (index % 4 === 0) throw new Error(`order ${index} failed`);
    });
    expect(most).toBe(3);
    expect(result.latenciesMs).toHaveLength(9);
    expect(result.failures).toBe(3);
    expect(result.failureSamples).toEqual(['order 0 failed', 'order 4 failed', 'order 8 failed']);
  });

  it('at a pace, starts order i no earlier than i / pace after the run began', async () => {
    const starts: number[] = [];
    const ordersPerSecond = 100;
    // Concurrency would allow all at once: only the pace holds them back.
    const before = performance.now();
    const result = await runOrders(
      6,
      6,
      async (index) => {
        starts[index] = performance.now();
        await Promise.resolve();
      },
      ordersPerSecond,
    );
    expect(result.latenciesMs).toHaveLength(6);
    starts.forEach((start, index) => {
      expect(start - before).toBeGreaterThanOrEqual((index * 1000) / ordersPerSecond);
    });
    expect(result.wallMs).toBeGreaterThanOrEqual((5 * 1000) / ordersPerSecond);
  });
});
