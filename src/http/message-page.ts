import { escapeHtml as e } from '../lib/html.js';
import { styleHash } from './html-page.js';

/**
 * A page that tells a person, in a sentence, why a browser flow stopped (an OAuth connection's callback, an MCP
 * host's authorization request), and the way back. No script; its one style by hash; never framed; every text escaped.
 */
const STYLE = [
  ':root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1b1f24;background:#fff}',
  'body{margin:0}main{max-width:36rem;margin:4rem auto;padding:0 1.25rem}h1{font-size:1.5rem;margin:0 0 .75rem}',
  'a{color:#0b4fc4}a:hover{color:#083a91}:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}',
].join('');

export const MESSAGE_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${styleHash(STYLE)}`,
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export function renderMessagePage(title: string, message: string, back: { href: string; label: string } | undefined): string {
  const link = back ? `<p><a href="${e(back.href)}">${e(back.label)}</a></p>` : '<p><a href="/app/">Open the console</a></p>';
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer">' +
    `<title>${e(title)} · Switchboard</title><style>${STYLE}</style></head>` +
    `<body><main><h1>${e(title)}</h1><p>${e(message)}</p>${link}</main></body></html>\n`
  );
}
