/**
 * Listing badge orders from visibility, one page at a time, with what the list shows of each order: its
 * `BadgeOrderStatus` and `BadgeOrderId` search attributes and its run's times. Visibility is eventually
 * consistent: a listed status may lag behind the order by a moment (read one order for its current state).
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { optionalTsToDate } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import {
  BADGE_ORDER_WORKFLOW_ID_PREFIX,
  RUN_STATUS_NAMES,
  type ListedOrder,
  type RunStatusName,
} from '../contract';
import {
  BADGE_ORDER_STATUSES,
  BadgeOrderClient,
  BadgeOrderId,
  BadgeOrderRef,
  BadgeOrderStatus,
  type BadgeOrderStatusValue,
} from '../workflow-contract';
import { badgeOrdersQuery } from '../temporal/visibility';

/** The status name of a raw `WorkflowExecutionStatus` value, or of `describe()`'s `status.name`. */
export function runStatusName(status: number | string | null | undefined): RunStatusName {
  const name =
    typeof status === 'string' ? status : temporal.api.enums.v1.WorkflowExecutionStatus[status ?? 0];
  const short = name?.replace(/^WORKFLOW_EXECUTION_STATUS_/, '').replace(/^CANCELED$/, 'CANCELLED');
  return RUN_STATUS_NAMES.find((candidate) => candidate === short) ?? 'UNKNOWN';
}

/** One page of orders; `nextPageToken` is Temporal's own token, null on the last page. */
export interface OrderPage {
  readonly orders: readonly ListedOrder[];
  readonly nextPageToken: Uint8Array | null;
}

/** Input of {@link listOrderPage}. */
export interface ListOrdersInput {
  /** Only orders with this `BadgeOrderStatus`. @default every order */
  readonly status?: BadgeOrderStatusValue;
  /** Only the orders of this client (`BadgeOrderClient`). @default every client's, and those of none */
  readonly clientId?: string;
  readonly pageSize: number;
  /** The previous page's token. */
  readonly nextPageToken?: Uint8Array | null;
}

/** A keyword search attribute's value, or null (search attributes are plain JSON, never encrypted). */
function keyword(fields: Record<string, Payload> | null | undefined, name: string): string | null {
  const payload = fields?.[name];
  if (payload === undefined) return null;
  try {
    const value: unknown = defaultPayloadConverter.fromPayload(payload);
    if (typeof value === 'string') return value;
    return Array.isArray(value) && typeof value[0] === 'string' ? value[0] : null;
  } catch {
    return null;
  }
}

/** Lists one page of badge orders, newest first. */
export async function listOrderPage(client: Client, input: ListOrdersInput): Promise<OrderPage> {
  const response = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query: badgeOrdersQuery({ status: input.status, clientId: input.clientId }),
    pageSize: input.pageSize,
    nextPageToken: input.nextPageToken ?? undefined,
  });
  const orders = (response.executions ?? []).flatMap((info): ListedOrder[] => {
    const workflowId = info.execution?.workflowId;
    const runId = info.execution?.runId;
    if (!workflowId || !runId) return [];
    const fields = info.searchAttributes?.indexedFields;
    const status = keyword(fields, BadgeOrderStatus.name);
    const orderId = keyword(fields, BadgeOrderId.name);
    const clientId = keyword(fields, BadgeOrderClient.name);
    return [
      {
        orderRef:
          keyword(fields, BadgeOrderRef.name) ??
          (workflowId.startsWith(BADGE_ORDER_WORKFLOW_ID_PREFIX)
            ? workflowId.slice(BADGE_ORDER_WORKFLOW_ID_PREFIX.length)
            : workflowId),
        workflowId,
        runId,
        runStatus: runStatusName(info.status),
        status: BADGE_ORDER_STATUSES.find((known) => known === status) ?? null,
        orderId: orderId === '' ? null : orderId,
        clientId: clientId === '' ? null : clientId,
        startedAt: optionalTsToDate(info.startTime)?.toISOString() ?? null,
        closedAt: optionalTsToDate(info.closeTime)?.toISOString() ?? null,
      },
    ];
  });
  const token = response.nextPageToken;
  return { orders, nextPageToken: token && token.length > 0 ? Uint8Array.from(token) : null };
}
