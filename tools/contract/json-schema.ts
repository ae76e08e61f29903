/**
 * `npm run contract:json-schema`: writes the contract as JSON Schema (2020-12) to `schemas/*.json`, for backends
 * in other languages: what an order input looks like, the operator actions' inputs, what the status query and a
 * completed order answer, and a webhook's body (formatted as the repository's prettier formats JSON). Commit the result;
 * `test/api/contract-json-schema.unit.test.ts` fails when the committed files differ from what this writes.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import { jsonSchemaOf, type JsonSchema } from '../../src/api/openapi';
import {
  badgeOrderInputSchema,
  badgeOrderResultSchema,
  badgeOrderStatusViewSchema,
  documentStateSchema,
  reconcileDocumentInputSchema,
  reconcileOrderInputSchema,
  replaceDocumentInputSchema,
  setDocumentOwnerInputSchema,
  webhookEventSchema,
} from '../../src/contract';
import { problemSchema } from '../../src/http-contract';
import { runMain } from '../../src/main/run-main';

/** The folder the schemas are written to. */
const SCHEMAS_DIR = resolve(__dirname, '../../schemas');

interface Entry {
  readonly title: string;
  readonly description: string;
  readonly schema: z.ZodType;
  readonly io: 'input' | 'output';
}

const ENTRIES: Readonly<Record<string, Entry>> = {
  'badge-order-input': {
    title: 'BadgeOrderInput',
    description:
      'Input of the badgeOrder workflow and body of PUT /v1/orders/{orderRef}. Limits JSON Schema cannot state ' +
      '(data size, nesting, unique document paths) are checked by the service.',
    schema: badgeOrderInputSchema,
    io: 'input',
  },
  'badge-order-result': {
    title: 'BadgeOrderResult',
    description: 'Result of a completed badgeOrder workflow.',
    schema: badgeOrderResultSchema,
    io: 'output',
  },
  'badge-order-status-view': {
    title: 'BadgeOrderStatusView',
    description:
      'Answer of the status query (and of the reconcileOrder, reconcileDocument and setDocumentOwner updates).',
    schema: badgeOrderStatusViewSchema,
    io: 'output',
  },
  'document-state': {
    title: 'DocumentState',
    description: 'One document of an order; answer of the replaceDocument update.',
    schema: documentStateSchema,
    io: 'output',
  },
  'replace-document-input': {
    title: 'ReplaceDocumentInput',
    description: 'Argument of the replaceDocument update.',
    schema: replaceDocumentInputSchema,
    io: 'input',
  },
  'reconcile-order-input': {
    title: 'ReconcileOrderInput',
    description: 'Argument of the reconcileOrder update.',
    schema: reconcileOrderInputSchema,
    io: 'input',
  },
  'reconcile-document-input': {
    title: 'ReconcileDocumentInput',
    description: 'Argument of the reconcileDocument update.',
    schema: reconcileDocumentInputSchema,
    io: 'input',
  },
  'set-document-owner-input': {
    title: 'SetDocumentOwnerInput',
    description: 'Argument of the setDocumentOwner update.',
    schema: setDocumentOwnerInputSchema,
    io: 'input',
  },
  'webhook-event': {
    title: 'WebhookEvent',
    description:
      'The JSON body of a webhook (docs/webhooks.md): what happened to the order. The same id on every delivery ' +
      'of one event.',
    schema: webhookEventSchema,
    io: 'output',
  },
  problem: {
    title: 'Problem',
    description: 'An RFC 9457 problem detail, as the HTTP API refuses requests.',
    schema: problemSchema,
    io: 'output',
  },
};

/** Every exported schema by file name (without `.json`). */
export function contractJsonSchemas(): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(ENTRIES).map(([name, entry]) => [
      name,
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: `https://badge-orders.invalid/schemas/${name}.json`,
        title: entry.title,
        description: entry.description,
        ...jsonSchemaOf(entry.schema, entry.io),
      },
    ]),
  );
}

async function main(): Promise<void> {
  // Loaded here, not at the top: the committed-schemas test imports this module, and jest cannot load prettier.
  const { format, resolveConfig } = await import('prettier');
  mkdirSync(SCHEMAS_DIR, { recursive: true });
  const schemas = contractJsonSchemas();
  // A schema that is no longer exported must not linger.
  for (const file of readdirSync(SCHEMAS_DIR)) {
    if (file.endsWith('.json') && !(file.slice(0, -5) in schemas)) rmSync(join(SCHEMAS_DIR, file));
  }
  for (const [name, schema] of Object.entries(schemas)) {
    const path = join(SCHEMAS_DIR, `${name}.json`);
    const options = (await resolveConfig(path)) ?? {};
    writeFileSync(path, await format(JSON.stringify(schema), { ...options, filepath: path }));
    console.log(`wrote ${path}`);
  }
}

if (require.main === module) {
  runMain(main);
}
