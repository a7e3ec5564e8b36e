import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailable, warnUnavailable } from './database-unavailable.js';
import { AppError, type ErrorCode } from './errors.js';
import { isUpstreamFailure, warnUpstream } from './upstream-failure.js';
import { describeValidationErrors, summarize } from './validation.js';

/**
 * A failure on a route answered with HTML: the status to answer, and the AppError when the failure
 * is one (an AppError thrown, or the database unavailable); undefined for Fastify's own failures
 * (a wrong media type, a body too large…), which a page describes in general words.
 */
export interface PageFailure {
  status: number;
  error: AppError | undefined;
}

/**
 * Renders and sends the error page of a feature that serves HTML (forms/hosted-page.ts). The handler
 * has already logged the failure and set the AppError's headers (Retry-After, RateLimit-*…); the
 * renderer sets the status, its own headers (type, CSP, cache) and the page. The markup stays in the feature.
 */
export type ErrorPageRenderer = (request: FastifyRequest, reply: FastifyReply, failure: PageFailure) => FastifyReply;

/**
 * Routes that speak another error shape mark themselves with this config: RFC 6749 §5.2
 * (`{error, error_description}`) on the OAuth endpoints, JSON-RPC 2.0 (`{jsonrpc, id, error}`) on MCP,
 * an HTML page on pages a browser shows (`errorPage` renders it).
 */
export interface RouteErrorConfig {
  errorFormat?: 'oauth' | 'jsonrpc' | 'html';
  /** With `errorFormat: 'html'`: the page (without one, the route's errors are JSON). */
  errorPage?: ErrorPageRenderer;
}

declare module 'fastify' {
  // Route options' `config` takes the error format (and the page renderer of the HTML one).
  interface FastifyContextConfig {
    errorFormat?: 'oauth' | 'jsonrpc' | 'html';
    errorPage?: ErrorPageRenderer;
  }
}

/**
 * JSON-RPC error codes for failures answered outside the MCP server: -32700 unreadable (not JSON,
 * not UTF-8, empty), -32602 a problem inside `params` (nested too deeply, bad text), -32600 any
 * other problem with the message, -32603 a failure of ours, -32000 a refusal (auth, Origin, size) or
 * the database unavailable (a 503 with Retry-After: the client may retry, unlike after -32603).
 */
function jsonRpcCode(error: AppError): number {
  if (error.code === 'SERVICE_UNAVAILABLE') return -32000;
  if (error.status >= 500) return -32603;
  if (error.code !== 'VALIDATION_ERROR') return -32000;
  if (/not valid JSON|not valid UTF-8|empty/.test(error.message)) return -32700;
  return error.field === 'params' || error.field?.startsWith('params.') ? -32602 : -32600;
}

/** The id of the JSON-RPC request being refused, when its body was read far enough to tell (a string or an integer), else null. */
function jsonRpcIdOf(body: unknown): string | number | null {
  const id = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as string | number) : null;
}

const BY_STATUS: Record<number, [ErrorCode, string]> = {
  400: ['VALIDATION_ERROR', 'The request could not be read.'],
  401: ['UNAUTHORIZED', 'This request needs authentication.'],
  403: ['FORBIDDEN', 'This request is not allowed.'],
  404: ['NOT_FOUND', 'Nothing exists at this address.'],
  405: ['NOT_FOUND', 'Nothing exists at this address for this method.'],
  408: ['REQUEST_TIMEOUT', 'The request took too long to arrive.'],
  409: ['CONFLICT', 'The request conflicts with the current state.'],
  413: ['PAYLOAD_TOO_LARGE', 'The request body is too large.'],
  414: ['URI_TOO_LONG', 'The request URL is too long.'],
  415: ['UNSUPPORTED_MEDIA_TYPE', 'This endpoint does not accept that Content-Type.'],
  429: ['RATE_LIMIT_EXCEEDED', 'Too many requests: slow down and try again later.'],
  431: ['HEADERS_TOO_LARGE', 'The request headers are too large.'],
  503: ['SERVICE_UNAVAILABLE', 'The service is unavailable; try again shortly.'],
};

/** Fastify's own failures (parsing, limits), as our codes. */
function fromFastifyError(error: FastifyError): AppError {
  if (error.validation) {
    const details = describeValidationErrors(error.validation as never, error.validationContext ?? 'body');
    // One field, even when a union (a number or null) reports each of its branches on it.
    const field = details[0] !== undefined && details.every((d) => d.path === details[0]!.path) ? details[0].path : undefined;
    return new AppError('VALIDATION_ERROR', summarize(details), { details, ...(field !== undefined ? { field } : {}) });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'This endpoint does not accept that Content-Type. Send application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'The request body is empty. Send a JSON object.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_ERROR', 'The Content-Length header does not match the body.');
    default:
      break;
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    const proto = /prototype/i.test(error.message);
    return new AppError('VALIDATION_ERROR', proto ? 'The request body may not contain "__proto__" or "constructor.prototype" keys.' : 'The request body is not valid JSON.');
  }
  // Anything else by its status, in our words: Fastify's messages can quote the request
  // (`'%s' is not a valid url component`, the Content-Type it refused…).
  const known = BY_STATUS[error.statusCode ?? 500];
  if (known) return new AppError(known[0], known[1]);
  return new AppError('INTERNAL_ERROR', 'Something went wrong on our side. Please try again; if it keeps happening, contact support with the request id.', { cause: error });
}

