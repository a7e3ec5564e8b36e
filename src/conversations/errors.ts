import { AppError } from '../http/errors.js';

/** Another organization's conversation gets the same answer as one that does not exist. */
export const conversationNotFound = () => new AppError('NOT_FOUND', 'No conversation has that id.');

export const noModel = (agentName: string) =>
  new AppError('CONFLICT', `The agent "${agentName}" has no model. Give it one (PATCH /api/org/agents/{id} with model: {providerId, model, instructions}), then start the conversation.`);

/** Another turn of the conversation is under way (the chat widget recognises it to say so in its own words). */
export const TURN_IN_PROGRESS = 'The agent is still answering the previous message in this conversation. Send the next one when that answer ends.';
export const turnInProgress = () => new AppError('CONFLICT', TURN_IN_PROGRESS);

const count = (n: number) => n.toLocaleString('en-US');

/** Seconds from `now` to the next 00:00 UTC (at least 1), and that time: when daily budgets reset. */
function nextMidnight(now: Date): { reset: Date; seconds: number } {
  const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  return { reset, seconds: Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000)) };
}

const BUDGET_NAME = { organization: 'The organization\'s daily model budget', widget: 'The agent\'s daily chat widget budget' } as const;
const RAISE = {
  organization: 'an owner can raise it with PATCH /api/org/organization {"dailyTokenBudget": …}',
  widget: 'it is set with PATCH /api/org/agents/{id} {"chat": {"dailyTokenBudget": …}}',
} as const;

/**
 * A daily token budget is used up: 429 until the next 00:00 UTC, with `Retry-After` in seconds until then (at
 * least 1). The organization's budget, or an agent's widget budget for its widget conversations.
 */
export function budgetUsedUp(which: 'organization' | 'widget', budget: number, used: number, now: Date): AppError {
  const { reset, seconds } = nextMidnight(now);
  return new AppError(
    'RATE_LIMIT_EXCEEDED',
    `${BUDGET_NAME[which]} of ${count(budget)} tokens is used up (${count(used)} used today). It resets at 00:00 UTC (${reset.toISOString()}); ${RAISE[which]}.`,
    { headers: { 'Retry-After': String(seconds) } },
  );
}

/** Retry-After when the rest of a budget is held by turns under way: they end within seconds. */
export const HELD_RETRY_AFTER_SECONDS = 5;

/** The first words of every "held by turns under way" refusal: the chat widget recognises them to say so in its own words. */
export const BUDGET_HELD = 'The rest of today\'s budget is held by turns under way';

/**
 * The rest of a budget is held by turns under way (budgets.ts): 429 with a short Retry-After, since they end
 * within seconds and give back what they did not use.
 */
export function budgetHeld(which: 'organization' | 'widget', budget: number, used: number, held: number): AppError {
  return new AppError(
    'RATE_LIMIT_EXCEEDED',
    `${BUDGET_HELD}: ${BUDGET_NAME[which].toLowerCase().replace(/^the /, 'of the ')} of ${count(budget)} tokens, ${count(used)} are used and ${count(held)} are reserved by answers still running. Try again in a few seconds.`,
    { headers: { 'Retry-After': String(HELD_RETRY_AFTER_SECONDS) } },
  );
}
