/**
 * Bad input and what it gets: the exact error, and proof that nothing was half-done. Refused input starts no
 * workflow and creates no platform order; a bad document fails visibly (AwaitingRepair) while the order and
 * the other documents go through. Each row here is a row of docs/bad-input.md.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { BadgeOrderStatus, WORKFLOW_TYPES } from '../../src/workflow-contract';
import { InvalidOrderInputError, badgeOrderWorkflowId } from '../../src/contract';
import { readOrderFile } from '../../src/main/starter';
import { completedOrder, expectLaterStartsAttach } from '../helpers/orders';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';

const PROJECT_ROOT = resolve(__dirname, '..', '..');
const SANDBOX_MAX_UPLOAD_BYTES = 8 * 1024;
const WORKER_MAX_DOCUMENT_BYTES = 32 * 1024;
const vehicle = { licensePlate: 'B-AD 1' };
const badge = { type: 'green' };
const valid = { orderRef: 'bad-input-base', vehicle, badge, documents: [{ path: 'ok.pdf' }] };
const sha256 = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');
/** The JSON text of `depth` nested objects, written by hand: JSON.stringify itself overflows the stack on it. */
const deepJsonText = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const deepObject = (depth: number): unknown => JSON.parse(deepJsonText(depth)) as unknown;
/** 40 000 "é": 80 008 bytes as UTF-8 JSON, but only 40 008 UTF-16 code units. */
const multiByteBadge = { text: 'é'.repeat(40_000) };

