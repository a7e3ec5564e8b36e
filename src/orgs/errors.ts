import { AppError } from '../http/errors.js';

/** Answers for ids that do not exist; another organization's record gets the same answer. */
export const agentNotFound = () => new AppError('AGENT_NOT_FOUND', 'No agent has that id.');
export const apiKeyNotFound = () => new AppError('NOT_FOUND', 'No API key has that id.');
export const orgNotFound = () => new AppError('ORG_NOT_FOUND', 'No organization has that id.');
export const agentKeyNotFound = () => new AppError('NOT_FOUND', 'No agent key has that id for this agent.');
export const modelProviderNotFound = () => new AppError('NOT_FOUND', 'No model provider has that id.', { field: 'model.providerId' });
