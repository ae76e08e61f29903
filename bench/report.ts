/**
 * The results of a benchmark run: their shape (the JSON written with `--json`), the targets they are judged
 * against, and the table for people. Pure functions only.
 */
import type { ProfileBucket } from './profile';
import {
  isBadgeKind,
  isDirectKind,
  isFloorKind,
  type ManyDocumentsResult,
  type MemoryResult,
  type ScenarioResult,
} from './scenario';

/** The token calls of one set of badge worker processes over its life. */
export interface WorkerSetAuth {
  readonly workers: number;
  readonly lifetimeSeconds: number;
  readonly authCalls: number;
}

/** Everything a run measured. */
export interface BenchResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly quick: boolean;
  readonly machine: { readonly cpus: number; readonly node: string; readonly platform: string };
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
  readonly settings: Readonly<Record<string, unknown>>;
  readonly tokenTtlSeconds: number;
  /** False for a `--no-encryption` run, which only says what encryption costs. */
  readonly encryption?: boolean;
  readonly scenarios: readonly ScenarioResult[];
  readonly memory: MemoryResult | null;
  readonly manyDocuments: readonly ManyDocumentsResult[];
  /** Worker self time by bucket from `--profile` (all threads, whole worker lives), or null. */
  readonly profile: {
    readonly badgeOrder: readonly ProfileBucket[];
    readonly floor: readonly ProfileBucket[];
    readonly peer?: readonly ProfileBucket[];
    /** All baselines' workers together. */
    readonly baseline?: readonly ProfileBucket[];
  } | null;
  readonly workerSets: readonly WorkerSetAuth[];
  /** Token calls issued by the sandbox over the whole run (every worker set and the direct script). */
  readonly authCallsTotal: number;
  readonly totalSeconds: number;
}

