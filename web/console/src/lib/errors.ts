import { ApiError } from '../api/client';

export interface SplitErrors {
  /** Messages for the named inputs, by the API's field name. */
  fields: Record<string, string>;
  /** What belongs to no one input of the page: shown above the submit button. */
  general: string | null;
}

/**
 * The input a path belongs to: the path itself when the page has that input, else its longest known parent
 * (`oauth.scopes.2` → `oauth.scopes`, `customFields[0].key` → `customFields`); undefined when none is known.
 */
function ownerOf(path: string, known: readonly string[]): string | undefined {
  let candidate = path;
  for (;;) {
    if (known.includes(candidate)) return candidate;
    const cut = Math.max(candidate.lastIndexOf('.'), candidate.lastIndexOf('['));
    if (cut <= 0) return undefined;
    candidate = candidate.slice(0, cut);
  }
}

/**
 * Places a refusal: the API's `field` (or the paths of its validation `details`) on the input of that
 * name when the page has one, everything else as one message for the whole form. Messages are the API's own.
 */
export function splitErrors(error: unknown, known: readonly string[]): SplitErrors {
  const result: SplitErrors = { fields: {}, general: null };
  if (!error) return result;
  if (!(error instanceof ApiError)) {
    result.general = error instanceof Error ? error.message : String(error);
    return result;
  }
  const field = error.field === undefined ? undefined : ownerOf(error.field, known);
  if (field) {
    result.fields[field] = error.message;
    return result;
  }
  const placed: string[] = [];
  for (const detail of error.details ?? []) {
    const name = ownerOf(detail.path.replace(/^\//, '').split('/').join('.'), known);
    if (name && !result.fields[name]) {
      result.fields[name] = detail.message;
      placed.push(name);
    }
  }
  if (!placed.length || (error.details ?? []).length > placed.length) result.general = error.message;
  return result;
}

/**
 * The API's message when its refusal names this field (`body`, `options`, `stages.2.name`…), to show
 * beside the input; a field also claims its sub-paths (`options.1` belongs to `options`).
 */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError) || !error.field) return undefined;
  if (error.field === field || error.field.startsWith(`${field}.`)) return error.message;
  return undefined;
}

/** The error when no field claims it, for the form-level alert. */
export function formLevelError(error: unknown, fields: string[]): unknown {
  if (!error) return null;
  if (error instanceof ApiError && error.field && fields.some((field) => fieldError(error, field))) return null;
  return error;
}

/** Client-side checks before a request: the first problem of each input, in the page's words. */
export type Checks = Record<string, string | null | undefined | false>;

export function firstErrors(checks: Checks): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, message] of Object.entries(checks)) if (message) out[name] = message;
  return out;
}

export const PASSWORD_MIN = 10;

export function passwordProblem(password: string): string | null {
  if (!password) return 'Enter a password.';
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  return null;
}

export function emailProblem(email: string): string | null {
  if (!email.trim()) return 'Enter your email address.';
  if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) return 'Enter an email address like name@example.com.';
  return null;
}

/** Moves focus to the first input of the form marked invalid; false when none is (yet). */
export function focusFirstInvalid(form: HTMLFormElement | null): boolean {
  const target = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
  target?.focus();
  return target != null;
}
