import { AppError } from '../http/errors.js';

/** The same answer for a missing app and another developer's app, so ids leak nothing. */
/** A developer id or email the CLI was given that no developer has. */
export function developerNotFound(which = 'that id'): AppError {
  return new AppError('NOT_FOUND', `No developer has ${which}.`, { field: 'developer' });
}

export function appNotFound(): AppError {
  return new AppError('APP_NOT_FOUND', 'No app with that id exists in your account.');
}
