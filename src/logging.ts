/**
 * Structured logs (pino) for the service's processes. Secrets are redacted by key wherever they might appear,
 * as a second line of defence: the code never logs them on purpose.
 */
import pino, { type Logger, type LevelWithSilent } from 'pino';
import { DefaultLogger, type LogLevel, type LogMetadata } from '@temporalio/worker';

/** Keys whose values never reach a log line. */
export const REDACTED_KEYS = [
  'password',
  'token',
  'access_token',
  'accessToken',
  'authorization',
  'Authorization',
  'apiKey',
  'headers.authorization',
  'headers.Authorization',
  '*.password',
  '*.token',
  '*.access_token',
  '*.accessToken',
  '*.authorization',
  '*.Authorization',
  '*.apiKey',
];

/** Creates the process logger. */
export function createLogger(options: { readonly level: LevelWithSilent; readonly name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: REDACTED_KEYS, censor: '[redacted]' },
  });
}

const SDK_TO_PINO = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** Routes the Temporal SDK's logs (worker, workflows, activities) into pino. */
export function sdkLoggerFor(logger: Logger, level: LogLevel = 'INFO'): DefaultLogger {
  return new DefaultLogger(level, (entry) => {
    const meta: LogMetadata = entry.meta ?? {};
    logger[SDK_TO_PINO[entry.level]](meta, entry.message);
  });
}
