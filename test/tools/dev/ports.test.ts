/**
 * Ports picked before their server starts stay free for it: two processes picking at once never get the same
 * port, none comes from the range the kernel gives outgoing connections, and a process's reservations end
 * with it.
 */
import { readFileSync } from 'node:fs';
import { startTsProcess, type ChildProcessHandle } from '../../../tools/dev/child-process';
import { pollUntil } from '../../../tools/dev/poll';

/** Enough that two independent random pickers in 10000–32767 would almost surely share one (birthday bound). */
const PORTS_EACH = 400;

/** The ports reserved by running processes: their names in Linux's abstract socket namespace. */
function reservedPorts(): Set<number> {
  const names = readFileSync('/proc/net/unix', 'utf8').matchAll(/@badge-orders-port-(\d+)$/gm);
  return new Set([...names].map((match) => Number(match[1])));
}

async function picked(picker: ChildProcessHandle): Promise<number[]> {
  const line = (): string | undefined =>
    picker
      .output()
      .split('\n')
      .find((text) => text.startsWith('['));
  await pollUntil(
    () => Promise.resolve(line()),
    (found) => found !== undefined || !picker.running(),
    { what: `${picker.name}'s ports` },
  );
  const found = line();
  if (found === undefined) throw new Error(`${picker.name} ended: ${picker.output()}`);
  return JSON.parse(found) as number[];
}

// Reservations are names in Linux's abstract socket namespace; the tooling runs on Linux.
describe('free ports for the servers the tooling starts', () => {
  const pickers: ChildProcessHandle[] = [];

  afterAll(async () => {
    await Promise.all(pickers.map((picker) => picker.stop()));
  });

  it("never gives two processes picking at once the same port, and frees a process's ports once it ends", async () => {
    const start = (name: string): ChildProcessHandle => {
      const picker = startTsProcess({
        name,
        script: 'test/fixtures/port-picker.ts',
        env: { PORT_COUNT: String(PORTS_EACH) },
      });
      pickers.push(picker);
      return picker;
    };
    const pickerA = start('picker a');
    const pickerB = start('picker b');
    const [a, b] = await Promise.all([picked(pickerA), picked(pickerB)]);

    for (const ports of [a, b]) {
      expect(new Set(ports).size).toBe(PORTS_EACH);
      // Below Linux's ephemeral range (32768–60999), and a PostgreSQL smallint for Temporal's membership.
      expect(Math.min(...ports)).toBeGreaterThanOrEqual(10_000);
      expect(Math.max(...ports)).toBeLessThan(32_768);
    }
    expect(a.filter((port) => b.includes(port))).toEqual([]);
    expect([...a, ...b].filter((port) => !reservedPorts().has(port))).toEqual([]);

    // However a process ends, even killed, its reservations end with it; the other's stay.
    await pickerA.kill('SIGKILL');
    const reserved = reservedPorts();
    expect(a.filter((port) => reserved.has(port))).toEqual([]);
    expect(b.filter((port) => !reserved.has(port))).toEqual([]);
  });
});
