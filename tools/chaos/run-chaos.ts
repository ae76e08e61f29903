/**
 * The chaos run: orders placed while the platform misbehaves (errors, dropped connections, commit-then-fail,
 * 429s, tokens that expire every few seconds), worker processes are killed with SIGKILL and the Temporal
 * server is restarted. At the end it checks what must hold whatever happened:
 * - every order is Completed, or AwaitingRepair only because of the document the sandbox rejected on purpose;
 * - the platform holds exactly one order per `orderRef` and every accepted document: exactly once when it
 *   honours `Idempotency-Key`, at least once otherwise, with every extra copy flagged `possibleDuplicate`;
 * - no secret (password, token, control token) is in any workflow history or worker output.
 *
 * The sandbox plays the profile asked for (`profile`), honouring `Idempotency-Key` or not (`keysIgnored`). When
 * it honours the key, the workers are told so (`BADGE_IDEMPOTENCY_KEYS=honoured`) and retry an order creation
 * of unknown outcome with the same key. When it ignores the key, the workers do not know that (the default
 * `unknown`): such an order waits in AwaitingReconciliation, and the run's {@link ChaosReconciler} answers it
 * from the sandbox's ground truth, as an operator would.
 */
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import { BadgeOrderId, BadgeOrderStatus, type BadgeOrderStatusValue } from '../../src/workflow-contract';
import { DEMO_USER, resolveProfile, type FailNextRule, type FaultConfig } from '../../src/sandbox';
import type { ChildProcessHandle } from '../dev/child-process';
import { pollUntil } from '../dev/poll';
import { startLocalStack, type LocalStack } from '../stack';
import { planOrders, type PlannedOrder } from './chaos-orders';
import { checkGroundTruth, type DocumentFigures } from './ground-truth';
import { ChaosReconciler, type ReconciliationFigures } from './reconciler';
import { findSecrets, textOf } from './secrets';

/** Options of {@link runChaos}. */
export interface ChaosOptions {
  /** Orders placed. @default 20 */
  readonly orders?: number;
  /** Times a worker process is killed with SIGKILL (and replaced). @default 3 */
  readonly workerKills?: number;
  /** Times the Temporal dev server is restarted. @default 1 */
  readonly temporalRestarts?: number;
  /** Seed of the sandbox's fault dice, for a reproducible fault sequence. @default 1 */
  readonly seed?: number;
  /** Lifetime of platform tokens in seconds. @default 3 */
  readonly tokenTtlSeconds?: number;
  /** The whole run, start-up included, must end within this time. @default 300000 */
  readonly timeLimitMs?: number;
  /**
   * Disrupt at any moment, also while authentication or order creation runs. Those calls have a one-minute
   * start-to-close timeout and no heartbeat, so a call lost with its worker or server is retried only after
   * that minute. Off by default: disruptions wait until every order exists on the platform, so they hit uploads
   * (retried within `uploadHeartbeatTimeoutMs`). @default false
   */
  readonly disruptAnytime?: boolean;
  /**
   * The platform the sandbox plays: a name of `SANDBOX_PROFILE_NAMES` or `random:<seed>`.
   * @default 'reference'
   */
  readonly profile?: string;
  /**
   * `true`: the sandbox ignores `Idempotency-Key` whatever the profile says; `false`: it honours the key
   * whatever the profile says. @default the profile's choice (`reference` honours it; `legacy` and
   * `json-api` do not)
   */
  readonly keysIgnored?: boolean;
  /** Progress lines. @default none */
  readonly log?: (message: string) => void;
  /** For the command line: Ctrl-C (SIGINT, SIGTERM) stops everything and exits. @default false */
  readonly stopOnSignals?: boolean;
}

/** One order's outcome. */
export interface ChaosOrderReport {
  readonly orderRef: string;
  readonly expected: BadgeOrderStatusValue;
  /** The BadgeOrderStatus at the end, or what went wrong reading it. */
  readonly outcome: string;
  readonly orderId: string | null;
  readonly stockFallback: boolean;
  readonly uploaded: number;
  readonly failedDocuments: readonly string[];
  /** Documents the service flagged `possibleDuplicate`, by path. */
  readonly possibleDuplicates: readonly string[];
  /** The reconciler's answers to this order's holds (`created <id>`, `not created`), in order. */
  readonly reconciliations: readonly string[];
}

