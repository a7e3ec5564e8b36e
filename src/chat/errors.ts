import { AppError } from '../http/errors.js';

/**
 * The public chat's refusals, in words a visitor can read: the widget shows them as they are. None says
 * which check failed beyond what the visitor can act on, nor names an internal id.
 */

/** An unknown chat id and a chat that is off (or whose agent has no model) get the same answer. */
export const chatNotFound = () => new AppError('NOT_FOUND', 'This chat is not available.');

/** A request without `Origin`, or from a site the chat is not allowed on. */
export const originRefused = () => new AppError('FORBIDDEN', 'This chat is not available on this site.');

/** Missing, unknown, expired, or another chat's session token: the same answer. */
export const sessionRefused = () => new AppError('UNAUTHORIZED', 'This chat session has ended. Start a new chat to continue.');

/** A visitor-facing 429 with Retry-After (seconds, at least 1). */
export function chatLimit(message: string, retryAfterSeconds: number): AppError {
  return new AppError('RATE_LIMIT_EXCEEDED', message, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
}

/** Seconds from `now` to the next 00:00 UTC, when daily budgets reset. */
export function secondsToMidnightUtc(now: Date): number {
  const reset = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((reset - now.getTime()) / 1000));
}

/** What the visitor sees when the model provider fails, whatever the provider said (that goes to the transcript only). */
export const KIND_FAILURE = 'Sorry, I can\'t answer right now. Please try again in a moment.';

export const BUDGET_USED_UP = 'This assistant has answered all the questions it can for today. Please come back tomorrow.';
/** The rest of the day's budget is held by answers still running (conversations/budgets.ts): it may free up in seconds. */
export const BUDGET_HELD_FOR_VISITORS = 'This assistant is busy answering other visitors. Please try again in a few seconds.';
export const SESSION_FULL = 'This chat has reached its length limit. Please start a new chat to continue.';
export const STILL_ANSWERING = 'I\'m still answering your previous message. Please wait for it to finish.';
