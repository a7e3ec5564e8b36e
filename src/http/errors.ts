/**
 * The closed set of error codes and the HTTP status each one maps to.
 * Adding a code here is the only way to add a failure a client can see.
 */
export const ERROR_STATUS = {
  // Generic
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  INVALID_TOKEN: 401,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  /** A tenant has as many of a resource as its limit allows (http/tenant-limits.ts); the body carries `resource` and `limit`. */
  LIMIT_REACHED: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  // OAuth 2.0 (RFC 6749 §5.2); rendered in the RFC's own shape on the OAuth endpoints.
  INVALID_REQUEST: 400,
  INVALID_CLIENT: 401,
  INVALID_GRANT: 400,
  UNAUTHORIZED_CLIENT: 400,
  UNSUPPORTED_GRANT_TYPE: 400,
  INVALID_SCOPE: 400,
  // Developer apps
  APP_NOT_FOUND: 404,
  // Tools and catalog
  TOOL_NOT_FOUND: 404,
  ENDPOINT_NOT_ALLOWED: 400,
  INVALID_ARGUMENTS: 400,
  TOOL_NOT_ENABLED: 404,
  TOOL_CREDENTIALS_MISSING: 409,
  /** An oauth2 installation's connection was refused by its provider (invalid_grant): a person must reconnect it. */
  TOOL_CONNECTION_EXPIRED: 409,
  TOOL_BLOCKED: 403,
  TOOL_TIMEOUT: 504,
  TOOL_UNREACHABLE: 502,
  TOOL_HTTP_ERROR: 502,
  TOOL_INVALID_RESPONSE: 502,
  TOOL_RESPONSE_TOO_LARGE: 502,
  // Agent conversations: the model provider failed (refused the key, answered an error, was unreachable),
  // was rate-limited (Retry-After passed on), or did not answer in time.
  MODEL_PROVIDER_ERROR: 502,
  MODEL_PROVIDER_RATE_LIMITED: 503,
  MODEL_PROVIDER_TIMEOUT: 504,
  // Organizations, CRM and forms
  ORG_NOT_FOUND: 404,
  AGENT_NOT_FOUND: 404,
  FORM_NOT_FOUND: 404,
  CONTACT_NOT_FOUND: 404,
  OPPORTUNITY_NOT_FOUND: 404,
  CUSTOM_FIELD_NOT_FOUND: 404,
  PIPELINE_NOT_FOUND: 422,
  STAGE_NOT_FOUND: 422,
  CONSENT_REQUIRED: 400,
  IDENTITY_REQUIRED: 400,
  FIELD_REQUIRED: 400,
  INVALID_FIELD: 400,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  /** The offending field, when there is exactly one. */
  field?: string;
  /** Schema violations, one per problem. */
  details?: ErrorDetail[];
  /** Extra response headers (WWW-Authenticate, Retry-After…). */
  headers?: Record<string, string>;
  /** Extra body properties a specific code documents (e.g. callId, status, body for TOOL_HTTP_ERROR). */
  extra?: Record<string, unknown>;
  cause?: unknown;
}

/** The one error type for expected failures. The error handler turns it into a response. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.field = options.field;
    this.details = options.details;
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
