/**
 * The API's document path with flat memory: one large document streamed through `POST /v1/documents` of a
 * real `npm run api` process into an S3-compatible store (versitygw on loopback), then an order placed with
 * `PUT /v1/orders/{orderRef}` naming it by reference, which a worker process (DOCUMENT_STORE=s3) streams from the
 * store to the sandbox. Measured: each process's peak RSS growth (VmHWM after resetting it, as the memory
 * scenario does) and the throughput of both legs. A benchmark, not a test: it reports, it does not assert.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_KEY_HEADER, hashApiKey, newApiKey } from '../src/api/auth';
import { generatePayloadKeyEntry } from '../src/codec/key-ring';
import { startTsProcess, workerProcessEnv } from '../tools/dev/child-process';
import { findFreePort } from '../tools/dev/ports';
import { waitUntilServing } from '../tools/oidc/binary-process';
import { CleanupList } from '../tools/stack/cleanup';
import { startLocalS3 } from '../tools/stack/s3';
import { waitUntilPolling } from '../tools/stack/polling';
import { readProcMemory, resetPeakRss } from './metrics';
import { RSS_GROWTH_TARGET_BYTES, type TargetResult } from './report';
import type { BenchStack } from './stack';

/** Memory of one process across the large document. */
export interface ProcessGrowth {
  readonly rssBeforeBytes: number;
  readonly peakRssBytes: number;
  readonly rssGrowthBytes: number;
  /** False when VmHWM could not be reset: the peak may then be start-up's. */
  readonly peakReset: boolean;
}

/** What {@link runApiDocumentScenario} measured. */
export interface ApiDocumentResult {
  readonly documentBytes: number;
  /** `POST /v1/documents` until its 201: client → API → S3 store. */
  readonly uploadSeconds: number;
  readonly uploadMegabytesPerSecond: number;
  /** `PUT` until the order left `Running`: S3 store → worker → sandbox. */
  readonly orderSeconds: number;
  readonly orderMegabytesPerSecond: number;
  /** The order's `BadgeOrderStatus` at the end (`Completed` when the document reached the platform). */
  readonly orderStatus: string | null;
  readonly api: ProcessGrowth;
  readonly worker: ProcessGrowth;
}

/** Options of {@link runApiDocumentScenario}. */
export interface ApiDocumentOptions {
  readonly bytes: number;
  readonly runId: string;
  readonly workerLogLevel: string;
  readonly log: (message: string) => void;
}

function growthOf(pid: number, rssBeforeBytes: number, peakReset: boolean): ProcessGrowth {
  const { peakRssBytes } = readProcMemory(pid);
  return { rssBeforeBytes, peakRssBytes, rssGrowthBytes: peakRssBytes - rssBeforeBytes, peakReset };
}

/**
 * Streams `bytes` bytes (one random MiB, repeated) as the `file` part of a multipart body, with backpressure:
 * the bench process holds one MiB however large the document.
 */
function uploadGenerated(
  url: string,
  apiKey: string,
  bytes: number,
): Promise<{ status: number; body: string }> {
  const boundary = `bench-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="large.pdf"\r\n` +
      'Content-Type: application/pdf\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = randomBytes(1024 * 1024);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          [API_KEY_HEADER]: apiKey,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + bytes + tail.length,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (text: string) => (body += text));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes) {
        const size = Math.min(chunk.length, bytes - sent);
        sent += size;
        if (!req.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
          req.once('drain', pump);
          return;
        }
      }
      req.end(tail);
    };
    pump();
  });
}

