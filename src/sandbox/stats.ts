/** Counters of one sandbox, as returned by `GET /_sandbox/stats`. */
import type { FaultKind } from './config';
import type { ClientAuthMethod } from './auth';
import type { SandboxRoute } from './shapes';

/** What a fault counter counts: a fault kind, added latency, or a maintenance answer. */
export type FaultCounterName = FaultKind | 'latency' | 'maintenance';

/** The counters. */
export interface SandboxStats {
  /** Platform requests by route, then by status (`"201"`, `"422"`, …, or `"dropped"`). Control calls excluded. */
  requests: Partial<Record<SandboxRoute | 'unknown', Record<string, number>>>;
  /** Total platform requests. */
  totalRequests: number;
  /** Token calls: `issued` tokens and `rejected` attempts (wrong credentials or invalid body). */
  authCalls: { issued: number; rejected: number };
  /** Client credentials grants by how the client authenticated (absent until one arrives). */
  clientAuth?: Partial<Record<ClientAuthMethod, number>>;
  /** Faults injected, by kind. */
  faults: Partial<Record<FaultCounterName, number>>;
  /** Answers replayed from a remembered idempotency key. */
  idempotentReplays: number;
}

/** Mutable counters behind {@link SandboxStats}. */
export class StatsRecorder {
  private stats: SandboxStats = emptyStats();

  /** Counts one answered (or dropped) platform request. */
  recordRequest(route: SandboxRoute | 'unknown', status: number | 'dropped'): void {
    const byStatus = (this.stats.requests[route] ??= {});
    const key = String(status);
    byStatus[key] = (byStatus[key] ?? 0) + 1;
    this.stats.totalRequests++;
  }

  /** Counts one token call. */
  recordAuth(outcome: 'issued' | 'rejected'): void {
    this.stats.authCalls[outcome]++;
  }

  /** Counts one client credentials grant by how its client authenticated. */
  recordClientAuth(method: ClientAuthMethod): void {
    const counts = (this.stats.clientAuth ??= {});
    counts[method] = (counts[method] ?? 0) + 1;
  }

  /** Counts one injected fault. */
  recordFault(name: FaultCounterName): void {
    this.stats.faults[name] = (this.stats.faults[name] ?? 0) + 1;
  }

  /** Counts one idempotent replay. */
  recordReplay(): void {
    this.stats.idempotentReplays++;
  }

  /** A copy of the counters. */
  snapshot(): SandboxStats {
    return structuredClone(this.stats);
  }

  /** Sets every counter to zero. */
  reset(): void {
    this.stats = emptyStats();
  }
}

function emptyStats(): SandboxStats {
  return {
    requests: {},
    totalRequests: 0,
    authCalls: { issued: 0, rejected: 0 },
    faults: {},
    idempotentReplays: 0,
  };
}
