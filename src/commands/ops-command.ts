/**
 * The operator CLI (`npm run ops -- <command>`): list orders by status, show one order, retry its uploads,
 * replace a document, correct the document owner, reconcile an order whose creation outcome is unknown or a
 * document held because an upload may have stored it, and trigger the nightly replay. Tables for people;
 * `--json` prints one JSON document for scripts. {@link runOps} takes its dependencies, so tests run it
 * in-process against a dev server.
 */
import { Option, type Command } from 'commander';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { BadgeOrdersClient, type OrderKey } from '../client/badge-orders-client';
import {
  BADGE_ORDER_STATUSES,
  BadgeOrderId,
  BadgeOrderRef,
  BadgeOrderStatus,
  type BadgeOrderStatusValue,
} from '../workflow-contract';
import {
  ORDER_ID_PATTERN,
  REPLAY_SCHEDULE_ID,
  type BadgeOrderStatusView,
  type DocumentState,
} from '../contract';
import { probePlatform, type PlatformClient, type ProbeCall, type ProbeReport } from '../platform';
import { triggerReplay } from '../temporal/schedule';
import { badgeOrdersQuery } from '../temporal/visibility';
import { webUiWorkflowLink } from '../temporal/web-ui';
import { createCliProgram, runCliProgram, wantsJson } from './program';
import { renderFields, renderTable } from './table';

/** The Temporal side of the CLI. */
export interface OpsTemporal {
  readonly client: Client;
  /** Task queue of the badge order workers. */
  readonly taskQueue: string;
  /** Web UI base URL, for links. */
  readonly webUiUrl?: string;
}

/** What the CLI talks to and writes to. */
interface OpsDependencies {
  /**
   * Temporal, asked for on first use only: `probe` talks to the platform alone, so it runs without Temporal
   * settings (payload keys among them).
   */
  readonly temporal: () => OpsTemporal;
  /** Standard output (one call per result). */
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /**
   * Builds a platform client from the worker's settings (`BADGE_*`), for `probe`; `baseUrl` overrides the
   * configured one. Called only by `probe`, so other commands need no platform credentials.
   */
  readonly platformClient?: (baseUrl?: string) => PlatformClient;
}

/** One order as `list` prints it. */
function listedOrder(info: WorkflowExecutionInfo) {
  return {
    orderRef: info.typedSearchAttributes.get(BadgeOrderRef) ?? null,
    status: info.typedSearchAttributes.get(BadgeOrderStatus) ?? null,
    orderId: info.typedSearchAttributes.get(BadgeOrderId) ?? null,
    workflowId: info.workflowId,
    runId: info.runId,
    execution: info.status.name,
    startedAt: info.startTime.toISOString(),
    closedAt: info.closeTime?.toISOString() ?? null,
  };
}
export type ListedOrder = Readonly<ReturnType<typeof listedOrder>>;

/** An error for the operator: printed without a stack trace, exit code 1. */
class OpsError extends Error {
  override readonly name = 'OpsError';
}

/** The documents table: each column and how a document fills it. */
const DOCUMENT_COLUMNS: readonly (readonly [string, (document: DocumentState) => string | number | null])[] =
  [
    ['path', (document) => document.path],
    // A held document failed, and waits for a person: the platform may hold it.
    ['status', (document) => (document.held ? 'held (may be stored)' : document.status)],
    // What to look for on the platform before answering a held document.
    ['idempotency key', (document) => (document.held ? (document.idempotencyKey ?? null) : null)],
    ['attempts', (document) => document.attempts],
    ['replaced by', (document) => (document.sourcePath === document.path ? null : document.sourcePath)],
    ['possible duplicate', (document) => (document.possibleDuplicate ? 'yes' : null)],
    ['last error', (document) => document.lastError],
  ];

const renderDocuments = (documents: readonly DocumentState[]): string =>
  renderTable(
    DOCUMENT_COLUMNS.map(([column]) => column),
    documents.map((document) => DOCUMENT_COLUMNS.map(([, cell]) => cell(document))),
  );

