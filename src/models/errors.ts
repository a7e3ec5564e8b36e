import { AppError } from '../http/errors.js';

/** Another organization's provider gets the same answer as one that does not exist. */
export const providerNotFound = (field?: string) =>
  new AppError('NOT_FOUND', 'No model provider has that id.', field ? { field } : {});