/** [row, input, exact error message] — refused before anything reaches Temporal. */
const REFUSED: readonly [string, unknown, string][] = [
  ['not an object', [], '(input): must be an object'],
  ['missing orderRef', { ...valid, orderRef: undefined }, 'orderRef: must be a string'],
  ['orderRef not a string', { ...valid, orderRef: 42 }, 'orderRef: must be a string'],
  [
    'huge orderRef (100 000 chars)',
    { ...valid, orderRef: 'a'.repeat(100_000) },
    'orderRef: must be at most 100 characters',
  ],
  [
    'orderRef with a slash',
    { ...valid, orderRef: 'a/b' },
    'orderRef: may contain only letters, digits, ".", "_", ":" and "-"',
  ],
  ['missing vehicle', { ...valid, vehicle: undefined }, 'vehicle: must be an object'],
  ['vehicle a string', { ...valid, vehicle: 'car' }, 'vehicle: must be an object'],
  ['empty badge', { ...valid, badge: {} }, 'badge: must not be empty'],
  [
    'huge vehicle (70 kB)',
    { ...valid, vehicle: { blob: 'x'.repeat(70_000) } },
    'vehicle: must be at most 65536 bytes as UTF-8 JSON',
  ],
  [
    'badge over 64 KiB only as UTF-8 (40 000 "é")',
    { ...valid, badge: multiByteBadge },
    'badge: must be at most 65536 bytes as UTF-8 JSON',
  ],
  [
    'vehicle 6 000 levels deep',
    { ...valid, vehicle: deepObject(6_000) },
    'vehicle: nesting deeper than 16 levels',
  ],
  ['badge 17 levels deep', { ...valid, badge: deepObject(17) }, 'badge: nesting deeper than 16 levels'],
  [
    'vehicle with Infinity (direct call)',
    { ...valid, vehicle: { weight: Infinity } },
    'vehicle: must hold only finite numbers',
  ],
  ['documents not an array', { ...valid, documents: { path: 'ok.pdf' } }, 'documents: must be an array'],
  [
    '501 documents',
    { ...valid, documents: Array.from({ length: 501 }, (_, i) => ({ path: `d${i}.pdf` })) },
    'documents: must hold at most 500 documents',
  ],
  ['stockId negative', { ...valid, stockId: -1 }, 'stockId: must not be negative'],
  [
    'stockId a boolean',
    { ...valid, stockId: true },
    'stockId: must be a non-empty string or a non-negative integer',
  ],
  [
    'stockId a number beyond 2^53',
    { ...valid, stockId: 2 ** 60 },
    'stockId: is beyond 2^53 and cannot arrive intact as a JSON number: send it as a string',
  ],
  [
    'documentOwner a number beyond 2^53',
    { ...valid, documentOwner: JSON.parse('12345678901234567890') as number },
    'documentOwner: is beyond 2^53 and cannot arrive intact as a JSON number: send it as a string',
  ],
  [
    'path traversal',
    { ...valid, documents: [{ path: '../../etc/passwd' }] },
    'documents.0.path: must be a relative path inside DOCUMENTS_ROOT (no absolute path, no "..")',
  ],
  [
    'absolute path',
    { ...valid, documents: [{ path: '/etc/passwd' }] },
    'documents.0.path: must be a relative path inside DOCUMENTS_ROOT (no absolute path, no "..")',
  ],
  [
    'document naming neither path nor ref',
    { ...valid, documents: [{ filename: 'a.pdf' }] },
    'documents.0.path: is required (or "ref"): name the document once',
  ],
  [
    'document naming both path and ref',
    { ...valid, documents: [{ path: 'a.pdf', ref: `sha256:${'a'.repeat(64)}` }] },
    'documents.0.ref: must not be given together with "path"',
  ],
  [
    'malformed ref',
    { ...valid, documents: [{ ref: 'sha256:xyz' }] },
    'documents.0.ref: must be a document reference: "sha256:" and 64 lowercase hex digits',
  ],
  [
    'a reference given as path',
    { ...valid, documents: [{ path: `sha256:${'a'.repeat(64)}` }] },
    'documents.0.path: is a document reference: name it with "ref", not "path"',
  ],
  [
    'callbackUrl over http:// to another host',
    { ...valid, callbackUrl: 'http://example.com/hook' },
    'callbackUrl: must be an https:// URL (http:// only to this machine)',
  ],
  ['callbackUrl not a URL', { ...valid, callbackUrl: 'nope' }, 'callbackUrl: must be an absolute URL'],
  [
    'callbackUrl with credentials',
    { ...valid, callbackUrl: 'https://u:p@example.com/hook' },
    'callbackUrl: must not contain credentials (user:password@)',
  ],
  [
    'clientId empty',
    { ...valid, clientId: '' },
    'clientId: must be 1 to 64 letters, digits, ".", "_", ":" or "-"',
  ],
  [
    'huge path (5000 chars)',
    { ...valid, documents: [{ path: 'a'.repeat(5000) }] },
    'documents.0.path: must be at most 1024 characters',
  ],
  [
    'same path twice',
    { ...valid, documents: [{ path: 'ok.pdf' }, { path: 'ok.pdf' }] },
    'documents.1.path: is listed twice',
  ],
  [
    'bad contentType',
    { ...valid, documents: [{ path: 'ok.pdf', contentType: 'pdf' }] },
    'documents.0.contentType: must be a MIME type such as image/jpeg',
  ],
  [
    'filename with a quote and a line break',
    { ...valid, documents: [{ path: 'ok.pdf', filename: 'a.pdf"\r\nX-Injected: 1' }] },
    'documents.0.filename: must be a file name: no control characters, quotes, slashes or backslashes',
  ],
  [
    'options out of range',
    { ...valid, options: { maxParallelUploads: 0 } },
    'options.maxParallelUploads: Too small: expected number to be >=1',
  ],
  [
    'repairWindowMs 9007199254740991',
    { ...valid, options: { repairWindowMs: 9007199254740991 } },
    'options.repairWindowMs: must be at most 2592000000 ms (30 days)',
  ],
  [
    'uploadRetryWindowMs under 1 second',
    { ...valid, options: { uploadRetryWindowMs: 500 } },
    'options.uploadRetryWindowMs: must be at least 1000 ms (1 second)',
  ],
  [
    'uploadHeartbeatTimeoutMs over 1 hour',
    { ...valid, options: { uploadHeartbeatTimeoutMs: 3_600_001 } },
    'options.uploadHeartbeatTimeoutMs: must be at most 3600000 ms (1 hour)',
  ],
  [
    'platformRetryWindowMs NaN (direct call)',
    { ...valid, options: { platformRetryWindowMs: NaN } },
    'options.platformRetryWindowMs: must be a number of milliseconds',
  ],
  [
    'reconciliationWindowMs Infinity (direct call)',
    { ...valid, options: { reconciliationWindowMs: Infinity } },
    'options.reconciliationWindowMs: must be a number of milliseconds',
  ],
];

