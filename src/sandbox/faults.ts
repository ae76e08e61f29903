/**
 * Fault decisions: which request gets which injected fault. Pure bookkeeping — the HTTP side (sleeping,
 * answering, destroying sockets) lives in `hooks.ts` and the routes.
 */
import type { FaultConfig, FaultKind, ParsedFaultConfig } from './config';
import { pick } from './random';
import type { RandomSource } from './random';
import { SANDBOX_ROUTES } from './shapes';
import type { SandboxRoute } from './shapes';

/** Routes that store something, where commit-then-fail faults make sense. */
const COMMITTING_ROUTES: ReadonlySet<SandboxRoute> = new Set(['orders', 'documents']);

/** Kinds that act after the order or document has been stored. */
export type CommitFaultKind = Extract<FaultKind, `commit-then-${string}`>;

/** Kinds that act before anything happens. */
export type PreFaultKind = Exclude<FaultKind, CommitFaultKind>;

const PRE_EQUIVALENT: Record<CommitFaultKind, PreFaultKind> = {
  'commit-then-500': 'error-500',
  'commit-then-503': 'error-503',
  'commit-then-drop': 'drop',
};

/** True for the kinds that act after the commit. */
export function isCommitFault(kind: FaultKind): kind is CommitFaultKind {
  return kind.startsWith('commit-then-');
}

type PendingRule = NonNullable<ParsedFaultConfig['failNext']>[number];

/** Decides faults from the current configuration; its configuration can be replaced at run time. */
export class FaultInjector {
  private config: ParsedFaultConfig = {};
  private pending: PendingRule[] = [];

  constructor(
    config: ParsedFaultConfig,
    private readonly random: RandomSource,
  ) {
    this.replace(config);
  }

  /** Replaces the whole configuration, including pending `failNext` rules. */
  replace(config: ParsedFaultConfig): void {
    const { failNext = [], ...rest } = config;
    this.config = rest;
    this.pending = failNext.map((rule) => ({ ...rule }));
  }

  /** The configuration in force, with the `failNext` rules not yet used up. */
  current(): FaultConfig {
    const failNext = this.pending.filter((rule) => rule.count > 0);
    return structuredClone({ ...this.config, ...(failNext.length > 0 ? { failNext } : {}) });
  }

  /** Whether maintenance mode is on. */
  get maintenance(): boolean {
    return this.config.maintenance === true;
  }

  /** Seconds for `Retry-After` on 429 and maintenance answers. */
  get retryAfterSeconds(): number {
    return this.config.retryAfterSeconds ?? 1;
  }

  /** Latency to add to a request on `route`, in milliseconds (0 for none). */
  latencyFor(route: SandboxRoute): number {
    const latency = this.config.latencyMs;
    if (latency === undefined || !this.applies(route)) return 0;
    if (typeof latency === 'number') return latency;
    return latency.min + this.random() * (latency.max - latency.min);
  }

  /**
   * The fault for one request on `route`, or undefined. Consumes a matching `failNext` rule first; otherwise
   * draws one random number against the configured shares. Commit faults on routes that store nothing are
   * turned into their plain equivalent.
   */
  decide(route: SandboxRoute): FaultKind | undefined {
    const kind = this.takePending(route) ?? this.draw(route);
    if (kind && isCommitFault(kind) && !COMMITTING_ROUTES.has(route)) return PRE_EQUIVALENT[kind];
    return kind;
  }

  private takePending(route: SandboxRoute): FaultKind | undefined {
    const rule = this.pending.find(
      (candidate) => candidate.count > 0 && (candidate.route ?? route) === route,
    );
    if (!rule) return undefined;
    rule.count--;
    this.pending = this.pending.filter((candidate) => candidate.count > 0);
    return rule.kind;
  }

  private draw(route: SandboxRoute): FaultKind | undefined {
    if (!this.applies(route)) return undefined;
    const { errorRate = 0, rateLimitRate = 0, dropRate = 0 } = this.config;
    const commitRate = COMMITTING_ROUTES.has(route) ? (this.config.commitThenFailRate ?? 0) : 0;
    if (errorRate + rateLimitRate + dropRate + commitRate === 0) return undefined;
    let threshold = this.random();
    if ((threshold -= errorRate) < 0) {
      return `error-${pick(this.random, this.config.errorStatuses ?? ([500, 502, 503] as const))}` as const;
    }
    if ((threshold -= rateLimitRate) < 0) return 'rate-limit';
    if ((threshold -= dropRate) < 0) return 'drop';
    if ((threshold -= commitRate) < 0) {
      const mode = pick(this.random, this.config.commitThenFailModes ?? (['500', '503', 'drop'] as const));
      return `commit-then-${mode}` as const;
    }
    return undefined;
  }

  private applies(route: SandboxRoute): boolean {
    return (this.config.routes ?? SANDBOX_ROUTES).includes(route);
  }
}
