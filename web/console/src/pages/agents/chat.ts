import { ApiError } from '../../api/client';
import type { AgentChat, AgentChatPatch } from '../../api/types';

/**
 * The agent page's Chat widget section: the draft, its checks and the body it sends (`chat` of
 * PATCH /api/org/agents/{id}, docs/chat-widget.md). The origin rules are the server's, worded for the
 * operator, so a site is refused as it is typed rather than after Save.
 */

/** The server's limits (src/orgs/chat-origins.ts, src/orgs/schema.ts). */
export const MAX_ORIGINS = 20;
export const WELCOME_MAX = 500;
export const MAX_DAILY_TOKENS = 1_000_000_000;

export interface ChatDraft {
  enabled: boolean;
  allowedOrigins: string[];
  welcomeMessage: string;
  /** '' for no lead form. */
  leadFormId: string;
  /** '' for no widget budget (the organization's own still applies). */
  dailyTokenBudget: string;
}

export function fromChat(chat: AgentChat): ChatDraft {
  return {
    enabled: chat.enabled,
    allowedOrigins: [...chat.allowedOrigins],
    welcomeMessage: chat.welcomeMessage,
    leadFormId: chat.leadFormId ?? '',
    dailyTokenBudget: chat.dailyTokenBudget === null ? '' : String(chat.dailyTokenBudget),
  };
}

export function toChatBody(draft: ChatDraft): Required<AgentChatPatch> {
  const budget = draft.dailyTokenBudget.trim();
  return {
    enabled: draft.enabled,
    allowedOrigins: draft.allowedOrigins,
    welcomeMessage: draft.welcomeMessage.trim(),
    leadFormId: draft.leadFormId || null,
    dailyTokenBudget: budget === '' ? null : Number(budget),
  };
}

/** What the operator typed, as the server stores it: trimmed, lowercase, without one trailing slash. */
export function normalOrigin(typed: string): string {
  const value = typed.trim().toLowerCase().replace(/\/$/, '');
  const parsed = parseOrigin(value);
  return typeof parsed === 'string' ? value : parsed.origin;
}

const EXAMPLE = 'https://www.example.com';

/**
 * An origin as the server takes it: `http(s)://host[:port]`, nothing after the host, optionally one leading
 * `*.` label (any one subdomain level of a domain). Answers the problem in words, or the origin written as
 * the browser sends it in `Origin` (a default port dropped, an international name in punycode).
 */
function parseOrigin(value: string): string | { origin: string } {
  if (!value) return `Enter a site’s address, like ${EXAMPLE}.`;
  const match = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/.exec(value);
  if (!match) return `Start with https:// (or http://), like ${EXAMPLE}.`;
  const [, scheme, rest = ''] = match;
  if (scheme !== 'https' && scheme !== 'http') return 'Use an address starting with https:// or http://.';
  const wildcard = rest.startsWith('*.');
  const host = wildcard ? rest.slice(2) : rest;
  if (/[/?#]/.test(host)) return `Only the site: scheme, host and port, without a path, like ${EXAMPLE}.`;
  if (host.includes('*')) return 'Use * only as the first label, like https://*.example.com.';
  if (host.includes('@')) return 'Leave out the user name and password.';
  if (!host) return `Add the host name, like ${EXAMPLE}.`;
  let url: URL;
  try {
    url = new URL(`${scheme}://${host}`);
  } catch {
    return 'That is not a valid host name or port.';
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return `Only the site: scheme, host and port, like ${EXAMPLE}.`;
  const ip = /^[\d.]+$/.test(url.hostname) || url.hostname.startsWith('[');
  if (wildcard && (ip || !url.hostname.includes('.'))) return 'After *. comes a domain with a dot, like https://*.example.com.';
  return { origin: `${scheme}://${wildcard ? '*.' : ''}${url.host}` };
}

/** The problem with adding `typed` to `list`, or null when it can be added (as normalOrigin(typed)). */
export function originProblem(typed: string, list: readonly string[]): string | null {
  const value = typed.trim().toLowerCase().replace(/\/$/, '');
  const parsed = parseOrigin(value);
  if (typeof parsed === 'string') return parsed;
  if (list.includes(parsed.origin)) return `${parsed.origin} is on the list already.`;
  if (list.length >= MAX_ORIGINS) return `At most ${MAX_ORIGINS} sites: remove one first.`;
  return null;
}

export const NO_SITES = 'Add the site the widget goes on: it works only on the sites listed here.';

/** The section's own checks before sending, by the API's field names. */
export function chatProblems(draft: ChatDraft) {
  const budget = draft.dailyTokenBudget.trim();
  const tokens = Number(budget);
  return {
    'chat.allowedOrigins': draft.enabled && draft.allowedOrigins.length === 0 ? NO_SITES : null,
    'chat.welcomeMessage': draft.welcomeMessage.trim().length > WELCOME_MAX ? `Keep the welcome message under ${WELCOME_MAX} characters.` : null,
    'chat.dailyTokenBudget':
      budget === '' || (Number.isInteger(tokens) && tokens >= 1 && tokens <= MAX_DAILY_TOKENS)
        ? null
        : `Enter a whole number from 1 to ${MAX_DAILY_TOKENS.toLocaleString('en')}, or leave it empty for no widget limit.`,
  };
}

export const CHAT_FIELDS = ['chat.enabled', 'chat.allowedOrigins', 'chat.welcomeMessage', 'chat.leadFormId', 'chat.dailyTokenBudget', 'chat'];

/**
 * A refusal about one of the origins (`chat.allowedOrigins.3`, `/chat/allowedOrigins/3`) belongs on the
 * origins' input: the refusal with its paths cut to `chat.allowedOrigins`, for useFormErrors to place.
 */
export function placeChatError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const cut = (path: string) => path.replace(/^(\/?chat[./]allowedOrigins)(?:[./[].*)$/, '$1');
  return new ApiError({
    status: error.status,
    code: error.code,
    message: error.message,
    field: error.field === undefined ? undefined : cut(error.field),
    details: error.details?.map((detail) => ({ ...detail, path: cut(detail.path) })),
    retryAfter: error.retryAfter,
    requestId: error.requestId,
    extra: error.extra,
  });
}

/** The tag a site pastes: the script from this server, naming the agent by its public chat id only. */
export function chatSnippet(origin: string, chatId: string): string {
  return `<script async src="${origin}/chat-embed.js" data-svc-chat="${chatId}"></script>`;
}
