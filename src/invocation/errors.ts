import { AppError } from '../http/errors.js';

/** Another organization's installation gets the same answer as a missing one. */
export const installationNotFound = () => new AppError('NOT_FOUND', 'No installation has that id.');

export function toolNotEnabled(name: string): AppError {
  return new AppError(
    'TOOL_NOT_ENABLED',
    `No tool named "${name}" is enabled for this agent. List the agent's tools with GET /api/org/agents/{id}/tools and call one of those names.`,
  );
}