/** What a chaos run did and found; `violations` is empty when every invariant held. */
export interface ChaosReport {
  readonly ok: boolean;
  readonly violations: readonly string[];
  /** The sandbox profile played. */
  readonly profile: string;
  /** Whether the sandbox honoured `Idempotency-Key`. */
  readonly idempotencyKeys: 'honoured' | 'ignored';
  /** `BADGE_IDEMPOTENCY_KEYS` of the worker processes. */
  readonly workerIdempotencyKeys: 'honoured' | 'unknown';
  /** Orders held in AwaitingReconciliation and how the run answered them. */
  readonly reconciliation: ReconciliationFigures;
  /** What the platform holds of the documents: copies, duplicates and their flags. */
  readonly documents: DocumentFigures;
  readonly orders: readonly ChaosOrderReport[];
  readonly workerStarts: number;
  readonly workerKills: number;
  /** Worker processes that exited without being killed by the run (they are restarted). */
  readonly unexpectedWorkerExits: readonly string[];
  readonly temporalRestarts: number;
  readonly sandbox: {
    readonly orders: number;
    readonly documents: number;
    readonly requests: number;
    readonly tokensIssued: number;
    readonly idempotentReplays: number;
    readonly faults: Readonly<Record<string, number>>;
  };
  readonly historiesChecked: number;
  readonly durationMs: number;
}

/**
 * Faults of every kind, on every route; shares are drawn per request and add up to at most 1. `failNext`
 * comes from {@link sureFaults}.
 */
const CHAOS_FAULT_SHARES: FaultConfig = {
  errorRate: 0.05,
  rateLimitRate: 0.05,
  retryAfterSeconds: 1,
  dropRate: 0.04,
  commitThenFailRate: 0.08,
  commitThenFailModes: ['500', '503', 'drop'],
  latencyMs: { min: 20, max: 300 },
};

/**
 * Faults sure to happen, whatever the dice say. An order creation is stored and then fails: with keys
 * honoured the workers send it again with the same key; with keys ignored the order is held, and after it a
 * creation fails before anything is stored, so the reconciler answers at least one hold "created" and one
 * "not created". A creation the platform answers 404 (its stock) uses up a commit fault without storing
 * anything, so there is one commit fault more than such creations.
 */
function sureFaults(keysHonoured: boolean, planned: readonly PlannedOrder[]): FailNextRule[] {
  const commits = 1 + planned.filter((order) => order.stockRejected).length;
  const orders: FailNextRule[] = keysHonoured
    ? [{ route: 'orders', kind: 'commit-then-drop', count: commits }]
    : [
        { route: 'orders', kind: 'commit-then-500', count: commits },
        { route: 'orders', kind: 'error-500', count: 1 },
      ];
  return [
    ...orders,
    { route: 'documents', kind: 'commit-then-503', count: 1 },
    { route: 'documents', kind: 'unauthorized', count: 1 },
    { route: 'documents', kind: 'rate-limit', count: 1 },
  ];
}

interface Settled {
  readonly orderRef: string;
  readonly settled: boolean;
  readonly workflowStatus: string;
  readonly searchStatus: string | undefined;
  /** Whether the platform order exists (the BadgeOrderId search attribute is set). */
  readonly created: boolean;
  /** Activities scheduled and not finished, with their attempt, for diagnosis. */
  readonly pending: readonly string[];
}

/** `abandoned`: the reconciler left the order held on purpose (a violation already), so it counts as settled. */
async function describeOrder(
  stack: LocalStack,
  orderRef: string,
  abandoned: (orderRef: string) => boolean,
): Promise<Settled> {
  const description = await stack.orders().getHandle(orderRef).describe();
  const searchStatus = description.typedSearchAttributes.get(BadgeOrderStatus);
  const workflowStatus = description.status.name;
  const settled =
    workflowStatus !== ('RUNNING' satisfies WorkflowExecutionStatusName) ||
    searchStatus === 'AwaitingRepair' ||
    abandoned(orderRef);
  const created = description.typedSearchAttributes.get(BadgeOrderId) !== undefined;
  const pending = (description.raw.pendingActivities ?? []).map(
    (activity) => `${activity.activityType?.name ?? '?'} attempt ${activity.attempt ?? '?'}`,
  );
  return { orderRef, settled, workflowStatus, searchStatus, created, pending };
}

