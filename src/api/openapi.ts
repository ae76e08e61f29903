/**
 * The OpenAPI 3.1 document of the API, generated from the operations table of src/http-contract.ts and its zod
 * schemas (`z.toJSONSchema`, JSON Schema 2020-12, which OpenAPI 3.1 uses as is). Served at `/openapi.json`;
 * the docs page is rendered from it.
 */
import { z } from 'zod';
import { COMMON_PROBLEMS, problemSchema, type Operation } from '../http-contract';
import { PROBLEM_CONTENT_TYPE } from './problem';
import { packageVersion } from '../version';

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of a zod schema: `input` for what callers send (before defaults and transforms), `output` for
 * what the API answers. Checks zod cannot express in JSON Schema (refinements) are left to the API's answer.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonSchema;
  void _ignored;
  return rest;
}

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** Problem answers, each with its reason. */
const PROBLEM_REASONS: Readonly<Record<number, string>> = {
  400: 'Invalid input: `errors` names each invalid field',
  401: 'Credentials missing, invalid or expired',
  403: 'The caller lacks the scope the operation needs',
  404: 'No such order (or document)',
  409: 'Refused in the order’s current state, or a different input under a used orderRef',
  413: 'The body (or the document) is larger than the API accepts',
  415: 'The body is not of the media type the operation takes',
  429: 'Too many requests for this key: wait `retry-after` seconds',
  431: 'The request line or headers are too large',
  500: 'The request failed unexpectedly; it was logged',
  503: 'Temporal or the identity provider cannot be reached now: repeat shortly',
  504: 'Temporal did not answer in time; the outcome is unknown: repeat the request (every request may be repeated)',
};

/** The `responses` entries of the problem answers an operation documents. */
function problemResponses(operation: Operation): Record<string, unknown> {
  const statuses = new Set<number>([...COMMON_PROBLEMS, ...operation.problems]);
  return Object.fromEntries(
    [...statuses]
      .sort((a, b) => a - b)
      .map((status) => [
        String(status),
        {
          description: PROBLEM_REASONS[status] ?? 'Refused',
          content: { [PROBLEM_CONTENT_TYPE]: { schema: ref('Problem') } },
        },
      ]),
  );
}

function parameters(operation: Operation): JsonSchema[] {
  const of = (shape: z.ZodObject | undefined, where: 'path' | 'query'): JsonSchema[] =>
    Object.entries(shape?.shape ?? {}).map(([name, schema]) => ({
      name,
      in: where,
      required: where === 'path' || !(schema as z.ZodType).safeParse(undefined).success,
      schema: jsonSchemaOf(schema as z.ZodType, 'input'),
    }));
  return [...of(operation.params, 'path'), ...of(operation.query, 'query')];
}

/** The OpenAPI 3.1 document of these operations, versioned as the service (package.json). */
export function buildOpenApiDocument(operations: readonly Operation[]): JsonSchema {
  const schemas: Record<string, JsonSchema> = { Problem: jsonSchemaOf(problemSchema, 'output') };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(operation.responses)) {
      const [name, schema] = response.schema;
      schemas[name] = jsonSchemaOf(schema, 'output');
      responses[status] = {
        description: response.description,
        content: { 'application/json': { schema: ref(name) } },
      };
    }
    Object.assign(responses, problemResponses(operation));
    let requestBody: unknown;
    if (operation.body) {
      const [name, schema] = operation.body;
      schemas[name] = jsonSchemaOf(schema, 'input');
      const media = operation.bodyType ?? 'application/json';
      requestBody = { required: true, content: { [media]: { schema: ref(name) } } };
    }
    paths[operation.path] = {
      ...paths[operation.path],
      [operation.method.toLowerCase()]: {
        operationId: operation.operationId,
        summary: operation.summary,
        description: `${operation.description}\n\nScope: \`${operation.scope}\`.`,
        security: [{ apiKey: [] }, { bearer: [operation.scope] }],
        ...(operation.params || operation.query ? { parameters: parameters(operation) } : {}),
        ...(requestBody === undefined ? {} : { requestBody }),
        responses,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'badge-orders API',
      version: packageVersion(),
      description:
        'Place badge orders and follow them from any backend. Every answer that refuses a request is an RFC 9457 ' +
        'problem detail (application/problem+json). See docs/api.md.',
    },
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'An API key from the keys file',
        },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An OIDC access token' },
      },
    },
  };
}
