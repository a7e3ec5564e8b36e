import type { RateLimitRule } from '../http/rate-limit.js';

/** The chat widget's limits (issue 22; docs/chat-widget.md "Limits"). */

/** A visitor's message: a question, not a document (about 500 tokens). */
export const MAX_CONTENT_CHARS = 2000;
/** Visitor messages per session: a long support conversation has a few dozen; past it, a new chat. */
export const MAX_VISITOR_MESSAGES = 50;
/** A session ends this long after its last use; each use extends it. */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
/** The longest page URL kept with a conversation (browsers allow more; analytics rarely needs it). */
export const MAX_PAGE_URL_CHARS = 2048;

/** Config reads per address and chat id: the widget reads it once per page view (the forms' config limit). */
export const CHAT_CONFIG_READS: RateLimitRule = {
  name: 'chat-config',
  limit: 60,
  windowMs: 60_000,
  message: 'Too many requests from your network. Please wait a moment.',
};

/** New sessions per address and chat id: one per visitor who opens the chat; an office behind one address has a few. */
export const CHAT_SESSION_CREATES: RateLimitRule = {
  name: 'chat-session',
  limit: 20,
  windowMs: 10 * 60_000,
  message: 'Too many new chats from your network. Please wait a moment.',
};

/** Messages per address and chat id, every session together. */
export const CHAT_MESSAGES_PER_ADDRESS: RateLimitRule = {
  name: 'chat-message-address',
  limit: 30,
  windowMs: 60_000,
  message: 'Too many messages from your network. Please wait a moment.',
};

/**
 * Messages per session: a person types one every few seconds at most; each one is a model turn. Sliding, so
 * no burst of twice the limit across a window's edge (each message costs tokens).
 */
export const CHAT_MESSAGES_PER_SESSION: RateLimitRule = {
  name: 'chat-message-session',
  limit: 6,
  windowMs: 60_000,
  sliding: true,
  message: 'You\'re sending messages quickly. Please wait a moment.',
};