const OAUTH_ERRORS: Partial<Record<ErrorCode, string>> = {
  INVALID_CLIENT: 'invalid_client',
  INVALID_GRANT: 'invalid_grant',
  UNAUTHORIZED_CLIENT: 'unauthorized_client',
  UNSUPPORTED_GRANT_TYPE: 'unsupported_grant_type',
  INVALID_SCOPE: 'invalid_scope',
};

export function send(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  // Every 503 says when to come back (the API reference promises it): a draining server's, a mail relay's.
  if (error.status === 503 && error.headers['Retry-After'] === undefined) reply.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
  const config = request.routeOptions.config as RouteErrorConfig | undefined;
  if (config?.errorFormat === 'oauth' && error.status < 500) {
    // RFC 6749 §5.2: 401 for invalid_client, 400 for everything else, and any
    // other failure (wrong content type, bad parameters) is an invalid_request.
    reply.code(error.status === 401 ? 401 : 400);
    reply.header('Cache-Control', 'no-store');
    return reply.send({ error: OAUTH_ERRORS[error.code] ?? 'invalid_request', error_description: error.message });
  }
  if (config?.errorFormat === 'jsonrpc') {
    // Failures of the MCP endpoint outside the MCP server (auth, Origin, media type, size, a body
    // refused while reading it, and our own failures): the status says what happened, the body is
    // a JSON-RPC error an MCP client can show, for the request's id when it could be read, with
    // our code in `data`. Never the REST shape, whatever the status.
    reply.code(error.status);
    return reply.send({
      jsonrpc: '2.0',
      id: jsonRpcIdOf(request.body),
      error: { code: jsonRpcCode(error), message: error.message, data: { code: error.code, requestId: String(request.id) } },
    });
  }
  reply.code(error.status);
  return reply.send({
    success: false,
    error: error.message,
    code: error.code,
    requestId: String(request.id),
    ...(error.field !== undefined ? { field: error.field } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
    ...error.extra,
  });
}

/**
 * An outage is a warning, the outside world's failure (a tool, a model provider) a warning with its code, a
 * failure of ours an error with its stack, a refusal one info line.
 */
export function logFailure(log: FastifyRequest['log'], error: AppError | undefined, raw: unknown, status: number): void {
  if (error?.code === 'SERVICE_UNAVAILABLE') warnUnavailable(log, error, raw);
  else if (error !== undefined && isUpstreamFailure(error)) warnUpstream(log, error);
  else if (status >= 500) log.error({ err: raw }, 'request failed');
  else log.info({ code: error?.code }, 'request refused');
}

/**
 * A page's failure: an AppError as it is, Fastify's own failures by their own status. Not
 * fromFastifyError: its words are for API clients ("Send application/json"), the page's renderer
 * has its own. The AppError's headers are set here; no Retry-After is added to a 503 page (a
 * browser does not read it).
 */
function sendPage(request: FastifyRequest, reply: FastifyReply, render: ErrorPageRenderer, raw: FastifyError | AppError, known: AppError | undefined): FastifyReply {
  const status = known?.status ?? (raw as FastifyError).statusCode ?? 500;
  logFailure(request.log, known, raw, status);
  for (const [name, value] of Object.entries(known?.headers ?? {})) reply.header(name, value);
  return render(request, reply, { status, error: known });
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((raw: FastifyError | AppError, request, reply) => {
    const known = raw instanceof AppError ? raw : databaseUnavailable(raw);
    const config = request.routeOptions.config;
    if (config?.errorFormat === 'html' && config.errorPage) return sendPage(request, reply, config.errorPage, raw, known);
    const error = known ?? fromFastifyError(raw);
    logFailure(request.log, error, raw, error.status);
    return send(request, reply, error);
  });
  app.setNotFoundHandler((request, reply) =>
    send(request, reply, new AppError('NOT_FOUND', `There is no ${request.method} ${request.url.split('?')[0]} endpoint. See /docs for the API reference.`)),
  );
}

/**
 * Fastify's `frameworkErrors` option: failures found while routing (a malformed percent-encoding,
 * an over-long path parameter) get the same error shape as everything else.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError('NOT_FOUND', 'Nothing exists at this address: a path segment is too long.')
      : error.code === 'FST_ERR_BAD_URL'
        ? new AppError('VALIDATION_ERROR', 'The request URL is malformed (check its percent-encoding).')
        : fromFastifyError(error);
  void send(request, reply, appError);
}
