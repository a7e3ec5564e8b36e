import { AppError } from '../http/errors.js';

/** The Operator API's answer for a form id that is not the organization's (missing or another org's). */
export function formNotFound(): AppError {
  return new AppError('FORM_NOT_FOUND', 'No form of your organization has that id.');
}

/** The public endpoints' answer for a slug that is unknown or whose form is inactive: visitors need not know which. */
export function publicFormNotFound(): AppError {
  return new AppError('FORM_NOT_FOUND', 'This form does not exist or is no longer accepting submissions.');
}
