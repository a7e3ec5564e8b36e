import { baseOf, chatApi } from './api.js';
import { chatStyles } from './styles.js';
import { mountChat, type TokenStore } from './widget.js';

/**
 * chat-embed.js: `<script async src="{base_url}/chat-embed.js" data-svc-chat="chat_…"></script>`.
 * The script finds its own tag, takes the service's address from its `src`, reads the chat's public
 * config and, when the chat answers (it is on and this page's origin is on its list), draws the
 * launcher and panel into the shadow root of an `<svc-chat>` element at the end of the body. When it
 * does not (an unknown or disabled chat, another origin), nothing is drawn.
 * Styles come through a constructable stylesheet, brand values through CSSOM: no `<style>`, no style
 * attribute, no eval. A host CSP of `script-src` and `connect-src` our origin (and `img-src` for the
 * logo) is enough.
 */

const CHAT_ID = /^chat_[\w-]{1,100}$/;

function ownScript(): HTMLScriptElement | null {
  const current = document.currentScript as HTMLScriptElement | null;
  if (current?.hasAttribute('data-svc-chat')) return current;
  return document.querySelector<HTMLScriptElement>('script[data-svc-chat]');
}

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

async function start(): Promise<void> {
  const script = ownScript();
  const chatId = script?.getAttribute('data-svc-chat') ?? '';
  if (!script?.src || !CHAT_ID.test(chatId)) return;
  // One widget per chat, even when the snippet is pasted twice.
  if (document.querySelector(`svc-chat[data-chat="${chatId}"]`)) return;
  const api = chatApi(baseOf(script.src), chatId);
  const config = await api.config();
  if (!config.ok) return;
  if (!document.body) await new Promise((done) => document.addEventListener('DOMContentLoaded', done, { once: true }));
  if (document.querySelector(`svc-chat[data-chat="${chatId}"]`)) return;
  const host = document.createElement('svc-chat');
  host.setAttribute('data-chat', chatId);
  const shadow = host.attachShadow({ mode: 'open' });
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(chatStyles);
  shadow.adoptedStyleSheets = [sheet];
  mountChat(shadow, config.data, { api, tokens: tokenStore(chatId), page });
  document.body.append(host);
}

void start();
