import { applyChatBranding } from './brand.js';
import type { ChatConfig } from './types.js';

/** The name the widget goes by: the brand's, or "Chat". */
export const chatName = (config: ChatConfig): string => config.branding?.name || 'Chat';

/** An icon: one path in a 24×24 box, hidden from assistive technology (its button carries the name). */
export function icon(doc: Document, path: string): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = doc.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const p = doc.createElementNS(ns, 'path');
  p.setAttribute('d', path);
  svg.append(p);
  return svg;
}

export interface Launcher {
  /** The widget's root (`aside.sc`, in the brand's colors): the panel is drawn into it when the chat is first opened. */
  frame: HTMLElement;
  /** The button that opens the panel. */
  launcher: HTMLButtonElement;
  /** Draws an icon (icon() in this document): the panel's module uses this one rather than carry a copy. */
  icon(path: string): SVGSVGElement;
}

/**
 * What every page view draws (chat-embed.js): the widget's root with the brand's colors and font, and the
 * launcher, a named button that opens the chat panel (a dialog). The panel itself (widget.ts) comes with
 * the visitor's first open.
 */
export function drawLauncher(root: ShadowRoot, config: ChatConfig): Launcher {
  const doc = root.ownerDocument;
  const label = `Chat with ${chatName(config)}`;
  const launcher = doc.createElement('button');
  launcher.type = 'button';
  launcher.className = 'sc-launch';
  launcher.setAttribute('aria-label', label);
  launcher.setAttribute('aria-haspopup', 'dialog');
  launcher.append(icon(doc, 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H8l-5 4V5a2 2 0 0 1 1-2z'));
  const frame = doc.createElement('aside');
  frame.className = 'sc';
  frame.setAttribute('aria-label', label);
  frame.append(launcher);
  applyChatBranding(frame, config.branding);
  root.replaceChildren(frame);
  return { frame, launcher, icon: (path) => icon(doc, path) };
}