function renderStatus(view: BadgeOrderStatusView, link: string | null): string {
  const { stockAdvice, documentOwner, reconciliation } = view;
  const summary = renderFields([
    ['order', view.orderRef],
    ['phase', view.phase],
    ['status', view.searchStatus],
    ['platform order id', view.orderId],
    ['stock fallback', view.stockFallbackReason ?? 'no'],
    stockAdvice && [
      'stock lookup (advice)',
      `${stockAdvice.verdict} (${stockAdvice.stockCount ?? '?'} stocks)`,
    ],
    documentOwner && ['document owner', `${documentOwner.id} (${documentOwner.source})`],
    documentOwner?.refused ? ['owner refused', documentOwner.refused] : undefined,
    view.creationRefusal && [
      'creation refused',
      `${view.creationRefusal.reason} (fix ${view.creationRefusal.setting}, then retry)`,
    ],
    ['repair deadline', view.repairDeadline],
    reconciliation && ['unknown outcome', reconciliation.reason],
    reconciliation && ['idempotency key', reconciliation.idempotencyKey],
    reconciliation && ['reconcile before', view.reconciliationDeadline],
    ['failure', view.failure],
    link ? ['web ui', link] : undefined,
  ]);
  if (view.documents.length === 0) return `${summary}\n\n(no documents)`;
  return `${summary}\n\n${renderDocuments(view.documents)}`;
}

function keyVerdict(honoured: boolean | null | undefined): string {
  if (honoured === undefined) return 'not tried (use --allow-test-orders)';
  if (honoured === null) return 'could not tell';
  return honoured ? 'honoured' : 'IGNORED (a retry creates a second one)';
}

/** What a question every platform must refuse got: refused as expected (naming what), or accepted. */
function refusalVerdict(call: ProbeCall | undefined): string | null {
  if (call === undefined) return null;
  const { failure, status } = call;
  if (failure === undefined || (status !== null && status < 300)) return `ACCEPTED (${status ?? '?'})`;
  return `refused (${status ?? failure.code})${failure.unsent === undefined ? '' : `, wants ${failure.unsent}`}`;
}

function renderProbe(report: ProbeReport): string {
  const failure = report.authentication.failure;
  const fields = renderFields([
    ['authentication', report.authentication.ok ? 'ok' : `failed: ${failure?.message ?? 'unknown'}`],
    ['token claims', report.authentication.claims.names.join(', ') || null],
    ['user id claim', report.authentication.claims.userIdClaim ?? 'none found'],
    ['document owner', report.authentication.documentOwnerSource ?? 'none'],
    [
      'stocks',
      report.stocks.failure
        ? `failed: ${report.stocks.failure.message}`
        : `${report.stocks.stockCount ?? '?'} listed`,
    ],
    ['stocks answer', report.stocks.shape.join(', ') || null],
    ['empty order', refusalVerdict(report.refusals?.order)],
    ['upload, no file', refusalVerdict(report.refusals?.upload)],
    ['order key', keyVerdict(report.orders?.keyHonoured)],
    ['order answer', report.orders?.first.shape.join(', ') ?? null],
    ['upload key', keyVerdict(report.documents?.keyHonoured)],
    ['upload answer', report.documents?.first.shape.join(', ') ?? null],
  ]);
  const { BADGE_IDEMPOTENCY_KEYS, BADGE_USER_ID_CLAIM, responseMap, requestProfile, BADGE_TENANT_ID } =
    report.recommended;
  const settings = [
    `BADGE_IDEMPOTENCY_KEYS=${BADGE_IDEMPOTENCY_KEYS ?? 'unknown'}`,
    BADGE_USER_ID_CLAIM && `BADGE_USER_ID_CLAIM=${BADGE_USER_ID_CLAIM}`,
    responseMap && `BADGE_RESPONSE_MAP='${JSON.stringify(responseMap)}'`,
    requestProfile && `BADGE_REQUEST_PROFILE='${JSON.stringify(requestProfile)}' (merged into yours)`,
    BADGE_TENANT_ID && `BADGE_TENANT_ID=${BADGE_TENANT_ID}`,
    report.recommended.clientCredentials && 'BADGE_CLIENT_ID=<your client id>',
    report.recommended.clientCredentials && 'BADGE_CLIENT_SECRET=<your client secret>',
  ].filter(Boolean);
  const notes = report.notes.map((note) => `- ${note}`);
  return [
    fields,
    '',
    'Settings to use:',
    ...settings,
    ...(notes.length > 0 ? ['', 'Notes:', ...notes] : []),
  ].join('\n');
}

