import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable, unavailableReason } from '../db/unavailable.js';
import { AppError } from './errors.js';

/**
 * Retry-After on every "the database is unavailable" 503. The outages it covers are a restart,
 * a failover, a pause, another process's lock, a full disk: seconds at best. /readyz notices the
 * database is back within 5 s, so retrying after that finds it back after a blip, and clients
 * retrying sooner would only add load to a database that is starting up.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The 503 for a database that does not answer (or does not answer in time). */
export function serviceUnavailable(message: string, cause: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', message, { cause, headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) } });
}

/** `error` as a 503 when it means the database is unavailable (db/unavailable.ts), else undefined. */
export function databaseUnavailable(error: unknown): AppError | undefined {
  if (!isDatabaseUnavailable(error)) return undefined;
  return serviceUnavailable('The service cannot reach its database right now. Try again in a few seconds.', error);
}

/** An outage, not a bug: one warning line with the reason, no stack trace. */
export function warnUnavailable(log: Pick<FastifyBaseLogger, 'warn'>, error: AppError, raw: unknown): void {
  log.warn({ code: error.code, reason: unavailableReason(error.cause ?? raw) }, 'request answered 503: service unavailable');
}
