/**
 * The sandbox's run-time configuration — fault injection and validation rules — as zod schemas.
 *
 * The same schemas validate the options of `startSandbox`, the CLI flags and the bodies of
 * `PUT /_sandbox/faults` and `PUT /_sandbox/rules`, so all three accept exactly the same values.
 */
import { z } from 'zod';
import { SANDBOX_ROUTES } from './shapes';

/**
 * What a deterministic `failNext` rule does to a request:
 * - `error-500` / `error-502` / `error-503`: answer that status before anything happens;
 * - `rate-limit`: answer 429 with `Retry-After`;
 * - `drop`: destroy the connection without an answer, before anything happens;
 * - `unauthorized`: answer 401 as if the token had expired (not for the token call itself, which then answers 401
 *   as for wrong credentials);
 * - `commit-then-500` / `commit-then-503` / `commit-then-drop`: store the order or document (and remember the
 *   idempotent response), then answer 500 / 503 or drop the connection. On `auth` and `stocks`, which store
 *   nothing, they act like `error-500` / `error-503` / `drop`.
 */
export const FAULT_KINDS = [
  'error-500',
  'error-502',
  'error-503',
  'rate-limit',
  'drop',
  'unauthorized',
  'commit-then-500',
  'commit-then-503',
  'commit-then-drop',
] as const;

/** One fault kind; see {@link FAULT_KINDS}. */
export type FaultKind = (typeof FAULT_KINDS)[number];

const routeSchema = z.enum(SANDBOX_ROUTES);
const share = z.number().min(0).max(1);

/** A deterministic fault: the next `count` requests to `route` (any platform route if omitted) get `kind`. */
const failNextRuleSchema = z.strictObject({
  route: routeSchema.optional(),
  count: z.number().int().min(1).default(1),
  kind: z.enum(FAULT_KINDS),
});

/** Input form of a `failNext` rule (`count` defaults to 1). */
export type FailNextRule = z.input<typeof failNextRuleSchema>;

const latencySchema = z.union([
  z.number().min(0),
  z
    .strictObject({ min: z.number().min(0), max: z.number().min(0) })
    .refine((range) => range.min <= range.max, { message: 'min must not exceed max', path: ['min'] }),
]);

/**
 * Fault configuration. Everything is off when omitted.
 *
 * The probabilistic shares (`errorRate`, `rateLimitRate`, `dropRate`, `commitThenFailRate`) are drawn with one
 * random number per request, so they are exclusive and must add up to at most 1. They and `latencyMs` apply to
 * the routes in `routes` (all four by default). `failNext` rules take precedence over the shares, are consumed
 * in order, one per matching request whatever its outcome, and are independent of `routes`. `maintenance`
 * answers 503 on every platform route, including the token call.
 */
const faultConfigSchema = z
  .strictObject({
    /** Routes the probabilistic faults and the latency apply to. @default all four */
    routes: z.array(routeSchema).optional(),
    /** Share of requests answered with 500, 502 or 503 (picked from `errorStatuses`). @default 0 */
    errorRate: share.optional(),
    /** Statuses `errorRate` picks from, uniformly. @default [500, 502, 503] */
    errorStatuses: z
      .array(z.union([z.literal(500), z.literal(502), z.literal(503)]))
      .min(1)
      .optional(),
    /** Share of requests answered with 429 and `Retry-After`. @default 0 */
    rateLimitRate: share.optional(),
    /** Value of `Retry-After` (seconds) on 429 and maintenance 503 answers. @default 1 */
    retryAfterSeconds: z.number().int().min(0).optional(),
    /** Share of requests whose connection is destroyed without an answer. @default 0 */
    dropRate: share.optional(),
    /** Share of order and document requests that are stored and then fail (see `commitThenFailModes`). @default 0 */
    commitThenFailRate: share.optional(),
    /** How a commit-then-fail answers, picked uniformly. @default ['500', '503', 'drop'] */
    commitThenFailModes: z
      .array(z.enum(['500', '503', 'drop']))
      .min(1)
      .optional(),
    /** Added latency in milliseconds: fixed, or uniformly drawn from `{ min, max }`. @default 0 */
    latencyMs: latencySchema.optional(),
    /** When true every platform route (including the token call) answers 503 `maintenance`. @default false */
    maintenance: z.boolean().optional(),
    /** Deterministic faults for the next requests (a single rule is accepted too; see {@link FaultConfig}). */
    failNext: z.array(failNextRuleSchema).optional(),
  })
  .refine(
    (config) =>
      (config.errorRate ?? 0) +
        (config.rateLimitRate ?? 0) +
        (config.dropRate ?? 0) +
        (config.commitThenFailRate ?? 0) <=
      1,
    {
      message: 'errorRate + rateLimitRate + dropRate + commitThenFailRate must not exceed 1',
      path: ['errorRate'],
    },
  );