/** Keeps one worker process running; replaces the current one when told to kill it or when it dies. */
class WorkerSupervisor {
  starts = 0;
  kills = 0;
  readonly unexpectedExits: string[] = [];
  readonly outputs: string[] = [];
  private current: ChildProcessHandle | undefined;
  private stopped = false;

  constructor(
    private readonly stack: LocalStack,
    private readonly log: (message: string) => void,
    /** Added to every worker process's environment. */
    private readonly env: Readonly<Record<string, string>>,
  ) {}

  start(): void {
    const worker = this.stack.startWorkerProcess({ env: this.env });
    this.current = worker;
    this.starts += 1;
    this.log(`worker process ${worker.pid ?? '?'} started (#${this.starts})`);
    void worker.exited.then((how) => {
      this.outputs.push(worker.output());
      if (this.current !== worker || this.stopped) return;
      this.unexpectedExits.push(
        `worker ${worker.pid ?? '?'} exited by itself (${how}): ${worker.output().slice(-500)}`,
      );
      this.log(`worker process ${worker.pid ?? '?'} exited by itself (${how}); starting another`);
      if (this.starts < 50) this.start();
    });
  }

  async killAndReplace(): Promise<void> {
    const worker = this.current;
    this.current = undefined;
    if (worker) {
      await worker.kill('SIGKILL');
      this.kills += 1;
      this.log(`worker process ${worker.pid ?? '?'} killed with SIGKILL (#${this.kills})`);
    }
    this.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.current;
    if (worker) {
      await worker.kill('SIGKILL');
      this.outputs.push(worker.output());
    }
  }
}

type Disruption = 'kill' | 'restart';

/** Kills spread over the run, with the server restarts among them. */
function disruptions(kills: number, restarts: number): Disruption[] {
  const plan: Disruption[] = Array.from({ length: kills }, () => 'kill' as const);
  for (let index = 0; index < restarts; index += 1) {
    const position = Math.round(((index + 1) * plan.length) / (restarts + 1));
    plan.splice(position + index, 0, 'restart');
  }
  return plan;
}

async function checkOrder(
  stack: LocalStack,
  order: PlannedOrder,
  reconciler: ChaosReconciler,
  flags: Map<string, boolean>,
  violations: string[],
): Promise<ChaosOrderReport> {
  const base = {
    orderRef: order.orderRef,
    expected: order.expected,
    reconciliations: reconciler.eventsOf(order.orderRef).map((event) => event.answer),
  };
  try {
    const described = await describeOrder(stack, order.orderRef, () => false);
    const status = await stack.orders().status(order.orderRef);
    for (const document of status.documents) flags.set(document.path, document.possibleDuplicate);
    const failed = status.documents.filter((document) => document.status === 'failed');
    const uploaded = status.documents.filter((document) => document.status === 'uploaded').length;
    const outcome = described.searchStatus ?? described.workflowStatus;
    const report: ChaosOrderReport = {
      ...base,
      outcome,
      orderId: status.orderId,
      stockFallback: status.stockFallback,
      uploaded,
      failedDocuments: failed.map((document) => `${document.path} (${document.lastError ?? 'no error'})`),
      possibleDuplicates: status.documents
        .filter((document) => document.possibleDuplicate)
        .map((document) => document.path),
    };
    const accepted = order.documents.filter((document) => document.accepted);
    if (order.expected === 'Completed') {
      if (described.workflowStatus !== 'COMPLETED' || outcome !== 'Completed') {
        violations.push(
          `${order.orderRef}: ${described.workflowStatus}/${outcome} in phase ${status.phase}, expected Completed (${status.failure ?? report.failedDocuments.join('; ')}; pending: ${described.pending.join(', ') || 'none'})`,
        );
      }
    } else {
      const rejected = order.documents
        .filter((document) => !document.accepted)
        .map((document) => document.path);
      const failedPaths = failed.map((document) => document.path);
      if (outcome !== 'AwaitingRepair' || described.workflowStatus !== 'RUNNING') {
        violations.push(`${order.orderRef}: ${described.workflowStatus}/${outcome}, expected AwaitingRepair`);
      } else if (JSON.stringify(failedPaths) !== JSON.stringify(rejected)) {
        violations.push(
          `${order.orderRef}: failed documents ${failedPaths.join(', ')}, expected only ${rejected.join(', ')}`,
        );
      }
    }
    if (uploaded !== accepted.length) {
      violations.push(`${order.orderRef}: ${uploaded} documents uploaded, expected ${accepted.length}`);
    }
    return report;
  } catch (error) {
    violations.push(`${order.orderRef}: could not be checked (${String(error)})`);
    return {
      ...base,
      outcome: `unknown (${String(error)})`,
      orderId: null,
      stockFallback: false,
      uploaded: 0,
      failedDocuments: [],
      possibleDuplicates: [],
    };
  }
}

