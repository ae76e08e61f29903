/**
 * RFC 9457 problem details: every refusal of the API is an `application/problem+json` body with a stable
 * `code`, a `detail` written for the caller, and, for invalid input, one entry per invalid field.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { Problem } from '../http-contract';

/** The media type of a problem detail. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** One invalid field of a request. */
type FieldError = Readonly<NonNullable<Problem['errors']>[number]>;

/** The fields of a problem, by the route that refuses the request. */
interface ApiProblemInit {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly title?: string;
  readonly errors?: readonly FieldError[];
  /** Extra response headers (`retry-after`, `www-authenticate`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Thrown by route handlers and hooks to answer with a problem detail; the error handler writes it. */
export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(init: ApiProblemInit) {
    super(init.detail);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title ?? STATUS_CODES[init.status] ?? 'Error';
    this.errors = init.errors;
    this.headers = init.headers ?? {};
  }
}

/** A 400 for invalid input, naming each field. */
export function invalidInput(errors: readonly FieldError[], what = 'request'): ApiProblem {
  return new ApiProblem({
    status: 400,
    code: 'invalid-input',
    title: 'Invalid input',
    detail: `The ${what} is invalid: ${errors.map((entry) => `${entry.field}: ${entry.message}`).join('; ')}`,
    errors,
  });
}

/** The body of a problem. */
export function problemBody(problem: ApiProblem, instance?: string): Problem {
  return {
    type: `urn:badge-orders:problem:${problem.code}`,
    title: problem.title,
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    ...(instance === undefined ? {} : { instance }),
    ...(problem.errors === undefined ? {} : { errors: [...problem.errors] }),
  };
}

/** Sends a problem as `application/problem+json`. */
export function sendProblem(reply: FastifyReply, problem: ApiProblem): FastifyReply {
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(problemBody(problem, reply.request.url.split('?')[0]));
}
