import type { FastifyBaseLogger } from 'fastify';
import type { AppError, ErrorCode } from './errors.js';

/**
 * Failures of the outside world, not of ours: a tool's endpoint or a model provider refused, failed, timed out
 * or answered what could not be used. They are logged as one warning line with the code and our message (which
 * never holds a key: the invoker and conversations/provider-errors.ts word them), never as an error with a
 * stack trace: error level means a bug of ours (docs/ARCHITECTURE.md, "Logs").
 */
const UPSTREAM: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'TOOL_TIMEOUT', 'TOOL_UNREACHABLE', 'TOOL_HTTP_ERROR', 'TOOL_INVALID_RESPONSE', 'TOOL_RESPONSE_TOO_LARGE',
  'MODEL_PROVIDER_ERROR', 'MODEL_PROVIDER_RATE_LIMITED', 'MODEL_PROVIDER_TIMEOUT',
]);

export const isUpstreamFailure = (error: AppError): boolean => UPSTREAM.has(error.code);

/** What a log line may say of a cause: its own short words (a provider's error class and message, already redacted). */
const MAX_REASON_CHARS = 300;

export function warnUpstream(log: Pick<FastifyBaseLogger, 'warn'>, error: AppError): void {
  const cause = error.cause;
  const reason = typeof cause === 'string' ? cause : undefined;
  // A tool call's id leads to its call log; the rest of `extra` (the endpoint's body) is the tenant's data, not the log's.
  const callId = error.extra?.callId;
  log.warn({
    code: error.code,
    message: error.message,
    ...(reason ? { reason: reason.slice(0, MAX_REASON_CHARS) } : {}),
    ...(typeof callId === 'string' ? { extra: { callId } } : {}),
  }, 'request failed upstream');
}
