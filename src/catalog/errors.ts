import { AppError } from '../http/errors.js';

/** Drafts, withdrawn and deleted tools are not in the catalog: one answer for all of them. */
export function catalogToolNotFound(): AppError {
  return new AppError('TOOL_NOT_FOUND', 'No published tool has that id.');
}
