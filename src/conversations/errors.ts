import { AppError } from '../http/errors.js';

/** Another organization's conversation gets the same answer as one that does not exist. */
export const conversationNotFound = () => new AppError('NOT_FOUND', 'No conversation has that id.');

export const noModel = (agentName: string) =>
  new AppError('CONFLICT', `The agent "${agentName}" has no model. Give it one (PATCH /api/org/agents/{id} with model: {providerId, model, instructions}), then start the conversation.`);
