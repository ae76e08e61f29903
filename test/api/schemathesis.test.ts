/**
 * schemathesis (PyPI, installed by `.ci/run`) fuzzes the running API from its own `/openapi.json`: no answer
 * may be a 5xx, every status code and every body must be the documented ones. Afterwards every order that
 * exists was placed whole — started with the hash of a valid input in its memo — so no generated request
 * left a half-created order behind.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { INPUT_HASH_MEMO_KEY, orderInputHash } from '../../src/api/input-hash';
import { parseBadgeOrderInput, type ListedOrder } from '../../src/contract';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';
import { localApiDocuments, startTestApi, TEST_KEYS, type TestApi } from './api-server';

/** The schemathesis version `.ci/run` installs. */
const SCHEMATHESIS_VERSION = '4.32.5';
/** Test cases per operation and phase: enough to reach every documented answer, bounded for a 2-core machine. */
const MAX_EXAMPLES = 25;

interface Run {
  readonly code: number | null;
  readonly output: string;
}

/** What a run did, from its JSON and NDJSON reports: docs/bad-input.md quotes these counts. */
interface RunCounts {
  readonly operations: { readonly selected: number; readonly tested: number };
  readonly testCases: number;
  readonly requests: number;
  /** Check results by check name: how many ran, how many failed. */
  readonly checks: Readonly<Record<string, { ran: number; failed: number }>>;
  /** Responses by status code. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Requests by operation (`METHOD /path`). */
  readonly byOperation: Readonly<Record<string, number>>;
  /** The order refs of the PUTs answered 201: orders the fuzzing created. */
  readonly createdOrderRefs: readonly string[];
}