/**
 * [row, input fields, exact failure message] — sent around the client, straight to the workflow. The client's
 * JSON converter cannot itself serialize 6 000 levels, so the workflow gets 1 000 (the bound is 16 either way).
 */
const RAW_REFUSED: readonly [string, Record<string, unknown>, string][] = [
  [
    'path traversal',
    { documents: [{ path: '../secrets.pdf' }] },
    'documents.0.path: must be a relative path inside DOCUMENTS_ROOT (no absolute path, no "..")',
  ],
  [
    'repairWindowMs 9007199254740991',
    { options: { repairWindowMs: 9007199254740991 } },
    'options.repairWindowMs: must be at most 2592000000 ms (30 days)',
  ],
  ['vehicle 1 000 levels deep', { vehicle: deepObject(1_000) }, 'vehicle: nesting deeper than 16 levels'],
  [
    'badge over 64 KiB only as UTF-8',
    { badge: multiByteBadge },
    'badge: must be at most 65536 bytes as UTF-8 JSON',
  ],
];

/** Runs `npm run start-order -- <file>` and resolves with its exit code and stderr. */
function runStarter(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('npm', ['run', '--silent', 'start-order', '--', file], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    // 'close', not 'exit': the output may still be arriving when the process has exited.
    child.once('close', (code) => resolveRun({ code, stderr }));
  });
}

