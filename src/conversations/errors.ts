import { AppError } from '../http/errors.js';

/** Another organization's conversation gets the same answer as one that does not exist. */
export const conversationNotFound = () => new AppError('NOT_FOUND', 'No conversation has that id.');

export const noModel = (agentName: string) =>
  new AppError('CONFLICT', `The agent "${agentName}" has no model. Give it one (PATCH /api/org/agents/{id} with model: {providerId, model, instructions}), then start the conversation.`);

/** Another turn of the conversation is under way (the chat widget recognises it to say so in its own words). */
export const TURN_IN_PROGRESS = 'The agent is still answering the previous message in this conversation. Send the next one when that answer ends.';
export const turnInProgress = () => new AppError('CONFLICT', TURN_IN_PROGRESS);

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The organization's daily token budget is used up: 429 until the next 00:00 UTC, with `Retry-After` in
 * seconds until then (at least 1).
 */
export function budgetUsedUp(budget: number, used: number, now: Date): AppError {
  const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const seconds = Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000));
  return new AppError(
    'RATE_LIMIT_EXCEEDED',
    `The organization's daily model budget of ${count(budget)} tokens is used up (${count(used)} used today). It resets at 00:00 UTC (${reset.toISOString()}); an owner can raise it with PATCH /api/org/organization {"dailyTokenBudget": …}.`,
    { headers: { 'Retry-After': String(seconds) } },
  );
}
