/**
 * A small chaos run in CI: six orders under platform faults, one worker process killed with SIGKILL, one
 * Temporal server restart. The run itself checks the invariants (see tools/chaos/run-chaos.ts); this test fails
 * on any violation and makes sure the disruptions and faults really happened.
 */
import { runChaos, formatChaosReport } from '../../../tools/chaos';

describe('chaos run (small)', () => {
  it('loses and duplicates nothing, and leaks no secret, under faults, a SIGKILL and a server restart', async () => {
    const lines: string[] = [];
    const report = await runChaos({
      orders: 6,
      workerKills: 1,
      temporalRestarts: 1,
      seed: 7,
      timeLimitMs: 100_000,
      log: (line) => lines.push(line),
    });
    const summary = `${lines.join('\n')}\n${formatChaosReport(report)}`;

    expect({ violations: report.violations, summary }).toEqual({ violations: [], summary });
    expect(report.workerKills).toBe(1);
    expect(report.temporalRestarts).toBe(1);
    expect(report.orders.map((order) => order.outcome)).toEqual([
      'Completed',
      'Completed',
      'Completed',
      'Completed',
      'AwaitingRepair',
      'Completed',
    ]);
    expect(report.sandbox.orders).toBe(6);
    expect(report.historiesChecked).toBeGreaterThanOrEqual(6);
    // Faults of several kinds were injected; tokens expired and were renewed.
    expect(Object.keys(report.sandbox.faults).length).toBeGreaterThanOrEqual(4);
    expect(report.sandbox.tokensIssued).toBeGreaterThan(1);
  }, 115_000);
});
