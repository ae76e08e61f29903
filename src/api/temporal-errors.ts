/**
 * What the API answers when Temporal does not: a call that takes too long (504: its outcome is unknown, so
 * the caller repeats it — every call of the API may be repeated), Temporal unreachable (503), a namespace
 * without the search attributes (503, saying what to run).
 */
import { BADGE_SEARCH_ATTRIBUTES } from '../workflow-contract';
import { ApiProblem } from './problem';

/** gRPC status codes the API tells apart. */
const GRPC = { INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, UNAVAILABLE: 14 } as const;

/**
 * Runs `work`, answering 504 when it takes longer than `ms` (the work itself goes on), or the problem `late`
 * gives.
 */
export async function withinTime<T>(
  ms: number,
  what: string,
  work: Promise<T>,
  late: () => ApiProblem = () =>
    new ApiProblem({
      status: 504,
      code: 'temporal-timeout',
      detail: `${what} took longer than ${ms} ms; its outcome is unknown: repeat the request`,
    }),
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `error` and its causes, at most five deep. */
function* causes(error: unknown): Generator<Error> {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    yield current;
    current = current.cause;
  }
}

/** The gRPC status code of a Temporal service error, or undefined. */
function grpcCode(error: unknown): number | undefined {
  for (const current of causes(error)) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

/** The problems of the other gRPC codes the API tells apart. */
const PROBLEMS_OF_CODES: Readonly<Record<number, ConstructorParameters<typeof ApiProblem>[0]>> = {
  [GRPC.UNAVAILABLE]: {
    status: 503,
    code: 'temporal-unavailable',
    detail: 'Temporal cannot be reached now; repeat the request shortly',
    headers: { 'retry-after': '5' },
  },
  [GRPC.DEADLINE_EXCEEDED]: {
    status: 504,
    code: 'temporal-timeout',
    detail: 'Temporal did not answer in time; the outcome is unknown: repeat the request',
  },
};

/** The problem for an error from Temporal that no route handles itself, or undefined (a 500). */
export function temporalProblem(error: unknown): ApiProblem | undefined {
  const code = grpcCode(error);
  const unregistered =
    code === GRPC.INVALID_ARGUMENT
      ? [...causes(error)]
          .map((cause) =>
            /Namespace (\S+) has no mapping defined for search attribute (\w+)/.exec(cause.message),
          )
          .find((match) => match !== null)
      : undefined;
  if (unregistered) {
    // A fresh namespace: nothing registered the search attributes yet (a worker and the API do at start).
    const [, namespace = '', name = ''] = unregistered;
    return new ApiProblem({
      status: 503,
      code: 'search-attributes-missing',
      detail:
        `Temporal's namespace ${namespace} has no search attribute ${name} yet. Start a worker (it adds the ` +
        `search attributes), restart the API with ENSURE_SEARCH_ATTRIBUTES on (the default), or add them as ` +
        `Keyword: temporal operator search-attribute create --namespace ${namespace} --type Keyword --name ` +
        `${BADGE_SEARCH_ATTRIBUTES.map((key) => key.name).join(' --name ')} (Temporal Cloud: tcld)`,
      headers: { 'retry-after': '30' },
    });
  }
  const known = code === undefined ? undefined : PROBLEMS_OF_CODES[code];
  return known === undefined ? undefined : new ApiProblem(known);
}

/** Whether Temporal refused the request's arguments (a page token that is not one of its own, say). */
export function isInvalidArgument(error: unknown): boolean {
  return grpcCode(error) === GRPC.INVALID_ARGUMENT;
}