/** Runs the scenario on the bench stack's Temporal server and sandbox; stops what it started. */
export async function runApiDocumentScenario(
  stack: BenchStack,
  options: ApiDocumentOptions,
): Promise<ApiDocumentResult> {
  const cleanups = new CleanupList();
  const scratch = mkdtempSync(join(tmpdir(), 'bench-api-document-'));
  cleanups.add('scratch', () => rmSync(scratch, { recursive: true, force: true }));
  try {
    const s3 = await startLocalS3({ cleanups, log: options.log });
    const apiKey = newApiKey();
    const keysFile = join(scratch, 'api-keys.json');
    writeFileSync(
      keysFile,
      JSON.stringify({
        keys: [{ id: 'bench', sha256: hashApiKey(apiKey), scopes: ['orders:write', 'orders:read'] }],
      }),
    );
    const taskQueue = `bench-api-document-${options.runId}`;
    const payloadKeys = generatePayloadKeyEntry('kbench');
    const maxDocumentBytes = String(options.bytes + 1024 * 1024);
    // What `docker compose` gives both with DOCUMENT_STORE=s3 (compose's s3 profile), on loopback.
    const storeEnv = {
      DOCUMENT_STORE: 's3',
      DOCUMENT_STORE_S3_BUCKET: s3.bucket,
      DOCUMENT_STORE_S3_ENDPOINT: s3.endpoint,
      DOCUMENT_STORE_S3_REGION: s3.region,
      DOCUMENT_STORE_S3_ACCESS_KEY_ID: s3.accessKeyId,
      DOCUMENT_STORE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      MAX_DOCUMENT_BYTES: maxDocumentBytes,
    };
    const port = await findFreePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const api = startTsProcess({
      name: 'api',
      script: 'src/main/api.ts',
      env: {
        TEMPORAL_ADDRESS: stack.server.address,
        TEMPORAL_NAMESPACE: stack.server.namespace,
        TEMPORAL_TASK_QUEUE: taskQueue,
        PAYLOAD_KEYS: payloadKeys,
        API_HOST: '127.0.0.1',
        API_PORT: String(port),
        API_KEYS_FILE: keysFile,
        // A gigabyte takes longer than the default 30 s a caller has for one request.
        API_REQUEST_TIMEOUT_MS: String(30 * 60_000),
        DOCUMENTS_ROOT: stack.documentsRoot,
        LOG_LEVEL: options.workerLogLevel,
        ...storeEnv,
      },
    });
    cleanups.add('api', () => api.stop());
    const [bundle] = stack.bundles;
    if (!bundle) throw new Error('the bench stack has no workflow bundle');
    const worker = startTsProcess({
      name: 'api-document worker',
      script: 'src/main/worker.ts',
      env: workerProcessEnv(
        {
          temporal: { address: stack.server.address, namespace: stack.server.namespace, taskQueue },
          platform: { baseUrl: stack.sandbox.baseUrl, ...stack.user },
          documentsRoot: stack.documentsRoot,
          workflowBundlePath: fileURLToPath(bundle.url),
          payloadKeys,
          logLevel: options.workerLogLevel,
          ensureSearchAttributes: false,
        },
        storeEnv,
      ),
    });
    cleanups.add('api-document worker', () => worker.stop());
    await Promise.all([
      waitUntilServing(api, `${apiUrl}/healthz`, { timeoutMs: 120_000 }),
      waitUntilPolling(stack.client, taskQueue, [worker]),
    ]);

    const headers = { [API_KEY_HEADER]: apiKey, 'content-type': 'application/json' };
    const placeOrder = async (
      orderRef: string,
      ref: string,
    ): Promise<{ seconds: number; status: string | null }> => {
      const begin = performance.now();
      const placed = await fetch(`${apiUrl}/v1/orders/${orderRef}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({
          vehicle: { licensePlate: 'B-API 1024' },
          badge: { type: 'green' },
          documents: [{ ref }],
        }),
      });
      if (placed.status !== 201) throw new Error(`PUT ${orderRef}: ${placed.status} ${await placed.text()}`);
      for (;;) {
        const view = (await (await fetch(`${apiUrl}/v1/orders/${orderRef}`, { headers })).json()) as {
          status: string | null;
          closedAt: string | null;
        };
        if (view.closedAt !== null || (view.status !== null && view.status !== 'Running')) {
          return { seconds: (performance.now() - begin) / 1000, status: view.status };
        }
        // Polling the status the way a backend would; the order takes seconds, so 250 ms is fine-grained.
        await new Promise((resolveWait) => setTimeout(resolveWait, 250));
      }
    };
    const upload = async (bytes: number): Promise<string> => {
      const answer = await uploadGenerated(`${apiUrl}/v1/documents`, apiKey, bytes);
      if (answer.status !== 201) throw new Error(`POST /v1/documents: ${answer.status} ${answer.body}`);
      return (JSON.parse(answer.body) as { ref: string }).ref;
    };

    // Warm both up (connections, token, compiled code) so the growth is the document's.
    for (let index = 0; index < 2; index++) {
      // Over one part (5 MiB): the multipart upload path is loaded and compiled before the measurement. No
      // larger than the measured document, which is what the API's MAX_DOCUMENT_BYTES is made for.
      const ref = await upload(Math.min(24 * 1024 * 1024, options.bytes) + index);
      await placeOrder(`${options.runId}-api-document-warmup-${index}`, ref);
    }

    options.log(`streaming ${(options.bytes / 1024 / 1024).toFixed(0)} MB through the API into S3`);
    const apiBefore = readProcMemory(api.pid).rssBytes;
    const workerBefore = readProcMemory(worker.pid).rssBytes;
    const apiReset = resetPeakRss(api.pid);
    const workerReset = resetPeakRss(worker.pid);
    const uploadBegin = performance.now();
    const ref = await upload(options.bytes);
    const uploadSeconds = (performance.now() - uploadBegin) / 1000;
    options.log(`stored as ${ref.slice(0, 19)}…; placing the order`);
    const order = await placeOrder(`${options.runId}-api-document`, ref);
    const megabytes = options.bytes / 1024 / 1024;
    return {
      documentBytes: options.bytes,
      uploadSeconds,
      uploadMegabytesPerSecond: megabytes / uploadSeconds,
      orderSeconds: order.seconds,
      orderMegabytesPerSecond: megabytes / order.seconds,
      orderStatus: order.status,
      api: growthOf(api.pid, apiBefore, apiReset),
      worker: growthOf(worker.pid, workerBefore, workerReset),
    };
  } finally {
    await cleanups.run().catch(() => undefined);
  }
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The target rows: each process's peak RSS growth below {@link RSS_GROWTH_TARGET_BYTES}. */
export function apiDocumentTargets(result: ApiDocumentResult): TargetResult[] {
  const size = mb(result.documentBytes);
  return (['api', 'worker'] as const).map((name) => ({
    name: `${name} RSS growth, ${size} via POST /v1/documents and S3`,
    target: `< ${mb(RSS_GROWTH_TARGET_BYTES)}`,
    measured: `${mb(result[name].rssGrowthBytes)}${result[name].peakReset ? '' : ' (VmHWM not reset)'}`,
    met: result[name].rssGrowthBytes < RSS_GROWTH_TARGET_BYTES && result.orderStatus === 'Completed',
  }));
}

/** The scenario's lines for the text report. */
export function formatApiDocument(result: ApiDocumentResult): string {
  const row = (name: 'api' | 'worker'): string =>
    `  ${name.padEnd(7)} RSS ${mb(result[name].rssBeforeBytes)} → peak ${mb(result[name].peakRssBytes)} ` +
    `(growth ${mb(result[name].rssGrowthBytes)})`;
  return [
    `Document through the API (${mb(result.documentBytes)}, POST /v1/documents → S3 → worker → sandbox)`,
    `  upload  ${result.uploadSeconds.toFixed(1)} s (${result.uploadMegabytesPerSecond.toFixed(1)} MB/s)`,
    `  order   ${result.orderSeconds.toFixed(1)} s (${result.orderMegabytesPerSecond.toFixed(1)} MB/s), status ${result.orderStatus ?? 'none'}`,
    row('api'),
    row('worker'),
    '',
  ].join('\n');
}
