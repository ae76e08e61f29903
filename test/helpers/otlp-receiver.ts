/**
 * A small OTLP/HTTP trace receiver for tests: listens on loopback (or a given address; port 0), accepts `POST /v1/traces` in JSON
 * (`http/json`) or protobuf (`http/protobuf`) and keeps every span it was sent, flattened.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received span. Ids are lower-case hex; `parentSpanId` is '' for a root span. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** `service.name` of the resource that sent it. */
  readonly service: string;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

/** A running receiver; `close()` it at the end. */
export interface OtlpReceiver {
  /** Base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT` (spans go to `<url>/v1/traces`). */
  readonly url: string;
  /** Every span received so far, in arrival order. */
  spans(): readonly ReceivedSpan[];
  /** Raw bodies received so far (decoded to text for JSON), to look for what must never be sent. */
  bodies(): readonly string[];
  close(): Promise<void>;
}

interface OtlpAnyValue {
  stringValue?: string | null;
  intValue?: number | string | { toString(): string } | null;
  doubleValue?: number | null;
  boolValue?: boolean | null;
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue | null;
}
interface OtlpSpan {
  traceId: string | Uint8Array;
  spanId: string | Uint8Array;
  parentSpanId?: string | Uint8Array | null;
  name: string;
  attributes?: OtlpKeyValue[] | null;
}
interface OtlpRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] | null } | null;
    scopeSpans?: Array<{ spans?: OtlpSpan[] | null }> | null;
  }> | null;
}

/** The OTLP protobuf messages, as the exporter's own transformer package generates them. */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a generated module without typings
const protobufRoot = require('@opentelemetry/otlp-transformer/build/src/generated/root') as {
  opentelemetry: {
    proto: {
      collector: { trace: { v1: { ExportTraceServiceRequest: { decode(bytes: Uint8Array): OtlpRequest } } } };
    };
  };
};
const protobufRequest = protobufRoot.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const hex = (id: string | Uint8Array | null | undefined): string =>
  id === null || id === undefined
    ? ''
    : typeof id === 'string'
      ? id.toLowerCase()
      : Buffer.from(id).toString('hex');

function valueOf(value: OtlpAnyValue | null | undefined): string | number | boolean {
  if (!value) return '';
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (typeof value.doubleValue === 'number') return value.doubleValue;
  if (value.intValue !== null && value.intValue !== undefined) return Number(value.intValue.toString());
  return '';
}

function attributesOf(list: OtlpKeyValue[] | null | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, valueOf(entry.value)]));
}

function flatten(request: OtlpRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name,
        service,
        attributes: attributesOf(span.attributes),
      })),
    );
  });
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Starts a receiver on `host` (127.0.0.1 unless told: another address of this machine, e.g. the Docker
 * bridge's, for exporters in containers), port 0.
 */
export async function startOtlpReceiver(options: { readonly host?: string } = {}): Promise<OtlpReceiver> {
  const host = options.host ?? '127.0.0.1';
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    readBody(request)
      .then((body) => {
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        const json = (request.headers['content-type'] ?? '').includes('json');
        bodies.push(json ? body.toString('utf8') : body.toString('latin1'));
        const decoded = json
          ? (JSON.parse(body.toString('utf8')) as OtlpRequest)
          : protobufRequest.decode(body);
        spans.push(...flatten(decoded));
        response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
        response.end(json ? '{}' : '');
      })
      .catch(() => {
        response.writeHead(400).end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    spans: () => [...spans],
    bodies: () => [...bodies],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
