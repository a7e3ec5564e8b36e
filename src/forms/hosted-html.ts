import { escapeHtml, jsonForScript } from '../lib/html.js';
import { httpUrl } from '../../web/form/urls.js';
import { palette } from '../../web/form/contrast.js';
import { formControls, HONEYPOT, TEXT, type FormControl, type Values } from '../../web/form/controls.js';
import { FONT_FAMILY } from '../../web/form/fields.js';
import { ROOT_CLASS } from '../../web/form/styles.js';
import type { PublicFormConfig } from './schema.js';
import { UTM_KEYS } from './rules.js';

/**
 * The HTML of the hosted page `/f/{slug}`, drawn on the server with the same classes and structure
 * as web/form/renderer.ts, so it looks the same before, after and without JavaScript. Every
 * operator string goes through escapeHtml; the config is inlined as JSON that cannot close its
 * element. No inline script, no style attribute: the one inline `<style>` (brand colors, page
 * layout) is allowed by its SHA-256 in the CSP, everything else comes from our own origin.
 */

export interface FieldError {
  key: string;
  message: string;
}

export interface PageAssets {
  css: string;
  script: string;
}

export interface FormPageOptions {
  embed: boolean;
  /** `utm_*` of the page URL: carried through the no-JS post as hidden inputs. */
  utm: Record<string, string>;
  /** What the visitor typed, by control key (`email`, `custom.<key>`, `consent`). */
  values?: Values;
  errors?: FieldError[];
  /** A message for the whole form (rate limit, consent changed…), shown in the summary. */
  summary?: string;
}


function attrs(map: Record<string, string | boolean | number | undefined>): string {
  let out = '';
  for (const [name, value] of Object.entries(map)) {
    if (value === undefined || value === false) continue;
    out += value === true ? ` ${name}` : ` ${name}="${escapeHtml(String(value))}"`;
  }
  return out;
}

/** The page's one inline stylesheet: the brand's colors (contrast-checked) and the page layout. */
export function pageStyle(branding: PublicFormConfig['branding'], embed: boolean): string {
  const colors = palette(branding);
  const font = branding?.fontFamily && FONT_FAMILY.test(branding.fontFamily) ? branding.fontFamily : null;
  const vars = [
    `--sf-bg:${colors.background}`,
    `--sf-fg:${colors.text}`,
    `--sf-pri:${colors.primary}`,
    `--sf-on-pri:${colors.onPrimary}`,
    `--sf-ring:${colors.ring}`,
    `--sf-err:${colors.error}`,
    ...(font ? [`--sf-font:${font}`] : []),
  ].join(';\n');
  const layout = embed
    ? 'html,body{margin:0;padding:0;background:transparent}'
    : `html{background:${colors.background}}body{margin:0;padding:2rem 1rem}.svc-form{margin:0 auto}`;
  return `:root{\n${vars}\n}\n${layout}\n.sf-sum ul{margin:.5rem 0 0;padding-left:1.25rem}.sf-sum a{color:inherit}\n`;
}

/**
 * The Content-Security-Policy of our HTML pages: no inline script at all, scripts and the
 * stylesheet only from our origin, the one inline style by hash, images from https (logos),
 * form posts to us (and, after a 303, to the form's redirect origin), framing by anyone.
 */
export function contentSecurityPolicy(styleSource: string, redirectUrl: string | null): string {
  let formAction = "'self'";
  const redirect = httpUrl(redirectUrl);
  if (redirect) formAction += ` ${new URL(redirect).origin}`;
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' ${styleSource}`,
    'img-src https: data:',
    "connect-src 'self'",
    `form-action ${formAction}`,
    'frame-ancestors *',
    "base-uri 'none'",
  ].join('; ');
}

