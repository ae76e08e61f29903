/** The error the sandbox's hooks and handlers throw to produce an error answer in the common body shape. */
import type { ErrorBody, ErrorCode, Scope } from './shapes';

/** Extra details of an error answer. */
export interface SandboxHttpErrorDetails {
  /** The field or multipart part at fault (validation errors). */
  field?: string;
  /** The missing scope (403). */
  scope?: Scope;
  /** Seconds for a `Retry-After` header (429, 409, maintenance 503). */
  retryAfterSeconds?: number;
  /** Ask Node to close the connection after the answer, e.g. when an upload is rejected mid-stream. */
  closeConnection?: boolean;
}

/** Thrown inside the sandbox to answer `status` with `{ error: { status, code, message, … } }`. */
export class SandboxHttpError extends Error {
  override readonly name = 'SandboxHttpError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: SandboxHttpErrorDetails = {},
  ) {
    super(message);
  }

  /** The error body sent to the client. */
  toBody(): ErrorBody {
    return {
      error: {
        status: this.status,
        code: this.code,
        message: this.message,
        ...(this.details.field !== undefined ? { field: this.details.field } : {}),
        ...(this.details.scope !== undefined ? { scope: this.details.scope } : {}),
      },
    };
  }
}

/** A 422 `validation_failed` naming `field`. */
export function validationError(field: string, message: string, closeConnection = false): SandboxHttpError {
  return new SandboxHttpError(422, 'validation_failed', message, { field, closeConnection });
}
