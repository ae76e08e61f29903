/**
 * What the API answers for Temporal's refusals no route handles: a namespace without the search attributes
 * (a fresh one, before any worker or API added them) is a 503 saying what to run, never a 500.
 */
import { ServiceError } from '@temporalio/client';
import { temporalProblem } from '../../src/api/temporal-errors';

/** A gRPC error as @grpc/grpc-js raises it, wrapped as the Temporal client rethrows it. */
function temporalError(code: number, details: string): ServiceError {
  const grpc = Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
  return new ServiceError('Failed to start Workflow', { cause: grpc });
}

describe('temporalProblem', () => {
  it('answers 503 search-attributes-missing, naming the namespace and the command, for an unknown search attribute', () => {
    const problem = temporalProblem(
      temporalError(
        3,
        'INVALID_ARGUMENT: Namespace fresh has no mapping defined for search attribute BadgeOrderRef',
      ),
    );
    expect(problem).toMatchObject({ status: 503, code: 'search-attributes-missing' });
    expect(problem?.headers['retry-after']).toBeDefined();
    expect(problem?.message).toContain(
      'temporal operator search-attribute create --namespace fresh --type Keyword --name BadgeOrderRef --name BadgeOrderId --name BadgeOrderStatus',
    );
  });

  it('leaves other invalid arguments to the routes (and the 500 they deserve)', () => {
    expect(temporalProblem(temporalError(3, 'INVALID_ARGUMENT: something else'))).toBeUndefined();
  });

  it('still answers 503 when Temporal cannot be reached', () => {
    expect(temporalProblem(temporalError(14, 'UNAVAILABLE: no connection'))).toMatchObject({
      status: 503,
      code: 'temporal-unavailable',
    });
  });
});
