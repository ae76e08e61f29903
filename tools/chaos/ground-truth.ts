/**
 * The end-of-run check against what the platform (the sandbox) really holds: one order per `orderRef`, every
 * accepted document stored and linked to its order, and copies beyond the first only where the service said
 * so (`possibleDuplicate`). When the platform honours `Idempotency-Key`, a retry cannot store a second copy,
 * so there every document must be stored exactly once.
 */
import type { SandboxState } from '../../src/sandbox';
import type { PlannedOrder } from './chaos-orders';

/** What the platform holds of the run's documents. */
export interface DocumentFigures {
  /** Documents the platform accepts (the rejected ones excluded). */
  readonly accepted: number;
  /** Copies stored of them, duplicates included. */
  readonly copies: number;
  /** Accepted documents stored more than once. */
  readonly duplicated: number;
  /** Of those, the ones the service flagged `possibleDuplicate` (all of them, or the run has a violation). */
  readonly duplicatedFlagged: number;
  /** Accepted documents not stored at all (each one is a violation). */
  readonly lost: number;
  /** Documents flagged `possibleDuplicate`. */
  readonly flagged: number;
  /** Flagged documents the platform holds once: over-flagging, a figure to watch, not a violation. */
  readonly flaggedWithoutDuplicate: number;
}

/** What the service said about each document at the end: `possibleDuplicate` by document path. */
export type DuplicateFlags = ReadonlyMap<string, boolean>;

/** Options of {@link checkGroundTruth}. */
export interface GroundTruthCheck {
  readonly state: SandboxState;
  readonly planned: readonly PlannedOrder[];
  readonly flags: DuplicateFlags;
  /** Whether the sandbox honoured `Idempotency-Key`: then each document must be stored exactly once. */
  readonly keysHonoured: boolean;
  /** Violations are appended here. */
  readonly violations: string[];
}

/** Checks the platform's holdings against the plan; see the module comment. */
export function checkGroundTruth(check: GroundTruthCheck): DocumentFigures {
  const { state, planned, flags, keysHonoured, violations } = check;
  const ordersByRef = new Map<string, string[]>();
  for (const order of state.orders) {
    const ref = typeof order.vehicle.chaosOrderRef === 'string' ? order.vehicle.chaosOrderRef : '(none)';
    ordersByRef.set(ref, [...(ordersByRef.get(ref) ?? []), order.id]);
  }
  for (const [ref, ids] of ordersByRef) {
    if (!planned.some((order) => order.orderRef === ref))
      violations.push(`sandbox holds unplanned order(s) ${ids.join(', ')} for ${ref}`);
  }
  const copies = new Map<string, string[]>();
  for (const document of state.documents) {
    copies.set(document.sha256, [...(copies.get(document.sha256) ?? []), document.document_type_id]);
  }
  const plannedHashes = new Set(
    planned.flatMap((order) => order.documents.map((document) => document.sha256)),
  );
  for (const [hash, orderIds] of copies) {
    if (!plannedHashes.has(hash))
      violations.push(`sandbox holds ${orderIds.length} unplanned document(s) with sha256 ${hash}`);
  }

  let accepted = 0;
  let copyCount = 0;
  let duplicated = 0;
  let duplicatedFlagged = 0;
  let lost = 0;
  let flagged = 0;
  let flaggedWithoutDuplicate = 0;
  for (const order of planned) {
    const ids = ordersByRef.get(order.orderRef) ?? [];
    if (ids.length !== 1) {
      violations.push(
        `${order.orderRef}: the sandbox holds ${ids.length} orders (${ids.join(', ') || 'none'}), expected exactly 1`,
      );
    }
    for (const document of order.documents) {
      const linkedTo = copies.get(document.sha256) ?? [];
      const count = linkedTo.length;
      if (!document.accepted) {
        if (count !== 0)
          violations.push(`${document.path}: rejected on purpose, yet the sandbox holds ${count} copies`);
        continue;
      }
      accepted += 1;
      copyCount += count;
      const isFlagged = flags.get(document.path) === true;
      if (isFlagged) flagged += 1;
      if (count === 0) {
        lost += 1;
        violations.push(`${document.path}: lost (the sandbox holds no copy)`);
      } else if (count === 1) {
        if (isFlagged) flaggedWithoutDuplicate += 1;
      } else {
        duplicated += 1;
        if (isFlagged) duplicatedFlagged += 1;
        if (keysHonoured) {
          violations.push(
            `${document.path}: the sandbox holds ${count} copies, expected exactly 1 (it honours Idempotency-Key)`,
          );
        } else if (!isFlagged) {
          violations.push(
            `${document.path}: the sandbox holds ${count} copies, not flagged possibleDuplicate`,
          );
        }
      }
      if (ids.length === 1 && linkedTo.some((id) => id !== ids[0])) {
        violations.push(`${document.path}: linked to order ${linkedTo.join(', ')}, expected ${ids[0]}`);
      }
    }
  }
  return {
    accepted,
    copies: copyCount,
    duplicated,
    duplicatedFlagged,
    lost,
    flagged,
    flaggedWithoutDuplicate,
  };
}
