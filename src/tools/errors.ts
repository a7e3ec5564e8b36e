import { AppError } from '../http/errors.js';

/** The same answer for a missing tool and another developer's tool, so ids leak nothing. */
export function toolNotFound(): AppError {
  return new AppError('TOOL_NOT_FOUND', 'No tool with that id exists in your account.');
}

export function nameTaken(name: string, existingId?: string): AppError {
  const which = existingId ? ` (${existingId})` : '';
  return new AppError('CONFLICT', `You already have a tool named "${name}"${which}. Choose another name, or update that tool instead.`, { field: 'name' });
}
