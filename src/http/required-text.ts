import { AppError } from './errors.js';

/**
 * Checks of operator input that answer with the validation error itself (lib/text.ts's checks
 * return a verdict instead, for callers that word their own errors).
 */

/** A trimmed, non-blank text value; the schema already capped its length. */
export function requiredText(value: string, field: string, what: string): string {
  const text = value.trim();
  if (text === '') throw new AppError('VALIDATION_ERROR', `Enter ${what}: it cannot be blank.`, { field });
  return text;
}

/** An https:// URL without credentials, as stored for logos. */
export function httpsUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Enter a full https:// URL.', { field });
  }
  if (url.protocol !== 'https:') throw new AppError('VALIDATION_ERROR', 'The URL must start with https://.', { field });
  if (url.username !== '' || url.password !== '') throw new AppError('VALIDATION_ERROR', 'The URL may not contain a user name or password.', { field });
  return url.href;
}