function buildOpsProgram(deps: OpsDependencies): Command {
  // Connected on first use only (see OpsDependencies.temporal).
  let settings: OpsTemporal | undefined;
  let ordersClient: BadgeOrdersClient | undefined;
  const temporal = (): OpsTemporal => (settings ??= deps.temporal());
  const orders = (): BadgeOrdersClient =>
    (ordersClient ??= new BadgeOrdersClient({ client: temporal().client, taskQueue: temporal().taskQueue }));
  const workflowLink = (workflowId: string): string | null => {
    const { client, webUiUrl } = temporal();
    return webUiUrl ? webUiWorkflowLink({ webUiUrl, namespace: client.options.namespace }, workflowId) : null;
  };
  const print = (json: boolean, value: unknown, text: () => string): void =>
    deps.out(json ? JSON.stringify(value, null, 2) : text());

  const program = createCliProgram({
    name: 'ops',
    description: 'Operate badge orders: find stuck ones, inspect, retry, replace documents, run the replay',
    out: deps.out,
    err: deps.err,
  });

  program
    .command('list')
    .description('list badge orders, newest first, optionally by BadgeOrderStatus')
    .addOption(new Option('--status <status>', 'only orders with this status').choices(BADGE_ORDER_STATUSES))
    .option('--open', 'only orders whose workflow is still running')
    .option(
      '--limit <n>',
      'at most this many orders',
      (value) => {
        const limit = Number(value);
        if (!Number.isInteger(limit) || limit < 1) throw new OpsError('--limit must be a positive integer');
        return limit;
      },
      50,
    )
    .action(
      async (
        options: { status?: BadgeOrderStatusValue; open?: boolean; limit: number },
        command: Command,
      ) => {
        const query = badgeOrdersQuery({ status: options.status, openOnly: options.open });
        const listed: ListedOrder[] = [];
        for await (const info of temporal().client.workflow.list({
          query,
          pageSize: Math.min(options.limit, 100),
        })) {
          listed.push(listedOrder(info));
          if (listed.length >= options.limit) break;
        }
        print(wantsJson(command), listed, () =>
          listed.length === 0
            ? `No badge orders match: ${query}`
            : renderTable(
                ['order ref', 'status', 'order id', 'workflow', 'started'],
                listed.map((order) => [
                  order.orderRef,
                  order.status,
                  order.orderId,
                  order.execution,
                  order.startedAt,
                ]),
              ),
        );
      },
    );

  /**
   * A command on one order: `<orderRef>`, then `args`, and `--client`. `run` gets the order, the other
   * arguments, the options and `--json`; "no such workflow" becomes a message naming the order.
   */
  const orderCommand = <O extends object>(
    name: string,
    description: string,
    args: readonly (readonly [string, string])[],
    run: (order: OrderKey, args: readonly string[], options: O, json: boolean) => Promise<void>,
  ): Command => {
    const command = program.command(name).description(description);
    for (const [argument, about] of [['<orderRef>', 'the order reference'] as const, ...args]) {
      command.argument(argument, about);
    }
    return command
      .option('--client <clientId>', 'the client that owns the order (one placed through the HTTP API)')
      .action(async () => {
        const [orderRef = '', ...rest] = command.args;
        const options = command.opts<O & { client?: string }>();
        try {
          await run({ orderRef, clientId: options.client }, rest, options, wantsJson(command));
        } catch (error) {
          if (error instanceof WorkflowNotFoundError)
            throw new OpsError(`No order ${orderRef} (workflow not found)`);
          throw error;
        }
      });
  };
  /**
   * Prints an order's status view, for people or as JSON. Only the text links to the workflow, whose id costs a
   * client's order a look-up (`workflowIdOf`).
   */
  const printView = async (order: OrderKey, json: boolean, view: BadgeOrderStatusView): Promise<void> => {
    const link = json ? null : workflowLink(await orders().workflowIdOf(order));
    print(json, view, () => renderStatus(view, link));
  };

  orderCommand(
    'status',
    "show one order's phase and documents (the status query)",
    [],
    async (order, _, __, json) => printView(order, json, await orders().status(order)),
  );

  orderCommand(
    'retry',
    'retry every failed document of an order now (the retryUploads signal)',
    [],
    async (order, _, __, json) => {
      await orders().retryUploads(order);
      const workflowId = await orders().workflowIdOf(order);
      print(
        json,
        { orderRef: order.orderRef, workflowId, signal: 'retryUploads' },
        () => `Sent retryUploads to ${workflowId}; follow it with: ops status ${order.orderRef}`,
      );
    },
  );

  orderCommand<{ contentType?: string }>(
    'replace',
    "replace a failed document's file and upload it (the replaceDocument update)",
    [
      ['<path>', 'the document as named in the order'],
      ['<newPath>', 'the new file, relative to DOCUMENTS_ROOT on the workers'],
    ],
    async (order, [path = '', newPath = ''], options, json) => {
      const document = await orders().replaceDocument(order, {
        path,
        newPath,
        ...(options.contentType ? { contentType: options.contentType } : {}),
      });
      print(json, document, () => renderDocuments([document]));
      if (document.status !== 'uploaded')
        throw new OpsError(`Document ${path} is ${document.status} after the replacement`);
    },
  ).option('--content-type <type>', 'MIME type of the new file (derived from its name when absent)');

  orderCommand<{ orderId?: string; notCreated?: boolean }>(
    'reconcile',
    'answer an order awaiting reconciliation after checking the platform (the reconcileOrder update)',
    [],
    async (order, _, options, json) => {
      if (options.orderId === undefined && !options.notCreated) {
        throw new OpsError('reconcile: give --order-id <id> or --not-created');
      }
      const answer =
        options.orderId !== undefined ? { orderId: options.orderId } : { notCreated: true as const };
      await printView(order, json, await orders().reconcileOrder(order, answer));
    },
  )
    .addOption(
      new Option('--order-id <id>', 'the platform created the order with this id: continue with its uploads')
        .argParser((value) => {
          // Kept as the digits typed, however many: the platform's ids may pass 2^53.
          if (!ORDER_ID_PATTERN.test(value))
            throw new OpsError(`--order-id: must be the platform's order id (1 to 64 digits), got ${value}`);
          return value;
        })
        .conflicts('notCreated'),
    )
    .option('--not-created', 'the platform holds no such order: create it now');

  orderCommand<{ documentId?: string; notStored?: boolean }>(
    'reconcile-document',
    'answer a held document (an upload that may have stored it) after checking the platform (the reconcileDocument update)',
    [['<path>', 'the document as named in the order']],
    async (order, [path = ''], options, json) => {
      if (options.documentId === undefined && !options.notStored) {
        throw new OpsError('reconcile-document: give --document-id <id> or --not-stored');
      }
      const answer =
        options.documentId !== undefined ? { documentId: options.documentId } : { notStored: true as const };
      await printView(order, json, await orders().reconcileDocument(order, { path, ...answer }));
    },
  )
    .addOption(
      new Option(
        '--document-id <id>',
        'the platform holds the document under this id: it counts as uploaded',
      ).conflicts('notStored'),
    )
    .option('--not-stored', 'the platform holds no such document: send it again now');

  orderCommand(
    'set-owner',
    "correct whose documents an order's are after the platform refused the owner, and send its failed documents again (the setDocumentOwner update)",
    [['<documentOwner>', 'the platform user id the documents belong to']],
    async (order, [documentOwner = ''], _, json) =>
      printView(order, json, await orders().setDocumentOwner(order, { documentOwner })),
  );

  program
    .command('probe')
    .description(
      "ask the platform how it answers and what it wants sent (the worker's BADGE_* settings), and print the settings to use",
    )
    .option('--base-url <url>', 'the platform to probe (default: BADGE_BASE_URL)')
    .option(
      '--allow-test-orders',
      'create one test order and upload a tiny document, each twice with one key, to see whether keys are honoured',
    )
    .action(async (options: { baseUrl?: string; allowTestOrders?: boolean }, command: Command) => {
      if (!deps.platformClient) throw new OpsError('probe: no platform configuration available');
      const report = await probePlatform({
        client: deps.platformClient(options.baseUrl),
        allowTestOrders: options.allowTestOrders === true,
      });
      print(wantsJson(command), report, () => renderProbe(report));
      if (!report.authentication.ok) throw new OpsError('probe: authentication failed');
    });

  program
    .command('replay-now')
    .description(`trigger the nightly replay of failed uploads now (Schedule ${REPLAY_SCHEDULE_ID})`)
    .action(async (_options: unknown, command: Command) => {
      const { client, webUiUrl } = temporal();
      await triggerReplay(client);
      const link = webUiUrl
        ? `${webUiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(client.options.namespace)}/schedules/${REPLAY_SCHEDULE_ID}`
        : null;
      print(
        wantsJson(command),
        { scheduleId: REPLAY_SCHEDULE_ID, triggered: true },
        () =>
          `Triggered Schedule ${REPLAY_SCHEDULE_ID} (skipped if a replay is still running)${link ? `: ${link}` : ''}`,
      );
    });

  return program;
}

/**
 * Runs the CLI with `args` (without `node` and the script) and returns the exit code: 0 on success, 1 when a
 * command failed (the message goes to `err`), commander's code for usage errors.
 */
export async function runOps(args: readonly string[], deps: OpsDependencies): Promise<number> {
  return runCliProgram(buildOpsProgram(deps), args, deps);
}
