/**
 * The client package as a backend gets it: packed with `npm pack` (which builds it from src/), installed from the
 * tarball into a project outside the repository that has nothing but it, its dependencies and TypeScript, and
 * used there by code written as its README shows. That code places one order through Temporal (with the payload
 * codec) and one through the HTTP API (uploading its document first); both complete on the real sandbox.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { localApiDocuments, startTestApi, TEST_KEYS, type TestApi } from '../api/api-server';
import { useTestStack } from '../helpers/stack';

const ROOT = resolve(__dirname, '../..');
/** The TypeScript and Node.js typings this repository builds with: a backend on the supported Node.js. */
const { devDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<'typescript' | '@types/node', string>;
};
const run = promisify(execFile);
/** npm as on PATH, with the Node.js that runs the tests first on it. */
const NPM = 'npm';
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The backend's code, as packages/client/README.md shows it (reading its settings from the environment). */
const CONSUMER = `
import { readFileSync } from 'node:fs';
import {
  BadgeOrdersClient,
  connectClient,
  createBadgeOrdersHttpClient,
  loadTemporalConfig,
  uploadDocument,
  type BadgeOrderInput,
} from '@badge-orders/client';

async function main(): Promise<void> {
  const config = loadTemporalConfig();
  const client = await connectClient(config);
  const orders = new BadgeOrdersClient({ client, taskQueue: config.taskQueue });
  const input: BadgeOrderInput = {
    orderRef: 'pkg-temporal',
    vehicle: { licensePlate: 'P-KG 1' },
    badge: { type: 'green' },
    documents: [{ path: String(process.env.DOCUMENT_PATH) }],
  };
  const { handle, workflowId } = await orders.startOrder(input);
  const result = await handle.result();
  await client.connection.close();

  const api = createBadgeOrdersHttpClient({ baseUrl: String(process.env.API_URL), apiKey: process.env.API_KEY });
  const file = new Blob([readFileSync(String(process.env.UPLOAD_FILE))], { type: 'application/pdf' });
  const { data: stored, error: uploadError } = await uploadDocument(api, { file, filename: 'scan.pdf' });
  if (stored === undefined) throw new Error(\`upload refused: \${JSON.stringify(uploadError)}\`);
  const { data: accepted, error } = await api.PUT('/v1/orders/{orderRef}', {
    params: { path: { orderRef: 'pkg-http' } },
    body: { vehicle: { licensePlate: 'P-KG 2' }, badge: { type: 'green' }, documents: [{ ref: stored.ref }] },
  });
  if (accepted === undefined) throw new Error(\`order refused: \${JSON.stringify(error)}\`);
  let runStatus = 'RUNNING';
  while (runStatus === 'RUNNING') {
    const { data: order } = await api.GET('/v1/orders/{orderRef}', { params: { path: { orderRef: 'pkg-http' } } });
    runStatus = order?.runStatus ?? 'UNKNOWN';
    if (runStatus === 'RUNNING') await new Promise((resolve) => setTimeout(resolve, 200));
  }
  console.log(JSON.stringify({ workflowId, orderId: result.orderId, stored, accepted, runStatus }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`;

describe('the client package', () => {
  const stack = useTestStack({ worker: true });
  let api: TestApi;
  let project: string;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'badge-orders-backend-'));
    stack.local.onStop('the backend project', () => rmSync(project, { recursive: true, force: true }));
    const documents = await localApiDocuments(stack.documentsRoot);
    api = await startTestApi({ orders: stack.orders, documents });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('has the version of the service it is built from', () => {
    const version = (file: string): unknown =>
      (JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as { version: unknown }).version;
    expect(version('packages/client/package.json')).toBe(version('package.json'));
  });

  it('packs, installs into a project of its own, and places orders through Temporal and the HTTP API', async () => {
    const packed = await run(
      NPM,
      ['pack', '--workspace', '@badge-orders/client', '--pack-destination', project, '--json'],
      { cwd: ROOT },
    );
    const [{ filename, files }] = JSON.parse(packed.stdout) as [
      { filename: string; files: { path: string }[] },
    ];
    const paths = files.map((file) => file.path);
    // Built JS with declarations, from src/ and nothing else.
    expect(paths).toEqual(
      expect.arrayContaining([
        'dist/client/index.js',
        'dist/client/index.d.ts',
        'dist/contract.d.ts',
        'README.md',
      ]),
    );
    expect(paths.filter((path) => /\.ts$/.test(path) && !path.endsWith('.d.ts'))).toEqual([]);
    expect(paths.filter((path) => /workflows\/|activities\/|api\/|sandbox\//.test(path))).toEqual([]);

    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'backend', private: true }));
    await run(
      NPM,
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        `./${filename}`,
        `typescript@${devDependencies.typescript}`,
        `@types/node@${devDependencies['@types/node']}`,
      ],
      { cwd: project },
    );
    writeFileSync(join(project, 'backend.ts'), CONSUMER);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'commonjs',
          types: ['node'],
          skipLibCheck: true,
        },
        files: ['backend.ts'],
      }),
    );
    // The backend's code type-checks against the package's declarations, then runs.
    await run(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', project], {
      cwd: project,
    });

    const documentPath = stack.writeDocument('pkg-temporal/registration.pdf', '%PDF-1.4 registration');
    const upload = randomBytes(20_000);
    writeFileSync(join(project, 'scan.pdf'), upload);
    const { temporal } = stack.local;
    const ran = await run(process.execPath, ['backend.js'], {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        TEMPORAL_ADDRESS: temporal.server.address,
        TEMPORAL_NAMESPACE: temporal.server.namespace,
        TEMPORAL_TASK_QUEUE: stack.taskQueue,
        PAYLOAD_KEYS: String(stack.local.payloadKeysEntry),
        DOCUMENT_PATH: documentPath,
        API_URL: api.url,
        API_KEY: TEST_KEYS.writer.key,
        UPLOAD_FILE: join(project, 'scan.pdf'),
      },
    });
    const outcome = JSON.parse(ran.stdout.trim().split('\n').at(-1) ?? '{}') as {
      workflowId: string;
      orderId: string;
      stored: { ref: string };
      accepted: { created: boolean };
      runStatus: string;
    };
    expect(outcome).toMatchObject({
      stored: { ref: `sha256:${sha256(upload)}` },
      accepted: { created: true },
    });
    expect(outcome.runStatus).toBe('COMPLETED');

    // What the platform holds: each order with its one document, the bytes the backend gave.
    const placedThroughTemporal = await stack.orders.getHandle('pkg-temporal').result();
    expect(placedThroughTemporal.orderId).toBe(outcome.orderId);
    const viaTemporal = await stack.sandbox.control.listDocuments({ orderId: outcome.orderId });
    expect(viaTemporal.map((document) => document.sha256)).toEqual([
      sha256(Buffer.from('%PDF-1.4 registration')),
    ]);
    const http = await stack.orders.getHandle({ orderRef: 'pkg-http', clientId: 'writer' }).result();
    const viaHttp = await stack.sandbox.control.listDocuments({ orderId: http.orderId });
    expect(viaHttp.map((document) => document.sha256)).toEqual([sha256(upload)]);
    // The input went to Temporal encrypted by the package's codec (the stack's worker could decrypt it).
    const raw = await stack.temporal.rawClient.workflowService.getWorkflowExecutionHistory({
      namespace: temporal.server.namespace,
      execution: { workflowId: outcome.workflowId },
    });
    const started = raw.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
    expect(Buffer.from(started?.input?.payloads?.[0]?.metadata?.encoding ?? []).toString()).toBe(
      'binary/encrypted',
    );
  }, 600_000);
});
