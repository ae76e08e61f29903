/**
 * The chaos run: orders placed while the platform misbehaves (errors, dropped connections, commit-then-fail,
 * 429s, tokens that expire every few seconds), worker processes are killed with SIGKILL and the Temporal
 * server is restarted. At the end it checks what must hold whatever happened:
 * - every order is Completed, or AwaitingRepair only because of the document the sandbox rejected on purpose;
 * - the platform holds exactly one order per `orderRef` and every accepted document exactly once;
 * - no secret (password, token, control token) is in any workflow history or worker output.
 */
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import { BadgeOrderId, BadgeOrderStatus, type BadgeOrderStatusValue } from '../../src/contract';
import { DEMO_USER, type FaultConfig, type SandboxState } from '../../src/sandbox';
import type { ChildProcessHandle } from '../dev/child-process';
import { startLocalStack, type LocalStack } from '../stack';
import { planOrders, type PlannedOrder } from './chaos-orders';
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
  readonly orderId: number | null;
  readonly stockFallback: boolean;
  readonly uploaded: number;
  readonly failedDocuments: readonly string[];
}

/** What a chaos run did and found; `violations` is empty when every invariant held. */
export interface ChaosReport {
  readonly ok: boolean;
  readonly violations: readonly string[];
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

/** Faults of every kind, on every route; shares are drawn per request and add up to at most 1. */
const CHAOS_FAULTS: FaultConfig = {
  errorRate: 0.05,
  rateLimitRate: 0.05,
  retryAfterSeconds: 1,
  dropRate: 0.04,
  commitThenFailRate: 0.08,
  commitThenFailModes: ['500', '503', 'drop'],
  latencyMs: { min: 20, max: 300 },
  // Sure to happen, whatever the dice say.
  failNext: [
    { route: 'orders', kind: 'commit-then-drop', count: 1 },
    { route: 'documents', kind: 'commit-then-503', count: 1 },
    { route: 'documents', kind: 'unauthorized', count: 1 },
    { route: 'documents', kind: 'rate-limit', count: 1 },
  ],
};

class TimeLimitError extends Error {
  override readonly name = 'TimeLimitError';
}

const pause = (ms: number): Promise<void> => new Promise((resolvePause) => setTimeout(resolvePause, ms));

/** Polls `probe` until `done` says so; throws {@link TimeLimitError} at the deadline. */
async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  deadline: number,
  what: string,
): Promise<T> {
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (done(value)) return value;
    } catch (error) {
      lastError = error;
    }
    await pause(200);
  }
  throw new TimeLimitError(
    `time limit reached waiting for ${what}${lastError ? ` (last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)})` : ''}`,
  );
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

