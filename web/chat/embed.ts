import { baseOf, chatUrl } from './api.js';
import { drawLauncher } from './launcher.js';
import { launcherStyles } from './styles.js';
import type { ChatConfig } from './types.js';

/**
 * chat-embed.js: `<script async src="{base_url}/chat-embed.js" data-svc-chat="chat_…"></script>`.
 * The script finds its own tag, takes the service's address from its `src`, reads the chat's public
 * config and, when the chat answers (it is on and this page's origin is on its list), draws the
 * launcher into the shadow root of an `<svc-chat>` element at the end of the body. When it does not (an
 * unknown or disabled chat, another origin), nothing is drawn.
 *
 * The chat panel (panel.ts, widget.ts: the transcript, the composer, Markdown, the answer and live streams,
 * lead cards, hand-off) is a module of its own, `/assets/chat-panel.<hash>.js` on the same service,
 * imported when the visitor first opens the chat: most page views never do, and pay for the launcher
 * only. Its loading starts as soon as the pointer reaches the launcher or the launcher takes focus, so it
 * is usually there by the click. The hashed name is written into this script by the build
 * (scripts/build-web.mjs): this build's panel, cached for a year.
 *
 * Styles come through constructable stylesheets, brand values through CSSOM: no `<style>`, no style
 * attribute, no eval. A host CSP of `script-src` and `connect-src` our origin (and `img-src` for the
 * logo) is enough: the panel's module comes from the origin `script-src` names.
 */

/** The panel module's file name, written in by the build. */
declare const CHAT_PANEL: string;

type PanelModule = typeof import('./panel.js');

const CHAT_ID = /^chat_[\w-]{1,100}$/;

function ownScript(): HTMLScriptElement | null {
  const current = document.currentScript as HTMLScriptElement | null;
  if (current?.hasAttribute('data-svc-chat')) return current;
  return document.querySelector<HTMLScriptElement>('script[data-svc-chat]');
}

/** The chat's public config, or null when it does not answer (off, unknown, not on this site, unreachable). */
async function readConfig(base: string, chatId: string): Promise<ChatConfig | null> {
  try {
    // The visitor is known by the session's token alone: no cookies go to the service.
    const res = await fetch(chatUrl(base, chatId), { credentials: 'omit' });
    const body = (await res.json()) as { success?: boolean; data?: ChatConfig } | null;
    return res.ok && body?.success === true && body.data ? body.data : null;
  } catch {
    return null;
  }
}

async function start(): Promise<void> {
  const script = ownScript();
  const chatId = script?.getAttribute('data-svc-chat') ?? '';
  if (!script?.src || !CHAT_ID.test(chatId)) return;
  // One widget per chat, even when the snippet is pasted twice.
  if (document.querySelector(`svc-chat[data-chat="${chatId}"]`)) return;
  const base = baseOf(script.src);
  const config = await readConfig(base, chatId);
  if (!config) return;
  if (!document.body) await new Promise((done) => document.addEventListener('DOMContentLoaded', done, { once: true }));
  if (document.querySelector(`svc-chat[data-chat="${chatId}"]`)) return;
  const host = document.createElement('svc-chat');
  host.setAttribute('data-chat', chatId);
  const shadow = host.attachShadow({ mode: 'open' });
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(launcherStyles);
  shadow.adoptedStyleSheets = [sheet];
  const drawn = drawLauncher(shadow, config);
  document.body.append(host);

  // The panel's module, once. A load that failed (the network) is tried again by the next click, under a URL of
  // its own (`?1`, `?2`…): a browser may remember a module it failed to fetch by its URL.
  let panel: Promise<PanelModule> | undefined;
  let failures = 0;
  const load = () =>
    (panel ??= (import(`${base}/assets/${CHAT_PANEL}${failures ? `?${failures}` : ''}`) as Promise<PanelModule>).catch((error: unknown) => {
      panel = undefined;
      failures++;
      throw error;
    }));
  const warm = () => void load().catch(() => {});
  for (const type of ['pointerenter', 'pointerdown', 'focus']) drawn.launcher.addEventListener(type, warm, { once: true });
  // Said beside the launcher when the panel could not be loaded: an alert, announced as it is drawn.
  let notice: HTMLElement | undefined;
  const first = () => {
    drawn.launcher.removeEventListener('click', first);
    notice?.remove();
    // From here on the panel's own handler opens it.
    load().then(
      (module) => module.openChat(shadow, drawn, config, base, chatId),
      () => {
        notice = drawn.frame.appendChild(document.createElement('p'));
        notice.className = 'sc-oops';
        notice.setAttribute('role', 'alert');
        notice.textContent = 'The chat could not load. Check your connection, then try again.';
        // The launcher stays where it is: the next click tries again.
        drawn.launcher.addEventListener('click', first);
      },
    );
  };
  drawn.launcher.addEventListener('click', first);
}

void start();