describe('bad input', () => {
  const stack = useTestStack({
    sandbox: { rules: { maxUploadBytes: SANDBOX_MAX_UPLOAD_BYTES } },
    maxDocumentBytes: WORKER_MAX_DOCUMENT_BYTES,
    worker: true,
    resetSandbox: true,
  });
  /** A file in the stack's scratch folder: outside the documents root, removed with the stack. */
  const scratchFile = (name: string): string => join(stack.local.scratchDir, name);

  /** Nothing half-done: no workflow for the orderRef, no order on the platform. */
  async function expectNothingStarted(orderRef: unknown): Promise<void> {
    if (typeof orderRef === 'string' && /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/.test(orderRef)) {
      await expect(stack.orders.getHandle(orderRef).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    }
    expect((await stack.sandbox.control.state()).orders).toEqual([]);
  }

  it.each(REFUSED)(
    'refuses %s with a message naming the field, and starts nothing',
    async (_row, input, message) => {
      const refused = stack.orders.startOrder(input);
      await expect(refused).rejects.toBeInstanceOf(InvalidOrderInputError);
      await expect(refused).rejects.toThrow(`Invalid badge order input: ${message}`);
      await expectNothingStarted((input as { orderRef?: unknown } | null)?.orderRef ?? 'bad-input-base');
    },
  );

  it('refuses an order file that is not JSON, naming the file', async () => {
    const file = scratchFile('broken.json');
    writeFileSync(file, '{ "orderRef": "broken-1", ');
    const read = readOrderFile(file);
    await expect(read).rejects.toBeInstanceOf(InvalidOrderInputError);
    await expect(read).rejects.toThrow(new RegExp(`^Invalid badge order input: ${file}: not valid JSON \\(`));
  });

  it.each(RAW_REFUSED.map(([row, fields, message], index) => [row, fields, message, index] as const))(
    'fails a workflow started around the client with %s as INVALID_INPUT, before any platform call',
    async (_row, fields, message, index) => {
      const orderRef = `raw-invalid-${index}`;
      const handle = await stack.temporal.client.workflow.start(WORKFLOW_TYPES.badgeOrder, {
        taskQueue: stack.taskQueue,
        workflowId: badgeOrderWorkflowId(orderRef),
        // A missing document would send the order to repair, where a bad window used to break the workflow task.
        args: [{ orderRef, vehicle, badge, documents: [{ path: 'missing.pdf' }], ...fields }],
      });
      const error: unknown = await handle.result().catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).type).toBe('INVALID_INPUT');
      expect(cause?.message).toBe(`Invalid badge order input: ${message}`);
      // A clean failure of the run, not a workflow task that failed and is retried.
      const history = await handle.fetchHistory();
      expect((history.events ?? []).filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
      expect((await handle.describe()).typedSearchAttributes.get(BadgeOrderStatus)).toBe('Failed');
      const state = await stack.sandbox.control.state();
      expect(state.orders).toEqual([]);
      expect((await stack.sandbox.control.stats()).totalRequests).toBe(0);
    },
  );

  it('creates the order, uploads the good document and fails each bad one visibly in AwaitingRepair', async () => {
    const good = '%PDF-1.4 the good one';
    stack.writeDocument('docs/ok.pdf', good);
    stack.writeDocument('docs/empty.pdf', '');
    stack.writeDocument('docs/too-big-for-worker.pdf', Buffer.alloc(WORKER_MAX_DOCUMENT_BYTES + 1, 1));
    stack.writeDocument('docs/too-big-for-platform.pdf', Buffer.alloc(SANDBOX_MAX_UPLOAD_BYTES * 2, 2));
    stack.writeDocument('docs/animation.gif', 'GIF89a not accepted');
    const outside = scratchFile('outside.pdf');
    writeFileSync(outside, '%PDF-1.4 outside the root');
    symlinkSync(outside, join(stack.documentsRoot, 'docs', 'escape.pdf'));

    const started = await stack.orders.startOrder({
      orderRef: 'bad-documents',
      vehicle,
      badge,
      documents: [
        { path: 'docs/ok.pdf' },
        { path: 'docs/missing.pdf' },
        { path: 'docs/empty.pdf' },
        { path: 'docs/too-big-for-worker.pdf' },
        { path: 'docs/too-big-for-platform.pdf' },
        { path: 'docs/animation.gif' },
        { path: 'docs/escape.pdf' },
      ],
      options: { uploadRetryWindowMs: 20_000 },
    });
    const status = await pollUntil(
      () => stack.orders.status('bad-documents'),
      (view) => view.phase === 'awaiting-repair',
      { what: 'AwaitingRepair' },
    );
    const errors = Object.fromEntries(
      status.documents.map((d) => [d.path, `${d.status}: ${d.lastError ?? ''}`]),
    );
    expect(errors).toEqual({
      'docs/ok.pdf': 'uploaded: ',
      'docs/missing.pdf': 'failed: INVALID_DOCUMENT: docs/missing.pdf: no such file under DOCUMENTS_ROOT',
      'docs/empty.pdf': 'failed: INVALID_DOCUMENT: docs/empty.pdf: is empty',
      'docs/too-big-for-worker.pdf': `failed: INVALID_DOCUMENT: docs/too-big-for-worker.pdf: is ${WORKER_MAX_DOCUMENT_BYTES + 1} bytes, above the limit of ${WORKER_MAX_DOCUMENT_BYTES} bytes`,
      'docs/too-big-for-platform.pdf': `failed: VALIDATION: POST /document/api/v1/documents failed with 422 (Unprocessable Entity): the file exceeds the limit of ${SANDBOX_MAX_UPLOAD_BYTES} bytes`,
      'docs/animation.gif':
        'failed: VALIDATION: POST /document/api/v1/documents failed with 422 (Unprocessable Entity): the file\'s content type "image/gif" is not accepted (accepted: image/jpeg, image/png, application/pdf)',
      'docs/escape.pdf':
        'failed: INVALID_DOCUMENT: docs/escape.pdf: resolves outside DOCUMENTS_ROOT (symlink escape refused)',
    });

    // The order exists once, with only the good document.
    const state = await stack.sandbox.control.state();
    expect(state.orders.map((order) => order.id)).toEqual([status.orderId]);
    expect(state.documents.map((document) => [document.document_type_id, document.sha256])).toEqual([
      [status.orderId, sha256(good)],
    ]);
    const description = await started.handle.describe();
    expect(description.status.name).toBe('RUNNING');
    await started.handle.terminate('test over');
  });

  it('falls back to ordering without a stock when the stock is unknown', async () => {
    const { result } = await completedOrder(stack, {
      orderRef: 'unknown-stock',
      stockId: 424242,
      vehicle,
      badge,
    });
    expect(result).toMatchObject({
      stockId: null,
      stockFallback: true,
      stockFallbackReason: 'the platform answered 404 for stock 424242',
    });
    const state = await stack.sandbox.control.state();
    expect(state.orders).toHaveLength(1);
    expect(state.orders[0]?.stock_id).toBeNull();
  });

  it('attaches a second start with the same orderRef to the first order instead of duplicating it', async () => {
    stack.writeDocument('dup/form.pdf', '%PDF-1.4 duplicate');
    const input = { orderRef: 'duplicate-ref', vehicle, badge, documents: [{ path: 'dup/form.pdf' }] };
    await expectLaterStartsAttach(stack, input, { ...input, vehicle: { licensePlate: 'OTHER' } });
    const state = await stack.sandbox.control.state();
    expect(state.orders).toHaveLength(1);
    expect(state.orders[0]?.vehicle).toEqual(vehicle);
    expect(state.documents).toHaveLength(1);
  });

  it('makes the starter CLI exit 2 naming the field, or the file for broken JSON', async () => {
    const env = { TEMPORAL_ADDRESS: stack.temporal.server.address, TEMPORAL_TASK_QUEUE: stack.taskQueue };
    const missingVehicle = scratchFile('missing-vehicle.json');
    writeFileSync(missingVehicle, JSON.stringify({ orderRef: 'cli-bad-1', badge, documents: [] }));
    const broken = scratchFile('broken-cli.json');
    writeFileSync(broken, '{ nope');

    const fields = await runStarter(missingVehicle, env);
    expect(fields.code).toBe(2);
    expect(fields.stderr).toContain('Invalid badge order input: vehicle: must be an object');
    const json = await runStarter(broken, env);
    expect(json.code).toBe(2);
    expect(json.stderr).toContain(`Invalid badge order input: ${broken}: not valid JSON (`);
    const missing = await runStarter(scratchFile('no-such-order.json'), env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ENOENT: no such file or directory');
    await expectNothingStarted('cli-bad-1');
  });

  it('makes the starter CLI exit 2 for input beyond the bounds, naming the field', async () => {
    const env = { TEMPORAL_ADDRESS: stack.temporal.server.address, TEMPORAL_TASK_QUEUE: stack.taskQueue };
    const deep = scratchFile('deep-vehicle.json');
    writeFileSync(
      deep,
      `{"orderRef":"cli-deep","badge":{"type":"green"},"documents":[],"vehicle":${deepJsonText(6_000)}}`,
    );
    const window = scratchFile('huge-window.json');
    writeFileSync(
      window,
      JSON.stringify({ ...valid, orderRef: 'cli-window', options: { repairWindowMs: 9007199254740991 } }),
    );

    const deepRun = await runStarter(deep, env);
    expect(deepRun.stderr).toContain('Invalid badge order input: vehicle: nesting deeper than 16 levels');
    expect(deepRun.code).toBe(2);
    const windowRun = await runStarter(window, env);
    expect(windowRun.stderr).toContain(
      'Invalid badge order input: options.repairWindowMs: must be at most 2592000000 ms (30 days)',
    );
    expect(windowRun.code).toBe(2);
    await expectNothingStarted('cli-deep');
    await expectNothingStarted('cli-window');
  });
});