/** The order ref of a `PUT …/v1/orders/<ref>` request's URL, or null for any other request. */
function putOrderRef(request: Record<string, unknown>): string | null {
  if (request.method !== 'PUT') return null;
  const url = [request.uri, request.url].find((value) => typeof value === 'string') ?? '';
  const match = /\/v1\/orders\/([^/?#]+)$/.exec(url.split('?')[0] ?? '');
  return match?.[1] === undefined ? null : decodeURIComponent(match[1]);
}

const recordOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/** Counts from the reports; every `ScenarioFinished` event holds its test cases' checks and interactions. */
function countRun(jsonReport: string, ndjsonReport: string): RunCounts {
  const summary = recordOf(JSON.parse(jsonReport));
  const operations = recordOf(summary.operations);
  const checks: Record<string, { ran: number; failed: number }> = {};
  const statuses: Record<string, number> = {};
  const byOperation: Record<string, number> = {};
  const createdOrderRefs = new Set<string>();
  let requests = 0;
  for (const line of ndjsonReport.split('\n')) {
    if (!line.startsWith('{"ScenarioFinished"')) continue;
    const recorder = recordOf(recordOf(recordOf(JSON.parse(line)).ScenarioFinished).recorder);
    for (const nodes of Object.values(recordOf(recorder.checks))) {
      for (const node of Array.isArray(nodes) ? nodes : []) {
        const { name, status } = recordOf(node);
        const entry = (checks[String(name)] ??= { ran: 0, failed: 0 });
        entry.ran += 1;
        if (status === 'failure') entry.failed += 1;
      }
    }
    for (const interaction of Object.values(recordOf(recorder.interactions))) {
      const { request, response } = recordOf(interaction);
      requests += 1;
      const code = recordOf(response).status_code;
      const status = typeof code === 'number' ? String(code) : 'none';
      statuses[status] = (statuses[status] ?? 0) + 1;
      const label = String(recorder.label ?? recordOf(request).method);
      byOperation[label] = (byOperation[label] ?? 0) + 1;
      const created = code === 201 ? putOrderRef(recordOf(request)) : null;
      if (created !== null) createdOrderRefs.add(created);
    }
  }
  return {
    operations: { selected: Number(operations.selected), tested: Number(operations.tested) },
    testCases: Number(recordOf(summary.test_cases).generated),
    requests,
    checks,
    statuses,
    byOperation,
    createdOrderRefs: [...createdOrderRefs],
  };
}

function runSchemathesis(args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-m', 'schemathesis.cli', ...args], {
      // Its working folder (caches) is the test's scratch folder, not the repository.
      cwd,
      env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('schemathesis against /openapi.json', () => {
  const stack = useTestStack({ worker: true });
  let api: TestApi;
  let scratch: string;

  beforeAll(async () => {
    // The limit is per key and schemathesis uses one key: keep it out of the way of the fuzzing.
    // With the documents upload, as `npm run api` serves it (a local store under the stack's DOCUMENTS_ROOT).
    const documents = await localApiDocuments(stack.documentsRoot, 1024 * 1024);
    api = await startTestApi({
      orders: stack.orders,
      limits: { rateLimitMax: 100_000 },
      documents,
    });
    scratch = mkdtempSync(join(tmpdir(), 'schemathesis-'));
  });
  afterAll(async () => {
    await api?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it(`finds no 5xx and no answer outside the document (schemathesis ${SCHEMATHESIS_VERSION})`, async () => {
    const version = await runSchemathesis(['--version'], scratch);
    expect(version.output).toContain(SCHEMATHESIS_VERSION);

    const run = await runSchemathesis(
      [
        'run',
        `${api.url}/openapi.json`,
        '--header',
        `X-API-Key: ${TEST_KEYS.fuzzer.key}`,
        '--checks',
        'not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance',
        '--max-examples',
        String(MAX_EXAMPLES),
        '--phases',
        'examples,coverage,fuzzing',
        '--workers',
        '1',
        '--seed',
        '17',
        '--generation-database',
        'none',
        '--request-timeout',
        '60',
        '--no-color',
        '--report',
        'junit,json,ndjson',
        '--report-junit-path',
        join(scratch, 'junit.xml'),
        '--report-json-path',
        join(scratch, 'report.json'),
        '--report-ndjson-path',
        join(scratch, 'events.ndjson'),
      ],
      scratch,
    );
    // A failing run shows schemathesis's own output. A passing run prints only the counts below: its own summary
    // closes with a pytest-style line ("=== 1 warning in 14s ===") that a CI log reader takes for a pytest run
    // that executed no test.
    if (run.code !== 0) throw new Error(`schemathesis failed (exit ${run.code}):\n${run.output}`);
    expect(run.output).toMatch(/No issues found|passed/i);
    const junit = readFileSync(join(scratch, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuite[^>]*failures="0"/);
    const counts = countRun(
      readFileSync(join(scratch, 'report.json'), 'utf8'),
      readFileSync(join(scratch, 'events.ndjson'), 'utf8'),
    );
    process.stdout.write(`schemathesis counts: ${JSON.stringify(counts, null, 2)}\n`);
    expect(counts.operations.tested).toBe(counts.operations.selected);
    expect(counts.requests).toBeGreaterThanOrEqual(counts.testCases);
    expect(Object.keys(counts.statuses).filter((status) => status.startsWith('5'))).toEqual([]);
    expect(Object.values(counts.checks).every((check) => check.ran > 0 && check.failed === 0)).toBe(true);

    // Every order there is was placed through a complete, valid PUT. Visibility shows new orders a moment
    // later: wait until it lists every order a PUT answered 201 for.
    const listAll = async (): Promise<ListedOrder[]> => {
      const listed: ListedOrder[] = [];
      let nextPageToken: Uint8Array | null = null;
      do {
        const page = await stack.orders.listOrders({ pageSize: 100, nextPageToken });
        listed.push(...page.orders);
        nextPageToken = page.nextPageToken;
      } while (nextPageToken !== null);
      return listed;
    };
    expect(counts.createdOrderRefs.length).toBeGreaterThan(0);
    const orders = await pollUntil(
      listAll,
      (listed) => {
        const refs = new Set(listed.map((order) => order.orderRef));
        return counts.createdOrderRefs.every((ref) => refs.has(ref));
      },
      { what: `visibility to list the ${counts.createdOrderRefs.length} orders the fuzzing created` },
    );
    for (const order of orders) {
      // Placed through the API, so each is its client's (the fuzzer's).
      const handle = stack.orders.getHandle({
        orderRef: order.orderRef,
        clientId: order.clientId ?? undefined,
      });
      const description = await handle.describe();
      const history = await handle.fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      const [input] = await decodeArrayFromPayloads(
        stack.temporal.client.options.loadedDataConverter,
        started?.input?.payloads,
      );
      expect(description.memo?.[INPUT_HASH_MEMO_KEY]).toBe(orderInputHash(parseBadgeOrderInput(input)));
    }
    process.stdout.write(
      `orders placed by the fuzzing: ${orders.length} (PUTs answered 201: ${counts.createdOrderRefs.length})\n`,
    );
  });
});