function head(title: string, style: string, css: string | null, script: string | null, embed: boolean): string {
  return (
    `<!doctype html>\n<html lang="en"${embed ? ' data-embed' : ''}><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="strict-origin-when-cross-origin">' +
    `<title>${escapeHtml(title)}</title>` +
    (css ? `<link rel="stylesheet" href="${escapeHtml(css)}">` : '') +
    `<style>${style}</style>` +
    (script ? `<script defer src="${escapeHtml(script)}"></script>` : '') +
    '</head>'
  );
}

interface Rendered {
  html: string;
  style: string;
}

function errorFor(options: FormPageOptions, key: string): FieldError | undefined {
  return options.errors?.find((error) => error.key === key);
}

/** The hosted page: the form, server-rendered, working without JavaScript; the script enhances it. */
export function renderFormPage(config: PublicFormConfig, assets: PageAssets, options: FormPageOptions): Rendered {
  const style = pageStyle(config.branding, options.embed);
  const values = options.values ?? {};
  let index = 0;
  const fields: string[] = [];
  const ids = new Map<string, string>();

  const text = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : '');

  /** The element of one control of the list (web/form/controls.ts), as renderer.ts builds it. */
  const element = (control: FormControl, extra: string): string => {
    const { key, type } = control;
    if (type === 'checkbox') return `<input type="checkbox" value="on"${extra}${attrs({ checked: values[key] === true, ...control.attrs })}>`;
    if (type === 'textarea') return `<textarea class="sf-in"${extra}${attrs({ maxlength: control.maxLength, ...control.attrs })}>${escapeHtml(text(key))}</textarea>`;
    if (type === 'select') {
      const chosen = text(key);
      const choices = control.options.map((option) => `<option${attrs({ value: option, selected: chosen === option })}>${escapeHtml(option)}</option>`).join('');
      return `<select class="sf-in"${extra}${attrs(control.attrs)}><option value="">${TEXT.choose}</option>${choices}</select>`;
    }
    return `<input class="sf-in"${attrs({ type })}${extra}${attrs({ maxlength: control.maxLength, value: text(key) || undefined, ...control.attrs })}>`;
  };

  for (const control of formControls(config)) {
    const { key, label, required } = control;
    const id = `sf-${index++}`;
    ids.set(key, id);
    const error = errorFor(options, key);
    const extra =
      attrs({ id, name: key, required, 'aria-required': required ? 'true' : undefined }) +
      (error ? attrs({ 'aria-invalid': 'true', 'aria-describedby': `${id}e` }) : '');
    const labelHtml = `<label for="${id}">${escapeHtml(label)}${required ? '<span aria-hidden="true"> *</span>' : ''}</label>`;
    const errorHtml = `<p class="sf-err" id="${id}e"${error ? '' : ' hidden'}>${error ? escapeHtml(error.message) : ''}</p>`;
    const input = element(control, extra);
    fields.push(`<div class="sf-f">${control.type === 'checkbox' ? `<div class="sf-c">${input}${labelHtml}</div>` : `${labelHtml}${input}`}${errorHtml}</div>`);
  }

  const summaryItems = (options.errors ?? [])
    .filter((error) => ids.has(error.key))
    .map((error) => `<li><a href="#${ids.get(error.key)}">${escapeHtml(error.message)}</a></li>`)
    .join('');
  const hasErrors = Boolean(summaryItems || options.summary);
  const summary = hasErrors
    ? `<div class="sf-msg sf-sum" role="alert" tabindex="-1" autofocus id="sf-sum"><strong>${escapeHtml(options.summary ?? TEXT.correct)}</strong>${summaryItems ? `<ul>${summaryItems}</ul>` : ''}</div>`
    : '<p class="sf-msg" role="alert"></p>';

  const action = `/f/${encodeURIComponent(config.slug)}${options.embed ? '?embed=1' : ''}`;
  const hidden =
    `<input type="hidden" name="consentVersion" value="${escapeHtml(config.consentVersion)}">` +
    UTM_KEYS.filter((key) => options.utm[key]).map((key) => `<input type="hidden" name="${key}" value="${escapeHtml(options.utm[key]!)}">`).join('');
  const logo = httpUrl(config.branding?.logoUrl);
  const title = config.branding?.name ? `${config.title} · ${config.branding.name}` : config.title;

  const html =
    head(title, style, assets.css, assets.script, options.embed) +
    '<body><main>' +
    `<script type="application/json" id="svc-form-config">${jsonForScript(config)}</script>` +
    `<div id="svc-form-root"${hasErrors ? ' data-errors' : ''}><div class="${ROOT_CLASS}">` +
    (logo ? `<img class="sf-logo"${attrs({ src: logo, alt: config.branding?.name ?? '' })}>` : '') +
    `<h1 class="sf-title" id="sf-t">${escapeHtml(config.title)}</h1>` +
    `<form method="post"${attrs({ action })} aria-labelledby="sf-t"><p class="sf-note">${TEXT.note}</p>` +
    summary +
    fields.join('') +
    `<div class="sf-hp" aria-hidden="true"><label for="sf-hp">${HONEYPOT.label}</label><input type="text" name="${HONEYPOT.name}" id="sf-hp" tabindex="-1" autocomplete="off"></div>` +
    hidden +
    `<button type="submit" class="sf-btn">${TEXT.submit}</button></form></div></div></main></body></html>\n`;
  return { html, style };
}

/** After a successful no-JS post: the success message (and, in an iframe, a link out to the redirect). */
export function renderMessagePage(options: {
  title: string;
  heading: string;
  message: string;
  branding: PublicFormConfig['branding'];
  embed: boolean;
  css: string | null;
  link?: { href: string; text: string } | undefined;
  role?: 'status' | 'alert';
}): Rendered {
  const style = pageStyle(options.branding, options.embed);
  const link = options.link ? `<p><a${attrs({ href: options.link.href, target: options.embed ? '_top' : undefined })}>${escapeHtml(options.link.text)}</a></p>` : '';
  const html =
    head(options.title, style, options.css, null, options.embed) +
    `<body><main><div class="${ROOT_CLASS}"><h1 class="sf-title">${escapeHtml(options.heading)}</h1>` +
    `<p class="sf-done" role="${options.role ?? 'status'}">${escapeHtml(options.message)}</p>${link}</div></main></body></html>\n`;
  return { html, style };
}
