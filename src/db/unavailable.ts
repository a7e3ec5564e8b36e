/**
 * "The database is unavailable": a failure that says nothing about the request and that the
 * same request may get past a few seconds later (a connection refused or cut, a wait past its
 * limit, a lock another process holds, a full disk). The error handler answers these 503
 * SERVICE_UNAVAILABLE with Retry-After, and logs a warning instead of a bug's stack trace.
 * Everything else (a constraint, a syntax error) stays what it is.
 */

/** Our own: a wait past one of the limits in limits.ts, or a connection already known to be lost. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/** Node's socket errors: the server is not there, or the connection to it broke. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT',
  'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), class 53 (insufficient resources: disk
 * full, out of memory, too many connections), 57014 (statement_timeout cancelled it), 57P01–57P03
 * (the server is shutting down, crashed, or not yet accepting connections), 58030 (an I/O error),
 * 25006 (a read-only transaction: the server we reached is a standby, as during a failover).
 */
const PG_STATE = /^(08...|53...|57014|57P0[123]|58030|25006)$/;

/**
 * What pg (8.23) and pg-pool (3.14) throw with no code when a connection ends or a wait runs out;
 * found in their sources under node_modules (client.js, index.js).
 */
const PG_MESSAGE = /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|timeout expired|Query read timeout|Client has encountered a connection error and is not queryable)$/;

/**
 * better-sqlite3's result codes: another connection holds the lock past busy_timeout (BUSY,
 * LOCKED), the disk or the database's size limit is full (FULL), the file cannot be read,
 * written or opened (IOERR_*, CANTOPEN).
 */
const SQLITE_CODE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN)(_[A-Z_]+)?$/;

function isUnavailableItself(error: object): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || SQLITE_CODE.test(code)) return true;
    // pg's DatabaseError carries the SQLSTATE; its severity tells it from other five-character codes.
    if ('severity' in error && PG_STATE.test(code)) return true;
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && PG_MESSAGE.test(message);
}

/** Whether `error` (or what it wraps: `cause`, an AggregateError's errors) means the database is unavailable. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  if (isUnavailableItself(error)) return true;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (cause !== undefined && isDatabaseUnavailable(cause, depth + 1)) return true;
  return Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1));
}

/** A short, secret-free reason for the log line: the error's code, else its message. */
export function unavailableReason(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  return typeof code === 'string' ? `${code}${text ? `: ${text}` : ''}` : text;
}

/**
 * What a log line of background work says of a failure: an outage as its short reason (one line, no stack:
 * the database is away, nothing of ours is wrong), anything else as the error with its stack.
 */
export function failureFields(error: unknown): { reason: string } | { err: unknown } {
  return isDatabaseUnavailable(error) ? { reason: unavailableReason(error) } : { err: error };
}
