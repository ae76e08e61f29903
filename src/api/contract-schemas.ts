/**
 * The contract as JSON Schema (2020-12) for backends in other languages: what an order input looks like, the
 * operator actions' inputs, and what the status query and a completed order answer. Written to `schemas/` by
 * `npm run contract:json-schema`; a unit test fails when the committed files fall behind.
 */
import {
  badgeOrderInputSchema,
  reconcileOrderInputSchema,
  replaceDocumentInputSchema,
  setDocumentOwnerInputSchema,
} from '../contract';
import { jsonSchemaOf, type JsonSchema } from './openapi';
import { documentStateSchema, orderResultSchema, problemSchema, statusViewSchema } from './schemas';
import type { z } from 'zod';

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
    schema: orderResultSchema,
    io: 'output',
  },
  'badge-order-status-view': {
    title: 'BadgeOrderStatusView',
    description: 'Answer of the status query (and of the reconcileOrder update).',
    schema: statusViewSchema,
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
  'set-document-owner-input': {
    title: 'SetDocumentOwnerInput',
    description: 'Argument of the setDocumentOwner update.',
    schema: setDocumentOwnerInputSchema,
    io: 'input',
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
