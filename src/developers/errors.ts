import { AppError } from '../http/errors.js';

/** The same answer for a missing app and another developer's app, so ids leak nothing. */
export function appNotFound(): AppError {
  return new AppError('APP_NOT_FOUND', 'No app with that id exists in your account.');
}