/** One target and whether the run met it. */
export interface TargetResult {
  readonly name: string;
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

/** Temporal's hard limits on one workflow execution's history. */
const HISTORY_LIMITS = { events: 51_200, bytes: 50 * 1024 * 1024 } as const;

/** Largest RSS growth accepted for the large document. */
export const RSS_GROWTH_TARGET_BYTES = 64 * 1024 * 1024;

/** Throughput of badgeOrder relative to the peer's, at concurrency 10 and 50 with 1 worker (issue 31). */
const PEER_RATIO_TARGET = 1.0;

/** The concurrencies the throughput targets are judged at. */
const THROUGHPUT_TARGET_CONCURRENCIES: readonly number[] = [10, 50];

/** The worker count the throughput targets are judged at. */
const THROUGHPUT_TARGET_WORKERS = 1;

/**
 * Total CPU per order at most this factor × (featured floor CPU + CPU of the direct calls at badgeOrder's pace):
 * what no implementation with badgeOrder's features can beat on this machine, plus 10 %.
 */
const CPU_FACTOR_TARGET = 1.1;

/** Largest share of the event limit a 100-document order's history may take. */
const MANY_DOCUMENTS_EVENT_SHARE = 0.02;

const MB = 1024 * 1024;

function find(
  scenarios: readonly ScenarioResult[],
  kind: ScenarioResult['kind'],
  workers: number | null,
  concurrency: number,
): ScenarioResult | undefined {
  return scenarios.find(
    (scenario) =>
      scenario.kind === kind &&
      scenario.concurrency === concurrency &&
      (workers === null || scenario.workers === workers),
  );
}

/** Throughput over the peer's at the same workers and concurrency; NaN when one is missing. */
export function peerRatio(scenarios: readonly ScenarioResult[], scenario: ScenarioResult): number {
  const peer = find(scenarios, 'peer', scenario.workers, scenario.concurrency);
  return peer ? scenario.ordersPerSecond / peer.ordersPerSecond : Number.NaN;
}

/** Throughput over the direct calls' at the same concurrency; NaN when one is missing. */
function directRatio(scenarios: readonly ScenarioResult[], scenario: ScenarioResult): number {
  const direct = find(scenarios, 'direct', null, scenario.concurrency);
  return direct ? scenario.ordersPerSecond / direct.ordersPerSecond : Number.NaN;
}

/** CPU seconds of a scenario summed over its processes (workers, server, bench). */
export function totalCpuSeconds(scenario: ScenarioResult): number {
  return scenario.cpu.workerSeconds + scenario.cpu.serverSeconds + scenario.cpu.benchSeconds;
}

/** CPU ms per completed order: total and by process. */
export function cpuPerOrderMs(scenario: ScenarioResult): {
  total: number;
  worker: number;
  server: number;
  bench: number;
} {
  const orders = Math.max(1, scenario.latency.count);
  return {
    total: (totalCpuSeconds(scenario) * 1000) / orders,
    worker: (scenario.cpu.workerSeconds * 1000) / orders,
    server: (scenario.cpu.serverSeconds * 1000) / orders,
    bench: (scenario.cpu.benchSeconds * 1000) / orders,
  };
}

/**
 * CPU ms per order of the platform work of direct calls: the script and the sandbox (bench). The dev server's
 * CPU while they run is Temporal idling, which the floor's figure holds already.
 */
function directWorkMs(direct: ScenarioResult): number {
  const cpu = cpuPerOrderMs(direct);
  return cpu.worker + cpu.bench;
}

/** The platform requests one order should make: 1 create, D uploads, 1 stock lookup when a stock is given. */
export function expectedRequestsPerOrder(scenario: ScenarioResult): Record<string, number> {
  return {
    ...(scenario.withStock ? { stocks: 1 } : {}),
    orders: 1,
    ...(scenario.documentsPerOrder > 0 ? { documents: scenario.documentsPerOrder } : {}),
  };
}

function formatPerOrder(perOrder: Readonly<Record<string, number>>): string {
  const entries = Object.entries(perOrder);
  if (entries.length === 0) return '-';
  return entries.map(([route, count]) => `${route} ${round(count, 2)}`).join(', ');
}

function samePerOrder(actual: Readonly<Record<string, number>>, expected: Record<string, number>): boolean {
  const routes = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  return [...routes].every((route) => (actual[route] ?? 0) === (expected[route] ?? 0));
}

/** `load 1.2→3.4`: the 1-minute load average when a scenario's measured orders started and ended. */
export function formatLoad(scenario: ScenarioResult): string {
  return `${num(scenario.load.start[0] ?? Number.NaN, 1)}→${num(scenario.load.end[0] ?? Number.NaN, 1)}`;
}

function where(scenario: ScenarioResult): string {
  return `${scenario.workers} worker(s), concurrency ${scenario.concurrency}`;
}

function signed(value: number, digits = 1): string {
  return `${value >= 0 ? '+' : ''}${num(value, digits)}`;
}

/** Judges a run against the targets of issue 31: one row per target and measured scenario. */
export function evaluateTargets(results: Omit<BenchResults, 'finishedAt'>): TargetResult[] {
  const targets: TargetResult[] = [];
  const scenarios = results.scenarios;
  const badge = scenarios.filter((scenario) => scenario.kind === 'badgeOrder');
  const peerOf = (scenario: ScenarioResult) =>
    find(scenarios, 'peer', scenario.workers, scenario.concurrency);
  for (const scenario of badge.filter(
    (candidate) =>
      candidate.workers === THROUGHPUT_TARGET_WORKERS &&
      THROUGHPUT_TARGET_CONCURRENCIES.includes(candidate.concurrency),
  )) {
    const peer = peerOf(scenario);
    const ratio = peerRatio(scenarios, scenario);
    targets.push({
      name: `throughput vs peer (${where(scenario)})`,
      target: `>= ${PEER_RATIO_TARGET.toFixed(1)}x`,
      measured: peer
        ? `${round(ratio, 2)}x (${num(scenario.ordersPerSecond)} vs ${num(peer.ordersPerSecond)} orders/s; ` +
          `load ${formatLoad(peer)}, ${formatLoad(scenario)})`
        : 'no peer run',
      met: ratio >= PEER_RATIO_TARGET,
    });
  }
  for (const scenario of badge) {
    const peer = peerOf(scenario);
    const own = cpuPerOrderMs(scenario);
    const theirs = peer ? cpuPerOrderMs(peer) : undefined;
    const limit = theirs ? theirs.worker + theirs.server : Number.NaN;
    targets.push({
      name: `worker + server CPU per order vs peer (${where(scenario)})`,
      target: `<= peer's${theirs ? ` = ${num(limit)} ms` : ''}`,
      measured: theirs
        ? `${num(own.worker + own.server)} ms (worker ${num(own.worker)}, server ${num(own.server)}; ` +
          `${signed(own.worker + own.server - limit)}); peer worker ${num(theirs.worker)}, server ${num(theirs.server)}`
        : 'no peer run',
      met: own.worker + own.server <= limit,
    });
  }
  for (const scenario of badge.filter((candidate) => candidate.concurrency === 1)) {
    const peer = peerOf(scenario);
    const gap = peer ? scenario.latency.p50Ms - peer.latency.p50Ms : Number.NaN;
    targets.push({
      name: `latency p50 vs peer (${where(scenario)})`,
      target: `<= peer's${peer ? ` = ${num(peer.latency.p50Ms, 0)} ms` : ''}`,
      measured: peer ? `${num(scenario.latency.p50Ms, 0)} ms (${signed(gap, 0)} ms)` : 'no peer run',
      met: gap <= 0,
    });
  }
  for (const scenario of badge) {
    const featured = find(scenarios, 'featuredFloor', scenario.workers, scenario.concurrency);
    const direct = find(scenarios, 'directPaced', scenario.workers, scenario.concurrency);
    const cpu = cpuPerOrderMs(scenario);
    const floorMs = featured ? cpuPerOrderMs(featured).total : Number.NaN;
    const directMs = direct ? directWorkMs(direct) : Number.NaN;
    const limit = CPU_FACTOR_TARGET * (floorMs + directMs);
    targets.push({
      name: `total CPU per order (${where(scenario)})`,
      target:
        `<= ${CPU_FACTOR_TARGET} x (featured floor + direct at badgeOrder's pace)` +
        `${Number.isFinite(limit) ? ` = ${num(limit)} ms` : ''}`,
      measured:
        `${num(cpu.total)} ms (worker ${num(cpu.worker)}, server ${num(cpu.server)}, bench ${num(cpu.bench)})` +
        (Number.isFinite(limit)
          ? `; featured floor ${num(floorMs)}, direct ${num(directMs)}`
          : '; no featured floor or paced direct run'),
      met: cpu.total <= limit,
    });
  }
  for (const scenario of badge) {
    const expected = expectedRequestsPerOrder(scenario);
    targets.push({
      name: `platform calls per order (${where(scenario)})`,
      target: formatPerOrder(expected),
      measured: formatPerOrder(scenario.requestsPerOrder),
      met: samePerOrder(scenario.requestsPerOrder, expected) && scenario.failures === 0,
    });
  }
  for (const set of results.workerSets) {
    const allowed = set.workers * Math.max(1, Math.ceil(set.lifetimeSeconds / results.tokenTtlSeconds));
    targets.push({
      name: `auth calls (${set.workers} worker(s), ${round(set.lifetimeSeconds, 0)} s, token ${results.tokenTtlSeconds} s)`,
      target: `<= ${allowed}`,
      measured: String(set.authCalls),
      met: set.authCalls <= allowed,
    });
  }
  if (results.memory) {
    targets.push({
      name: `worker RSS growth for one ${round(results.memory.documentBytes / MB, 0)} MB document`,
      target: `< ${RSS_GROWTH_TARGET_BYTES / MB} MB`,
      measured: `${round(results.memory.rssGrowthBytes / MB, 1)} MB`,
      met: results.memory.rssGrowthBytes < RSS_GROWTH_TARGET_BYTES,
    });
  }
  for (const many of results.manyDocuments.filter((entry) => entry.kind === 'badgeOrder')) {
    const eventsShare = many.historyEvents / HISTORY_LIMITS.events;
    const bytesShare = many.historyBytes / HISTORY_LIMITS.bytes;
    targets.push({
      name: `order with ${many.documents} documents completes inside history limits`,
      target: `Completed, <= ${pct(MANY_DOCUMENTS_EVENT_SHARE)} of 51,200 events, < 10% of 50 MB`,
      measured: `${many.status}, ${many.historyEvents} events (${pct(eventsShare)}), ${round(many.historyBytes / 1024, 0)} KB (${pct(bytesShare)})`,
      met: many.status === 'COMPLETED' && eventsShare <= MANY_DOCUMENTS_EVENT_SHARE && bytesShare < 0.1,
    });
  }
  return targets;
}

/**
 * The interleaved comparison of this tree against the baseline (`--baseline`), one row per worker count and
 * concurrency: throughput and CPU per order by process, with the load during each.
 */
function baselineComparison(scenarios: readonly ScenarioResult[]): string[][] {
  return scenarios
    .filter((scenario) => scenario.kind === 'badgeOrder')
    .flatMap((current) =>
      scenarios
        .filter(
          (scenario) =>
            scenario.kind === 'baseline' &&
            scenario.workers === current.workers &&
            scenario.concurrency === current.concurrency,
        )
        .map((base) => {
          const now = cpuPerOrderMs(current);
          const before = cpuPerOrderMs(base);
          const change = (after: number, earlier: number): string =>
            `${num(earlier)} → ${num(after)} (${after - earlier >= 0 ? '+' : ''}${num(after - earlier)})`;
          return [
            base.baseline ?? '?',
            String(current.workers),
            String(current.concurrency),
            `${num(base.ordersPerSecond)} → ${num(current.ordersPerSecond)} (${num(current.ordersPerSecond / base.ordersPerSecond, 2)}x)`,
            change(now.total, before.total),
            change(now.worker, before.worker),
            change(now.server, before.server),
            change(now.bench, before.bench),
            `${num(base.latency.p50Ms, 0)} → ${num(current.latency.p50Ms, 0)}`,
            `${formatLoad(base)}, ${formatLoad(current)}`,
          ];
        }),
    );
}

/** Rounds to `digits` decimals; keeps NaN. */
export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function pct(share: number): string {
  return `${round(share * 100, 2)}%`;
}

/** A figure for a table cell, `-` when there is none. */
export function num(value: number, digits = 1): string {
  return Number.isFinite(value) ? round(value, digits).toFixed(digits) : '-';
}

/** The columns every scenario table starts with (dev server and cluster alike). */
export const SCENARIO_COLUMNS = ['scenario', 'workers', 'conc', 'orders', 'orders/s', 'p50', 'p95'] as const;

/** A scenario's cells under {@link SCENARIO_COLUMNS}. */
export function scenarioCells(scenario: ScenarioResult, label: string = scenario.kind): string[] {
  const done = scenario.latency.count;
  return [
    label,
    String(scenario.workers),
    String(scenario.concurrency),
    scenario.failures > 0 ? `${done}/${scenario.orders}` : String(scenario.orders),
    num(scenario.ordersPerSecond),
    num(scenario.latency.p50Ms, 0),
    num(scenario.latency.p95Ms, 0),
  ];
}

/** One line per scenario with failed orders, with samples of what failed. */
export function failureLines(scenarios: readonly ScenarioResult[], prefix = ''): string[] {
  return scenarios
    .filter((scenario) => scenario.failures > 0)
    .map(
      (scenario) =>
        `${prefix}${scenario.kind} w${scenario.workers} c${scenario.concurrency}: ${scenario.failures} failed — ` +
        scenario.failureSamples.join(' | '),
    );
}

/** Lays out rows as a fixed-width table: text left-aligned, numbers right-aligned (unless `alignNumbers` is false). */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  alignNumbers = true,
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const isNumeric = (text: string): boolean => /^[-+]?[\d.,]+(x|%)?$/.test(text) || text === '-';
  // A column of numbers is right-aligned, its header too.
  const numericColumns = header.map(
    (_, column) => alignNumbers && rows.length > 0 && rows.every((row) => isNumeric(row[column] ?? '-')),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => {
        const width = widths[column] ?? cell.length;
        return numericColumns[column] ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** A scenario's name in the dev server's tables: its kind, and which baseline for a baseline's. */
function scenarioLabel(scenario: ScenarioResult): string {
  return scenario.kind === 'baseline' ? `baseline ${scenario.baseline ?? ''}` : scenario.kind;
}

function scenarioRows(results: BenchResults): string[][] {
  return results.scenarios.map((scenario) => {
    const ratioPeer = isBadgeKind(scenario.kind) ? peerRatio(results.scenarios, scenario) : Number.NaN;
    const ratioDirect = isDirectKind(scenario.kind) ? Number.NaN : directRatio(results.scenarios, scenario);
    const done = scenario.latency.count;
    return [
      ...scenarioCells(scenario, scenarioLabel(scenario)),
      num(scenario.latency.p99Ms, 0),
      num((scenario.cpu.workerSeconds * 1000) / Math.max(1, done), 1),
      num((scenario.cpu.serverSeconds * 1000) / Math.max(1, done), 1),
      num((scenario.cpu.benchSeconds * 1000) / Math.max(1, done), 1),
      num(
        ((scenario.cpu.workerSeconds + scenario.cpu.serverSeconds + scenario.cpu.benchSeconds) * 1000) /
          Math.max(1, done),
        1,
      ),
      num(scenario.workerPeakRssBytes / MB, 0),
      Number.isFinite(ratioPeer) ? `${num(ratioPeer, 2)}x` : '-',
      Number.isFinite(ratioDirect) ? `${num(ratioDirect, 2)}x` : '-',
      formatLoad(scenario),
      isFloorKind(scenario.kind) ? '-' : formatPerOrder(scenario.requestsPerOrder),
    ];
  });
}

function serverWorkRows(scenarios: readonly ScenarioResult[]): string[][] {
  return scenarios.flatMap((scenario) => {
    const work = scenario.serverWork;
    if (!work) return [];
    const perOrder = (count: number): string => num(count / Math.max(1, scenario.orders), 2);
    return [
      [
        scenarioLabel(scenario),
        String(scenario.workers),
        String(scenario.concurrency),
        perOrder(work.workflowTasks),
        perOrder(work.backlogWrites),
        perOrder(work.visibilityTasks),
        perOrder(work.stateWrites),
        perOrder(work.definitionReads),
      ],
    ];
  });
}

/** The whole report for people. */
export function formatReport(results: BenchResults, targets: readonly TargetResult[]): string {
  const sections: string[] = [];
  sections.push(
    `badge-orders benchmark${results.quick ? ' (quick)' : ''} — ${results.startedAt}, ${results.machine.cpus} CPUs, ` +
      `node ${results.machine.node}, load ${results.loadAverage.start.join(' ')} → ${results.loadAverage.end.join(' ')}, ` +
      `${num(results.totalSeconds, 0)} s`,
  );
  if (results.encryption === false) {
    sections.push(
      'PAYLOAD ENCRYPTION OFF (--no-encryption): this run says what encryption costs; it is not the ' +
        'production configuration, and its target rows do not count.',
    );
  }
  const first = results.scenarios[0];
  if (first) {
    sections.push(
      `Orders of ${first.documentsPerOrder} document(s) × ${num(first.documentBytes / 1024, 0)} KB` +
        `${first.withStock ? ', with a stock' : ''}. Latency end to end (start → result) in ms; CPU in ms per order ` +
        '(worker = all worker processes, or the direct script; bench = this process: sandbox + starters). ' +
        'peer = what a user would write first; floor = own-shape floor, naiveFloor = naive-shape floor, ' +
        "featuredFloor = own-shape floor with badgeOrder's visibility writes, summaries and encryption; " +
        "direct = direct calls as fast as they go, directPaced = at badgeOrder's pace (workers = whose pace); " +
        'load = 1-minute load average at start→end.',
    );
  }
  sections.push(
    formatTable(
      [
        ...SCENARIO_COLUMNS,
        'p99',
        'worker cpu',
        'server cpu',
        'bench cpu',
        'total cpu',
        'peak rss MB',
        'vs peer',
        'vs direct',
        'load',
        'platform calls per order',
      ],
      scenarioRows(results),
    ),
  );
  const comparison = baselineComparison(results.scenarios);
  if (comparison.length > 0) {
    sections.push(
      'Baselines → this tree, interleaved in the same rounds (CPU in ms per order; load = 1-minute load ' +
        'average, baseline then this tree):\n' +
        formatTable(
          [
            'baseline',
            'workers',
            'conc',
            'orders/s',
            'total cpu',
            'worker cpu',
            'server cpu',
            'bench cpu',
            'p50',
            'load',
          ],
          comparison,
          false,
        ),
    );
  }
  const serverWork = serverWorkRows(results.scenarios);
  if (serverWork.length > 0) {
    sections.push(
      "The Temporal server's work per order, from its counters (workflow tasks; tasks written to matching's " +
        'backlog because no poller was waiting; visibility tasks, those of one transaction collapsed into one; ' +
        'workflow state writes; reads of the namespace and search attribute definitions, which its caches ' +
        'spare):\n' +
        formatTable(
          [
            'scenario',
            'workers',
            'conc',
            'workflow tasks',
            'backlog writes',
            'visibility tasks',
            'state writes',
            'definition reads',
          ],
          serverWork,
          false,
        ),
    );
  }
  sections.push(...failureLines(results.scenarios));
  if (results.memory) {
    const memory = results.memory;
    sections.push(
      `Large document: ${num(memory.documentBytes / MB, 0)} MB in ${num(memory.seconds, 1)} s ` +
        `(${num(memory.megabytesPerSecond, 0)} MB/s); worker RSS ${num(memory.rssBeforeBytes / MB, 0)} MB before, ` +
        `peak ${num(memory.peakRssBytes / MB, 0)} MB → growth ${num(memory.rssGrowthBytes / MB, 1)} MB` +
        `${memory.peakReset ? '' : ' (peak not reset: includes start-up)'}.`,
    );
  }
  if (results.manyDocuments.length > 0) {
    sections.push(
      formatTable(
        ['many documents', 'documents', 'seconds', 'history events', 'history KB', 'status'],
        results.manyDocuments.map((many) => [
          many.kind,
          String(many.documents),
          num(many.seconds, 1),
          String(many.historyEvents),
          num(many.historyBytes / 1024, 0),
          many.status,
        ]),
      ),
    );
  }
  if (results.profile) {
    for (const [kind, buckets] of Object.entries(results.profile)) {
      if (buckets.length === 0) continue;
      sections.push(
        formatTable(
          [`${kind} worker self time`, 'ms', 'share'],
          buckets.map((bucket) => [bucket.bucket, num(bucket.selfMs, 0), `${num(bucket.share * 100, 1)}%`]),
        ),
      );
    }
  }
  sections.push(`Token calls over the whole run: ${results.authCallsTotal}.`);
  sections.push(
    formatTable(
      ['target', 'wanted', 'measured', 'met'],
      targets.map((target) => [target.name, target.target, target.measured, target.met ? 'yes' : 'NO']),
      false,
    ),
  );
  return `${sections.join('\n\n')}\n`;
}
