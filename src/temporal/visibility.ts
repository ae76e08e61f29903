/**
 * Visibility queries over badge orders: the strings operators paste into the Web UI and the paginated listing
 * the nightly replay and the operator CLI use. Visibility is eventually consistent: a list may lag behind the
 * orders' real state by a moment, so callers check an order again before acting on it.
 */
import type { Client } from '@temporalio/client';
import {
  BadgeOrderClient,
  BadgeOrderStatus,
  WORKFLOW_TYPES,
  type BadgeOrderStatusValue,
} from '../workflow-contract';

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The visibility query for badge orders, optionally of one `BadgeOrderStatus`; `openOnly` keeps running ones.
 * `badgeOrdersQuery({ status: 'AwaitingRepair', openOnly: true })` is what the nightly replay lists.
 */
export function badgeOrdersQuery(options: {
  readonly status?: BadgeOrderStatusValue;
  readonly openOnly?: boolean;
  /** Only the orders of this client (`BadgeOrderClient`). */
  readonly clientId?: string;
}): string {
  const clauses = [`WorkflowType = ${quote(WORKFLOW_TYPES.badgeOrder)}`];
  if (options.openOnly) clauses.push(`ExecutionStatus = 'Running'`);
  if (options.status) clauses.push(`${BadgeOrderStatus.name} = ${quote(options.status)}`);
  if (options.clientId !== undefined) clauses.push(`${BadgeOrderClient.name} = ${quote(options.clientId)}`);
  return clauses.join(' AND ');
}

/** One workflow run as listed. */
export interface ListedRun {
  readonly workflowId: string;
  readonly runId: string;
}

/** One page of a listing; `nextPageToken` (base64) is null on the last page. */
export interface RunPage {
  readonly runs: readonly ListedRun[];
  readonly nextPageToken: string | null;
}

/** Lists one page of runs matching `query`; pass the previous page's token to go on. */
export async function listRunPage(
  client: Client,
  input: { readonly query: string; readonly pageSize: number; readonly nextPageToken?: string | null },
): Promise<RunPage> {
  const response = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query: input.query,
    pageSize: input.pageSize,
    nextPageToken: input.nextPageToken ? Buffer.from(input.nextPageToken, 'base64') : undefined,
  });
  const runs = (response.executions ?? []).flatMap((info) => {
    const workflowId = info.execution?.workflowId;
    const runId = info.execution?.runId;
    return workflowId && runId ? [{ workflowId, runId }] : [];
  });
  const token = response.nextPageToken;
  return {
    runs,
    nextPageToken: token && token.length > 0 ? Buffer.from(token).toString('base64') : null,
  };
}