/**
 * Fault configuration as accepted by `startSandbox`, the control API and `SandboxControl.setFaults`; see
 * {@link faultConfigSchema} for the meaning of each field. `failNext` may be one rule or a list.
 */
export type FaultConfig = Omit<z.input<typeof faultConfigSchema>, 'failNext'> & {
  failNext?: FailNextRule | FailNextRule[];
};

/** Validation rules of the document API and the token lifetime; all changeable at run time. */
export interface SandboxRules {
  /** Content types a document may have. @default ['image/jpeg', 'image/png', 'application/pdf'] */
  acceptedContentTypes: string[];
  /** Largest accepted document in bytes. @default 20 MiB */
  maxUploadBytes: number;
  /** Lifetime of newly issued tokens in seconds (fractional allowed). @default 900 */
  tokenTtlSeconds: number;
}

/** Default rules. */
export const DEFAULT_RULES: Readonly<SandboxRules> = Object.freeze({
  acceptedContentTypes: ['image/jpeg', 'image/png', 'application/pdf'],
  maxUploadBytes: 20 * 1024 * 1024,
  tokenTtlSeconds: 900,
});

/** A partial rules update: omitted fields keep their current value. */
const rulesUpdateSchema = z.strictObject({
  acceptedContentTypes: z.array(z.string().min(1)).optional(),
  maxUploadBytes: z.number().int().min(1).optional(),
  tokenTtlSeconds: z.number().positive().optional(),
});

/** Input of `PUT /_sandbox/rules` and the `rules` start option. */
export type SandboxRulesUpdate = z.input<typeof rulesUpdateSchema>;

/** Formats a zod error as `field: message; field: message`, naming each offending field. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message}`)
    .join('; ');
}

/** Thrown by {@link parseFaultConfig} and {@link parseRulesUpdate} when a configuration is invalid. */
export class SandboxConfigError extends Error {
  override readonly name = 'SandboxConfigError';
  constructor(
    message: string,
    /** The first offending field, dotted (e.g. `failNext.0.kind`). */
    readonly field: string | undefined,
  ) {
    super(message);
  }
}

function parseWith<T extends z.ZodType>(schema: T, what: string, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const first = result.error.issues[0];
    throw new SandboxConfigError(
      `invalid ${what}: ${describeZodError(result.error)}`,
      first && first.path.length > 0 ? first.path.join('.') : undefined,
    );
  }
  return result.data;
}

/** Validated fault configuration with defaults applied. */
export type ParsedFaultConfig = z.output<typeof faultConfigSchema>;

/** Validates a fault configuration; throws {@link SandboxConfigError} naming the field. */
export function parseFaultConfig(input: unknown): ParsedFaultConfig {
  // A single failNext rule is shorthand for a list of one; normalising first gives precise error paths.
  const normalised =
    typeof input === 'object' && input !== null && 'failNext' in input && !Array.isArray(input.failNext)
      ? { ...input, failNext: input.failNext === undefined ? undefined : [input.failNext] }
      : input;
  return parseWith(faultConfigSchema, 'fault configuration', normalised);
}

/** Validates a rules update; throws {@link SandboxConfigError} naming the field. */
export function parseRulesUpdate(input: unknown): z.output<typeof rulesUpdateSchema> {
  return parseWith(rulesUpdateSchema, 'rules', input);
}
