import { chatApi } from './api.js';
import type { Launcher } from './launcher.js';
import { panelStyles } from './styles.js';
import type { ChatConfig } from './types.js';
import { mountChat, type TokenStore } from './widget.js';

/**
 * The chat panel's module (`/assets/chat-panel.<hash>.js`): chat-embed.js imports it from the service when
 * the visitor first opens the chat (embed.ts), so a page view that never opens it loads only the launcher.
 * It adopts the panel's stylesheet beside the launcher's and draws the panel (widget.ts), opened.
 */

/** The visitor's token, in localStorage under `svc-chat:{chat_id}`; in memory when storage is refused (privacy modes). */
function tokenStore(chatId: string): TokenStore {
  const key = `svc-chat:${chatId}`;
  let memory: string | null = null;
  return {
    get() {
      try {
        return localStorage.getItem(key) ?? memory;
      } catch {
        return memory;
      }
    },
    set(token) {
      memory = token;
      try {
        localStorage.setItem(key, token);
      } catch {
        // Kept for this page only.
      }
    },
    clear() {
      memory = null;
      try {
        localStorage.removeItem(key);
      } catch {
        // Nothing stored.
      }
    },
  };
}

/** The host page's address (without its fragment, at most 2048 characters) and its utm_* parameters. */
function page(): { pageUrl?: string; utm?: Record<string, string> } {
  const url = new URL(location.href);
  url.hash = '';
  const utm: Record<string, string> = {};
  for (const key of ['source', 'medium', 'campaign', 'term', 'content']) {
    const value = url.searchParams.get(`utm_${key}`)?.trim();
    if (value) utm[key] = Array.from(value).slice(0, 500).join('');
  }
  const href = url.href;
  return { ...(href.length <= 2048 ? { pageUrl: href } : {}), ...(Object.keys(utm).length ? { utm } : {}) };
}

/** Draws the panel of chat `chatId` (served from `base`) into the launcher's frame and opens it. */
export function openChat(root: ShadowRoot, drawn: Launcher, config: ChatConfig, base: string, chatId: string): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(panelStyles);
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  mountChat(root, config, { ...drawn, api: chatApi(base, chatId), tokens: tokenStore(chatId), page }).open();
}