async function describeOrder(stack: LocalStack, orderRef: string): Promise<Settled> {
  const description = await stack.orders().getHandle(orderRef).describe();
  const searchStatus = description.typedSearchAttributes.get(BadgeOrderStatus);
  const workflowStatus = description.status.name;
  const settled =
    workflowStatus !== ('RUNNING' satisfies WorkflowExecutionStatusName) || searchStatus === 'AwaitingRepair';
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
  ) {}

  start(): void {
    const worker = this.stack.startWorkerProcess();
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

function checkSandbox(state: SandboxState, planned: readonly PlannedOrder[], violations: string[]): void {
  const ordersByRef = new Map<string, number[]>();
  for (const order of state.orders) {
    const ref = typeof order.vehicle.chaosOrderRef === 'string' ? order.vehicle.chaosOrderRef : '(none)';
    ordersByRef.set(ref, [...(ordersByRef.get(ref) ?? []), order.id]);
  }
  for (const [ref, ids] of ordersByRef) {
    if (!planned.some((order) => order.orderRef === ref))
      violations.push(`sandbox holds unplanned order(s) ${ids.join(', ')} for ${ref}`);
  }
  const copies = new Map<string, { count: number; orderIds: number[] }>();
  for (const document of state.documents) {
    const entry = copies.get(document.sha256) ?? { count: 0, orderIds: [] };
    entry.count += 1;
    entry.orderIds.push(document.document_type_id);
    copies.set(document.sha256, entry);
  }
  const plannedHashes = new Set(
    planned.flatMap((order) => order.documents.map((document) => document.sha256)),
  );
  for (const [hash, entry] of copies) {
    if (!plannedHashes.has(hash))
      violations.push(`sandbox holds ${entry.count} unplanned document(s) with sha256 ${hash}`);
  }
  for (const order of planned) {
    const ids = ordersByRef.get(order.orderRef) ?? [];
    if (ids.length !== 1) {
      violations.push(
        `${order.orderRef}: the sandbox holds ${ids.length} orders (${ids.join(', ') || 'none'}), expected exactly 1`,
      );
    }
    for (const document of order.documents) {
      const entry = copies.get(document.sha256);
      const count = entry?.count ?? 0;
      if (!document.accepted) {
        if (count !== 0)
          violations.push(`${document.path}: rejected on purpose, yet the sandbox holds ${count} copies`);
        continue;
      }
      if (count !== 1)
        violations.push(`${document.path}: the sandbox holds ${count} copies, expected exactly 1`);
      if (entry && ids.length === 1 && entry.orderIds.some((id) => id !== ids[0])) {
        violations.push(`${document.path}: linked to order ${entry.orderIds.join(', ')}, expected ${ids[0]}`);
      }
    }
  }
}

async function checkOrder(
  stack: LocalStack,
  order: PlannedOrder,
  violations: string[],
): Promise<ChaosOrderReport> {
  const base = { orderRef: order.orderRef, expected: order.expected };
  try {
    const described = await describeOrder(stack, order.orderRef);
    const status = await stack.orders().status(order.orderRef);
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

  const stack = await startLocalStack({
    sandbox: {
      seed: options.seed ?? 1,
      tokenTtlSeconds: options.tokenTtlSeconds ?? 3,
      faults: CHAOS_FAULTS,
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
  const supervisor = new WorkerSupervisor(stack, log);
  let restarts = 0;
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
    log(`${planned.length} orders started; faults: ${JSON.stringify(CHAOS_FAULTS)}`);

    const expectedUploads = planned.flatMap((order) => order.documents.filter((d) => d.accepted)).length;
    const describeAll = (): Promise<Settled[]> =>
      Promise.all(planned.map((order) => describeOrder(stack, order.orderRef)));

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
        deadline,
        `${threshold} uploads before disruption ${index + 1}`,
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
      deadline,
      'every order to settle',
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
    for (const order of planned) orders.push(await checkOrder(stack, order, violations));
    const state = await stack.sandbox.control.state();
    checkSandbox(state, planned, violations);
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
    `  worker processes started ${report.workerStarts}, killed with SIGKILL ${report.workerKills}, exited by themselves ${report.unexpectedWorkerExits.length}; Temporal restarts ${report.temporalRestarts}`,
    `  sandbox: ${report.sandbox.orders} orders, ${report.sandbox.documents} documents, ${report.sandbox.requests} requests, ${report.sandbox.tokensIssued} tokens issued, ${report.sandbox.idempotentReplays} idempotent replays`,
    `  faults injected: ${
      Object.entries(report.sandbox.faults)
        .map(([kind, count]) => `${kind}=${count}`)
        .join(', ') || 'none'
    }`,
    `  histories checked for secrets: ${report.historiesChecked}`,
    '',
    ...report.orders.map(
      (order) =>
        `  ${order.orderRef}: ${order.outcome} (expected ${order.expected}) order ${order.orderId ?? '-'}, ${order.uploaded} uploaded${order.stockFallback ? ', stock fallback' : ''}${order.failedDocuments.length > 0 ? `, failed: ${order.failedDocuments.join('; ')}` : ''}`,
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