async function checkHistories(
  stack: LocalStack,
  planned: readonly PlannedOrder[],
  secrets: readonly { name: string; value: string }[],
  violations: string[],
): Promise<number> {
  const client = stack.temporal.client;
  const seen = new Set<string>();
  let checked = 0;
  const check = async (workflowId: string, runId?: string): Promise<void> => {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    checked += 1;
    const found = findSecrets(textOf(history), secrets);
    if (found.length > 0) violations.push(`history of ${workflowId} holds ${found.join(', ')}`);
  };
  for await (const execution of client.workflow.list({ query: `TaskQueue="${stack.taskQueue}"` })) {
    seen.add(execution.workflowId);
    await check(execution.workflowId, execution.runId);
  }
  // Visibility may lag; every planned order's history is read even when the list missed it.
  for (const order of planned) {
    const workflowId = stack.orders().getHandle(order.orderRef).workflowId;
    if (!seen.has(workflowId)) await check(workflowId);
  }
  return checked;
}

/** Runs the chaos scenario and returns its report; never throws for a violation (see `report.violations`). */
export async function runChaos(options: ChaosOptions = {}): Promise<ChaosReport> {
  const started = Date.now();
  const orderCount = options.orders ?? 20;
  const deadline = started + (options.timeLimitMs ?? 300_000);
  const log = options.log ?? (() => undefined);
  const user = DEMO_USER;
  const planned = planOrders(orderCount);
  const violations: string[] = [];
  const idempotency =
    options.keysIgnored === undefined ? undefined : options.keysIgnored ? 'ignored' : 'honoured';
  // Resolved here as the sandbox will resolve it (throws for an unknown profile before anything starts).
  const profile = resolveProfile(options.profile, idempotency);
  const keysHonoured = profile.idempotency === 'honoured';
  const faults: FaultConfig = { ...CHAOS_FAULT_SHARES, failNext: sureFaults(keysHonoured, planned) };

  const stack = await startLocalStack({
    sandbox: {
      seed: options.seed ?? 1,
      tokenTtlSeconds: options.tokenTtlSeconds ?? 3,
      faults,
      profile: options.profile,
      idempotency,
    },
    // Kept in a database file, so the server restarts with its workflows.
    temporal: { persistent: true },
    // Unencrypted, so the search for secrets reads the histories as they are.
    payloadKeys: null,
    taskQueue: `badge-chaos-${Date.now().toString(36)}`,
    user,
    stopOnSignals: options.stopOnSignals ?? false,
    log,
  });
  log(
    `sandbox profile ${stack.sandbox.profile.name}, Idempotency-Key ${stack.sandbox.profile.idempotency}` +
      (keysHonoured ? '; workers run with BADGE_IDEMPOTENCY_KEYS=honoured' : '; held orders are reconciled'),
  );
  // Told only when true: a worker that trusts keys the platform ignores would place orders twice.
  const supervisor = new WorkerSupervisor(
    stack,
    log,
    keysHonoured ? { BADGE_IDEMPOTENCY_KEYS: 'honoured' } : {},
  );
  // Runs in both modes: with keys honoured nothing should be held, and a hold would still be answered.
  const reconciler = new ChaosReconciler(
    stack,
    planned.map((order) => order.orderRef),
    violations,
    log,
  );
  let restarts = 0;
  let documents: DocumentFigures = {
    accepted: 0,
    copies: 0,
    duplicated: 0,
    duplicatedFlagged: 0,
    lost: 0,
    flagged: 0,
    flaggedWithoutDuplicate: 0,
  };
  let historiesChecked = 0;
  let sandboxSummary: ChaosReport['sandbox'] = {
    orders: 0,
    documents: 0,
    requests: 0,
    tokensIssued: 0,
    idempotentReplays: 0,
    faults: {},
  };
  try {
    for (const order of planned) {
      for (const document of order.documents) stack.writeDocument(document.path, document.content);
    }
    supervisor.start();
    for (const order of planned) await stack.orders().startOrder(order.input);
    reconciler.start();
    log(`${planned.length} orders started; faults: ${JSON.stringify(faults)}`);

    const expectedUploads = planned.flatMap((order) => order.documents.filter((d) => d.accepted)).length;
    const describeAll = (): Promise<Settled[]> =>
      Promise.all(
        planned.map((order) => describeOrder(stack, order.orderRef, (ref) => reconciler.abandoned(ref))),
      );

    let uploadsAtLastDisruption = 0;
    const plan = disruptions(options.workerKills ?? 3, options.temporalRestarts ?? 1);
    for (const [index, disruption] of plan.entries()) {
      // Each disruption waits for real progress, so it lands while uploads are under way.
      // ... and on progress since the last one, so a fresh worker has run before it is killed again.
      const threshold = Math.max(
        Math.ceil((expectedUploads * (index + 1)) / (plan.length + 2)),
        uploadsAtLastDisruption + 1,
      );
      const progress = await pollUntil(
        async () => ({
          uploads: (await stack.sandbox.control.state()).documents.length,
          orders: await describeAll(),
        }),
        (value) =>
          value.orders.every((order) => order.settled) ||
          (value.uploads >= threshold &&
            (options.disruptAnytime || value.orders.every((order) => order.created))),
        {
          what: `${threshold} uploads before disruption ${index + 1}`,
          timeoutMs: deadline - Date.now(),
          intervalMs: 200,
        },
      );
      log(
        `${progress.uploads}/${expectedUploads} documents on the platform: ${disruption === 'kill' ? 'killing the worker' : 'restarting the Temporal server'}`,
      );
      uploadsAtLastDisruption = progress.uploads;
      if (disruption === 'kill') {
        await supervisor.killAndReplace();
      } else {
        await stack.restartTemporal();
        restarts += 1;
        log(`Temporal server restarted (#${restarts})`);
      }
    }

    let lastLine = '';
    const final = await pollUntil(
      async () => {
        const all = await describeAll();
        const uploads = (await stack.sandbox.control.state()).documents.length;
        const line = `${uploads}/${expectedUploads} documents on the platform, ${all.filter((order) => order.settled).length}/${planned.length} orders settled`;
        if (line !== lastLine) log(line);
        lastLine = line;
        return all;
      },
      (all) => all.every((order) => order.settled),
      { what: 'every order to settle', timeoutMs: deadline - Date.now(), intervalMs: 200 },
    ).catch((error: unknown) => {
      violations.push(error instanceof Error ? error.message : String(error));
      return undefined;
    });
    if (final) log('every order has settled; checking');
  } catch (error) {
    violations.push(`run aborted: ${error instanceof Error ? error.message : String(error)}`);
  }

  const orders: ChaosOrderReport[] = [];
  try {
    // Stopped before the checks, so that nothing changes while they read (it never throws).
    await reconciler.stop();
    const flags = new Map<string, boolean>();
    for (const order of planned) {
      orders.push(await checkOrder(stack, order, reconciler, flags, violations));
    }
    const state = await stack.sandbox.control.state();
    documents = checkGroundTruth({ state, planned, flags, keysHonoured, violations });
    const stats = await stack.sandbox.control.stats();
    sandboxSummary = {
      orders: state.orders.length,
      documents: state.documents.length,
      requests: stats.totalRequests,
      tokensIssued: stats.authCalls.issued,
      idempotentReplays: stats.idempotentReplays,
      faults: stats.faults,
    };
    const secrets = [
      { name: `the password of user ${user.username}`, value: user.password },
      { name: 'the sandbox control token', value: stack.sandbox.controlToken },
    ];
    historiesChecked = await checkHistories(stack, planned, secrets, violations);
    await supervisor.stop();
    for (const output of supervisor.outputs) {
      const found = findSecrets(output, secrets);
      if (found.length > 0) violations.push(`worker output holds ${found.join(', ')}`);
    }
  } catch (error) {
    violations.push(`checks aborted: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await supervisor.stop();
    await stack.stop();
  }

  return {
    ok: violations.length === 0,
    violations,
    profile: stack.sandbox.profile.name,
    idempotencyKeys: stack.sandbox.profile.idempotency,
    workerIdempotencyKeys: keysHonoured ? 'honoured' : 'unknown',
    reconciliation: reconciler.figures(),
    documents,
    orders,
    workerStarts: supervisor.starts,
    workerKills: supervisor.kills,
    unexpectedWorkerExits: supervisor.unexpectedExits,
    temporalRestarts: restarts,
    sandbox: sandboxSummary,
    historiesChecked,
    durationMs: Date.now() - started,
  };
}

/** The report as lines for people. */
export function formatChaosReport(report: ChaosReport): string {
  const lines = [
    `Chaos run: ${report.orders.length} orders in ${(report.durationMs / 1000).toFixed(1)} s — ${report.ok ? 'every invariant held' : `${report.violations.length} violation(s)`}`,
    `  platform profile ${report.profile}, Idempotency-Key ${report.idempotencyKeys}; workers BADGE_IDEMPOTENCY_KEYS=${report.workerIdempotencyKeys}`,
    `  worker processes started ${report.workerStarts}, killed with SIGKILL ${report.workerKills}, exited by themselves ${report.unexpectedWorkerExits.length}; Temporal restarts ${report.temporalRestarts}`,
    `  sandbox: ${report.sandbox.orders} orders, ${report.sandbox.documents} documents, ${report.sandbox.requests} requests, ${report.sandbox.tokensIssued} tokens issued, ${report.sandbox.idempotentReplays} idempotent replays`,
    `  faults injected: ${
      Object.entries(report.sandbox.faults)
        .map(([kind, count]) => `${kind}=${count}`)
        .join(', ') || 'none'
    }`,
    `  orders held for reconciliation ${report.reconciliation.held}: resolved as created ${report.reconciliation.resolvedCreated}, as not created ${report.reconciliation.resolvedNotCreated}${report.reconciliation.abandoned > 0 ? `, left held (duplicates on the platform) ${report.reconciliation.abandoned}` : ''}`,
    `  documents: ${report.documents.accepted} accepted, ${report.documents.copies} copies stored, ${report.documents.lost} lost; duplicated ${report.documents.duplicated} (flagged ${report.documents.duplicatedFlagged}); flagged possibleDuplicate ${report.documents.flagged}, of which without a duplicate ${report.documents.flaggedWithoutDuplicate}`,
    `  histories checked for secrets: ${report.historiesChecked}`,
    '',
    ...report.orders.map(
      (order) =>
        `  ${order.orderRef}: ${order.outcome} (expected ${order.expected}) order ${order.orderId ?? '-'}, ${order.uploaded} uploaded${order.stockFallback ? ', stock fallback' : ''}${order.reconciliations.length > 0 ? `, reconciled: ${order.reconciliations.join(', then ')}` : ''}${order.possibleDuplicates.length > 0 ? `, possible duplicates: ${order.possibleDuplicates.length}` : ''}${order.failedDocuments.length > 0 ? `, failed: ${order.failedDocuments.join('; ')}` : ''}`,
    ),
  ];
  if (report.unexpectedWorkerExits.length > 0) {
    lines.push(
      '',
      'Workers that exited by themselves:',
      ...report.unexpectedWorkerExits.map((exit) => `  ${exit}`),
    );
  }
  if (report.violations.length > 0) {
    lines.push('', 'VIOLATIONS:', ...report.violations.map((violation) => `  ✗ ${violation}`));
  }
  return lines.join('\n');
}
