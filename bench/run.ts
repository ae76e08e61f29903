/**
 * `npm run bench`: measures badge orders on this machine against the peer (what a user would write first), the
 * Temporal floors and direct calls, and writes the results under bench/results/. `--quick` finishes in a few
 * minutes; `--json` prints JSON.
 * Progress goes to stderr. Everything started is stopped at the end, on failure and on Ctrl-C.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { intList, positiveInt } from './cli';
import { runMain } from '../src/main/run-main';
import { DEFAULT_RULES } from '../src/sandbox';
import { PROJECT_ROOT } from '../tools/dev/child-process';
import { apiDocumentTargets, formatApiDocument, runApiDocumentScenario } from './api-document';
import {
  addClusterOptions,
  DEFAULT_CLUSTER_WORKERS,
  runClusterBench,
  type ClusterCliOptions,
} from './cluster';
import { formatClusterReport } from './cluster-report';
import { readLoadAverage } from './metrics';
import { mergeRepeats } from './merge';
import { indexBundle, summariseProfileDir } from './profile';
import {
  evaluateTargets,
  formatReport,
  totalCpuSeconds,
  type BenchResults,
  type WorkerSetAuth,
} from './report';
import {
  runDirectScenario,
  runManyDocumentsScenario,
  runMemoryScenario,
  runTemporalScenario,
  type ManyDocumentsResult,
  type MemoryResult,
  type OrderShape,
  type ScenarioResult,
  type TemporalKind,
} from './scenario';
import { startBenchStack, type BenchStack, type WorkerSet } from './stack';

interface CliOptions extends ClusterCliOptions {
  readonly quick: boolean;
  readonly json: boolean;
  readonly orders?: number;
  readonly warmup?: number;
  readonly documents: number;
  readonly documentKb: number;
  readonly concurrency?: number[];
  readonly workers?: number[];
  readonly stock: number | false;
  readonly bigDocumentMb?: number;
  readonly apiDocumentMb?: number;
  readonly manyDocuments: number;
  readonly maxActivities: number;
  readonly workerLogLevel: string;
  readonly skip: string[];
  readonly out: string;
  readonly profile: boolean;
  readonly tokenTtl: number;
  readonly encryption: boolean;
  readonly floorSearchAttributes: boolean;
  readonly repeat?: number;
  readonly baseline?: string[];
}

const SKIPPABLE = ['peer', 'floor', 'naive', 'featured', 'direct', 'memory', 'many', 'api-document'] as const;

function parseCli(argv: readonly string[]): CliOptions {
  const program = new Command('bench')
    .description('Benchmark badgeOrder against the peer, the Temporal floors and direct platform calls')
    .option('--quick', 'one worker, concurrency 1, 10 and 50, 100 MB documents: a few minutes', false)
    .option('--json', 'print the results as JSON instead of the table', false)
    .option(
      '--orders <n>',
      'measured orders per scenario (default, quick too: max(60, 5 × concurrency))',
      positiveInt,
    )
    .option(
      '--warmup <n>',
      'unmeasured orders before each scenario (default, quick too: max(30, concurrency))',
      positiveInt,
    )
    .option(
      '--repeat <n>',
      'rounds per scenario, each running every implementation in turn (default 2)',
      positiveInt,
    )
    .option(
      '--baseline <git-refs>',
      "also run the workers, workflow bundles and clients of these git refs (comma-separated, e.g. main,HEAD~3), interleaved with this tree's",
      (value: string) => value.split(',').map((part) => part.trim()),
    )
    .option('--documents <n>', 'documents per order', positiveInt, 2)
    .option('--document-kb <kb>', 'size of each document in KiB', positiveInt, 64)
    .option('--concurrency <list>', 'orders in flight, comma-separated (default 1,10,50)', intList)
    .option('--workers <list>', 'worker process counts, comma-separated (default 1,2; quick 1)', intList)
    .option('--stock <id>', 'stock id of every order (the demo user has 1001)', positiveInt, 1001)
    .option('--no-stock', 'order without a stock (no stock lookup)')
    .option('--big-document-mb <mb>', 'size of the large document (default 500; quick 100)', positiveInt)
    .option(
      '--api-document-mb <mb>',
      'size of the document sent through the API and S3 (default 1024; quick 100)',
      positiveInt,
    )
    .option('--many-documents <n>', 'documents of the many-documents order', positiveInt, 100)
    .option('--max-activities <n>', 'WORKER_MAX_CONCURRENT_ACTIVITIES of every worker', positiveInt, 200)
    .option(
      '--token-ttl <seconds>',
      'lifetime of the sandbox tokens',
      positiveInt,
      DEFAULT_RULES.tokenTtlSeconds,
    )
    .option('--worker-log-level <level>', 'LOG_LEVEL of the badge workers', 'warn')
    .option(
      '--floor-search-attributes',
      "also run the own-shape floor making badgeOrder's visibility writes (floorSearchAttributes), interleaved: what they cost",
      false,
    )
    .option(
      '--no-encryption',
      'badge workers and client without payload encryption: says what encryption costs (not the production configuration)',
    )
    .addOption(
      new Option('--skip <parts>', `parts to leave out, comma-separated (${SKIPPABLE.join(', ')})`)
        .argParser((value) => value.split(',').map((part) => part.trim()))
        .default([]),
    )
    .option(
      '--profile',
      'workers write V8 CPU profiles under <out>/profiles-<time>/ (summarised in the report)',
      false,
    )
    .option('--out <dir>', 'where results are written', join(PROJECT_ROOT, 'bench', 'results'));
  addClusterOptions(program);
  program.parse([...argv], { from: 'user' });
  const options = program.opts<CliOptions>();
  const unknown = options.skip.filter((part) => !(SKIPPABLE as readonly string[]).includes(part));
  if (unknown.length > 0) program.error(`--skip: unknown part(s) ${unknown.join(', ')}`);
  return options;
}

const log = (message: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

async function main(): Promise<number> {
  const cli = parseCli(process.argv.slice(2));
  const concurrencies = cli.concurrency ?? [1, 10, 50];
  const workerCounts = cli.workers ?? (cli.quick ? [1] : [1, 2]);
  // Enough orders for V8 to optimise each implementation's per-order code, and at least one wave at the scenario's
  // concurrency, so that connection pools, caches and heaps reach its steady state before anything is measured:
  // with 3 orders, a first round at concurrency 50 ran cold and cost a fifth more, and at concurrency 1 (the first
  // scenario, on fresh workers) badgeOrder's worker cost 57-83 ms per order against 51-52 when warm.
  const warmupOrders = cli.warmup ?? 30;
  const warmupFor = (concurrency: number): number => cli.warmup ?? Math.max(warmupOrders, concurrency);
  const repeat = Math.max(1, cli.repeat ?? 2);
  const bigDocumentBytes = (cli.bigDocumentMb ?? (cli.quick ? 100 : 500)) * 1024 * 1024;
  const apiDocumentBytes = (cli.apiDocumentMb ?? (cli.quick ? 100 : 1024)) * 1024 * 1024;
  // Quick runs measure as many orders as full ones: with fewer, a round at concurrency 50 was one wave of
  // orders (its ramp and tail, not its pace), and the rows flipped between runs of the same code.
  const ordersFor = (concurrency: number): number => cli.orders ?? Math.max(60, 5 * concurrency);
  const skip = new Set(cli.skip);
  const runId = `bench-${randomUUID().slice(0, 8)}`;
  const startedAt = new Date();
  const profileDir = cli.profile
    ? join(cli.out, `profiles-${startedAt.toISOString().replace(/[:.]/g, '-')}`)
    : undefined;
  const loadStart = readLoadAverage();
  log(`load average ${loadStart.join(' ')}; ${availableParallelism()} CPUs`);

  // The stack stops itself on Ctrl-C (SIGINT / SIGTERM), also while it starts.
  let stack: BenchStack | undefined;
  try {
    stack = await startBenchStack({
      maxConcurrentActivities: cli.maxActivities,
      maxDocumentBytes: Math.max(
        Math.max(bigDocumentBytes, skip.has('api-document') ? 0 : apiDocumentBytes) + 1024 * 1024,
        DEFAULT_RULES.maxUploadBytes,
      ),
      workerLogLevel: cli.workerLogLevel,
      tokenTtlSeconds: cli.tokenTtl,
      encryption: cli.encryption,
      ...(profileDir ? { profileDir } : {}),
      ...(cli.baseline ? { baselineRefs: cli.baseline } : {}),
      log,
    });
    const shape: OrderShape = {
      documents: stack.writeDocuments('doc', cli.documents, cli.documentKb * 1024),
      documentBytes: cli.documentKb * 1024,
      stockId: cli.stock === false ? undefined : cli.stock,
    };
    const manyShape: OrderShape = {
      documents: stack.writeDocuments('many', cli.manyDocuments, 1024),
      documentBytes: 1024,
      stockId: shape.stockId,
    };
    const statsAtStart = await stack.sandbox.control.stats();

    const scenarios: ScenarioResult[] = [];
    const manyDocuments: ManyDocumentsResult[] = [];
    const workerSets: WorkerSetAuth[] = [];
    for (const [setIndex, workers] of workerCounts.entries()) {
      // One worker set per implementation; the plain floors share theirs (one bundle holds both floor workflows).
      const withFloors = !skip.has('floor') || !skip.has('naive') || cli.floorSearchAttributes;
      const withFeatured = !skip.has('featured');
      const withPeer = !skip.has('peer');
      log(
        `starting ${workers} badge worker(s)${withPeer ? `, ${workers} peer worker(s)` : ''}` +
          `${withFloors ? `, ${workers} floor worker(s)` : ''}` +
          `${withFeatured ? `, ${workers} featured floor worker(s)` : ''}` +
          `${stack.baselines.map((baseline) => `, ${workers} worker(s) of ${baseline.label}`).join('')}`,
      );
      const badgeStarted = performance.now();
      const running: BenchStack = stack;
      const [badgeSet, peerSet, floorSet, featuredFloorSet, ...baselineSets] = await Promise.all([
        stack.startBadgeWorkers(workers),
        withPeer ? stack.startPeerWorkers(workers) : Promise.resolve(undefined),
        withFloors ? stack.startFloorWorkers(workers) : Promise.resolve(undefined),
        withFeatured ? stack.startFloorWorkers(workers, { encrypted: true }) : Promise.resolve(undefined),
        ...running.baselines.map((baseline) => running.startBaselineWorkers(baseline, workers)),
      ]);
      // The order of a round: the floors, the peer, the baselines, this tree's badgeOrder; every other round
      // reversed, so that no implementation always follows the same one. Then the direct calls at the pace
      // badgeOrder had in that round.
      const kinds: { kind: TemporalKind; set: WorkerSet; name: string }[] = [
        ...(floorSet && !skip.has('floor') ? [{ kind: 'floor' as const, set: floorSet, name: 'floor' }] : []),
        ...(floorSet && !skip.has('naive')
          ? [{ kind: 'naiveFloor' as const, set: floorSet, name: 'naiveFloor' }]
          : []),
        ...(floorSet && cli.floorSearchAttributes
          ? [{ kind: 'floorSearchAttributes' as const, set: floorSet, name: 'floorSearchAttributes' }]
          : []),
        ...(featuredFloorSet
          ? [{ kind: 'featuredFloor' as const, set: featuredFloorSet, name: 'featuredFloor' }]
          : []),
        ...(peerSet ? [{ kind: 'peer' as const, set: peerSet, name: 'peer' }] : []),
        ...baselineSets.map((set) => ({
          kind: 'baseline' as const,
          set,
          name: `baseline ${set.baseline?.label ?? ''}`,
        })),
        { kind: 'badgeOrder' as const, set: badgeSet, name: 'badgeOrder' },
      ];
      let authCalls = 0;
      for (const concurrency of concurrencies) {
        const orders = ordersFor(concurrency);
        const perRepeat = Math.ceil(orders / repeat);
        const runs = new Map<string, ScenarioResult[]>(kinds.map(({ name }) => [name, []]));
        const paced: ScenarioResult[] = [];
        for (let round = 0; round < repeat; round++) {
          // Warm-up once per scenario; later rounds continue on warm workers.
          const params = {
            orders: perRepeat,
            warmupOrders: round === 0 ? warmupFor(concurrency) : 0,
            concurrency,
            shape,
            runId: `${runId}-r${round}`,
          };
          const label = `${workers} worker(s), concurrency ${concurrency}, ${perRepeat} orders, round ${round + 1}/${repeat}`;
          const progress = (name: string, result: ScenarioResult): void =>
            log(
              `${name}: ${label}: ${result.ordersPerSecond.toFixed(1)} orders/s, ` +
                `${((totalCpuSeconds(result) * 1000) / Math.max(1, result.latency.count)).toFixed(1)} ms CPU/order, ` +
                `load ${result.load.start[0] ?? '-'} → ${result.load.end[0] ?? '-'}`,
            );
          let badgePace: number | undefined;
          for (const { kind, set, name } of round % 2 === 0 ? kinds : [...kinds].reverse()) {
            const result = await runTemporalScenario(stack, kind, set, params);
            progress(name, result);
            runs.get(name)?.push(result);
            if (kind === 'badgeOrder') badgePace = result.ordersPerSecond;
          }
          if (!skip.has('direct') && badgePace !== undefined && badgePace > 0) {
            const result = await runDirectScenario(stack, {
              ...params,
              // A fresh script each round: it warms up every time, at the same pace.
              warmupOrders: warmupFor(concurrency),
              ordersPerSecond: badgePace,
            });
            progress(`direct calls at ${badgePace.toFixed(1)} orders/s`, result);
            // Tied to the worker set whose badgeOrder pace it kept (see `ScenarioResult.workers`).
            paced.push({ ...result, workers });
          }
        }
        for (const { kind, name } of kinds) {
          const merged = mergeRepeats(runs.get(name) ?? []);
          if (kind === 'badgeOrder') authCalls += merged.authCallsIncludingWarmup;
          scenarios.push(merged);
        }
        if (paced.length > 0) scenarios.push(mergeRepeats(paced));
        if (setIndex === 0 && !skip.has('direct')) {
          log(`direct calls as fast as they go: concurrency ${concurrency}, ${perRepeat * repeat} orders`);
          scenarios.push(
            await runDirectScenario(stack, {
              orders: perRepeat * repeat,
              warmupOrders: warmupFor(concurrency),
              concurrency,
              shape,
              runId,
            }),
          );
        }
      }
      if (setIndex === 0 && !skip.has('many')) {
        log(`one order with ${cli.manyDocuments} documents`);
        const before = await stack.sandbox.control.stats();
        manyDocuments.push(await runManyDocumentsScenario(stack, 'badgeOrder', badgeSet, manyShape, runId));
        authCalls += (await stack.sandbox.control.stats()).authCalls.issued - before.authCalls.issued;
        if (floorSet && !skip.has('floor'))
          manyDocuments.push(await runManyDocumentsScenario(stack, 'floor', floorSet, manyShape, runId));
        if (floorSet && !skip.has('naive'))
          manyDocuments.push(await runManyDocumentsScenario(stack, 'naiveFloor', floorSet, manyShape, runId));
      }
      await Promise.all([
        badgeSet.stop(),
        peerSet?.stop(),
        floorSet?.stop(),
        featuredFloorSet?.stop(),
        ...baselineSets.map((set) => set.stop()),
      ]);
      workerSets.push({ workers, lifetimeSeconds: (performance.now() - badgeStarted) / 1000, authCalls });
    }

    // Workers wrote their profiles when they exited; only the measured orders count (no start-up, no warm-up),
    // and the memory scenario's worker is left out.
    const windowsOf = (kind: ScenarioResult['kind']): (readonly [number, number])[] =>
      scenarios.filter((scenario) => scenario.kind === kind).flatMap((scenario) => scenario.windowsUs);
    const bundles = new Map(stack.bundles.map((bundle) => [bundle.url, indexBundle(bundle.code)]));
    const profile = profileDir
      ? {
          badgeOrder: summariseProfileDir(
            join(profileDir, 'badge'),
            PROJECT_ROOT,
            windowsOf('badgeOrder'),
            bundles,
          ),
          // Both floors run on the same workers: their windows together.
          floor: summariseProfileDir(
            join(profileDir, 'floor'),
            PROJECT_ROOT,
            [...windowsOf('floor'), ...windowsOf('naiveFloor')],
            bundles,
          ),
          peer: summariseProfileDir(join(profileDir, 'peer'), PROJECT_ROOT, windowsOf('peer'), bundles),
          // Baselines' workers all write under baseline/; their windows together.
          ...(stack.baselines.length > 0
            ? {
                baseline: summariseProfileDir(
                  join(profileDir, 'baseline'),
                  PROJECT_ROOT,
                  windowsOf('baseline'),
                  bundles,
                ),
              }
            : {}),
        }
      : null;

    let memory: MemoryResult | null = null;
    if (!skip.has('memory')) {
      log(`one ${bigDocumentBytes / 1024 / 1024} MB document through a fresh worker`);
      const big = stack.writeSparseDocument('large.pdf', bigDocumentBytes);
      memory = await runMemoryScenario(stack, big, bigDocumentBytes, shape, runId);
    }

    const apiDocument = skip.has('api-document')
      ? null
      : await runApiDocumentScenario(stack, {
          bytes: apiDocumentBytes,
          runId,
          workerLogLevel: cli.workerLogLevel,
          log,
        });

    const statsAtEnd = await stack.sandbox.control.stats();
    // Cluster mode (bench/cluster.ts): the same orders on the production-shaped stack, the dev server stopped.
    const cluster = cli.cluster
      ? await stack.teardown().then(() =>
          runClusterBench({
            stack: {
              maxConcurrentActivities: cli.maxActivities,
              maxDocumentBytes: Math.max(cli.documentKb * 1024, DEFAULT_RULES.maxUploadBytes),
              workerLogLevel: cli.workerLogLevel,
              tokenTtlSeconds: cli.tokenTtl,
              log,
            },
            workerCounts: cli.clusterWorkers ?? DEFAULT_CLUSTER_WORKERS,
            concurrencies,
            ordersFor,
            warmupOrders,
            repeat,
            documents: cli.documents,
            documentBytes: cli.documentKb * 1024,
            stockId: shape.stockId,
            floor: !skip.has('floor'),
            runId,
          }),
        )
      : null;
    const partial: Omit<BenchResults, 'finishedAt'> = {
      startedAt: startedAt.toISOString(),
      quick: cli.quick,
      machine: { cpus: availableParallelism(), node: process.version, platform: process.platform },
      loadAverage: { start: loadStart, end: readLoadAverage() },
      settings: {
        concurrencies,
        workerCounts,
        warmupOrders,
        repeat,
        documentsPerOrder: cli.documents,
        documentKb: cli.documentKb,
        stockId: shape.stockId ?? null,
        bigDocumentBytes,
        manyDocuments: cli.manyDocuments,
        maxConcurrentActivities: cli.maxActivities,
        workerLogLevel: cli.workerLogLevel,
        payloadEncryption: cli.encryption
          ? 'badgeOrder, baseline and featuredFloor workers and clients: on (as in production); peer and other floors: off'
          : 'off everywhere (--no-encryption: not the production configuration)',
        skip: [...skip],
        baselines: stack.baselines.map(({ ref, commit }) => ({ ref, commit })),
      },
      tokenTtlSeconds: cli.tokenTtl,
      encryption: cli.encryption,
      scenarios,
      memory,
      manyDocuments,
      profile,
      workerSets,
      authCallsTotal: statsAtEnd.authCalls.issued - statsAtStart.authCalls.issued,
      totalSeconds: (Date.now() - startedAt.getTime()) / 1000,
    };
    const results: BenchResults = { ...partial, finishedAt: new Date().toISOString() };
    const targets = [...evaluateTargets(results), ...(apiDocument ? apiDocumentTargets(apiDocument) : [])];
    const report =
      formatReport(results, targets) +
      (apiDocument ? `\n${formatApiDocument(apiDocument)}` : '') +
      (cluster ? `\n${formatClusterReport(cluster, scenarios)}\n` : '');
    mkdirSync(cli.out, { recursive: true });
    const stamp = results.startedAt.replace(/[:.]/g, '-');
    const name = `bench-${cli.quick ? 'quick-' : ''}${stamp}`;
    const json = `${JSON.stringify({ ...results, apiDocument, targets, cluster }, null, 2)}\n`;
    writeFileSync(join(cli.out, `${name}.json`), json);
    writeFileSync(join(cli.out, `${name}.txt`), report);
    process.stdout.write(cli.json ? json : report);
    log(`results written to ${join(cli.out, name)}.{json,txt}`);
    return 0;
  } finally {
    log('stopping the stack');
    await stack?.teardown();
  }
}

// Every failure with its stack: a bench failure is a defect to find.
runMain(main, { messageOnly: [] });
