import { getConfig, postLead, type Failure, type Fetch } from './api.js';
import { attemptKeys, randomKey } from './attempt.js';
import { palette } from './contrast.js';
import { CONSENT, formControls, HONEYPOT, identityMessage, postedValues, TEXT, type FormControl, type Values } from './controls.js';
import { FONT_FAMILY } from './fields.js';
import { ROOT_CLASS } from './styles.js';
import type { Branding, PublicFormConfig, SubmitResult } from './types.js';
import { httpUrl, utmFromUrl } from './urls.js';
import { buildBody, controlsToMark } from './values.js';

export { formStyles, ROOT_CLASS } from './styles.js';
export type { Branding, PublicCustomField, PublicFormConfig, SubmitResult } from './types.js';
export type { Values } from './values.js';

/**
 * The one form renderer, for the hosted page, the embed script and the console's preview.
 * Every operator-supplied string reaches the DOM as a text node or through an attribute
 * setter; nothing is ever parsed as HTML.
 */

export interface RenderOptions {
  /** Where the public Forms API lives: the service's origin, or '' (the default) for the page's own. */
  apiBase?: string;
  /** The URL whose `utm_*` parameters go into `metadata`: the host page's. Default: `location.href` when the visitor submits. */
  pageUrl?: string;
  /**
   * Goes to a success `redirectUrl` (already checked to be http: or https:). Default: `location.assign`.
   * The hosted page in an iframe passes one that navigates the top window.
   */
  navigate?: (url: string) => void;
  /** Level of the title's heading: 1 on the hosted page; 2 (the default) inside another page. */
  headingLevel?: 1 | 2 | 3 | 4 | 5 | 6;
  /** Values to start with, by control key (`email`, `custom.<key>`, `consent`): what the visitor typed before a re-render. */
  values?: Values;
  /** The console's live preview: checks the fields as usual but sends nothing. */
  preview?: boolean;
  /** Replaces `fetch` (tests). */
  fetch?: Fetch;
  /** Makes an Idempotency-Key (tests). Default: `crypto.randomUUID`. */
  newKey?: () => string;
  onReady?: () => void;
  /** After a successful submission; carries no personal data. */
  onSubmitted?: (detail: { successMessage: string; redirectUrl: string | null }) => void;
  /** After a refusal or failure of the API (NETWORK_ERROR when it could not be reached). */
  onError?: (detail: { code: string; message: string }) => void;
}

export interface RenderedForm {
  /** The `<form>` element (detached once the success message replaces it). */
  form: HTMLFormElement;
  /** What the visitor has entered so far, by control key: pass it as `values` to a re-render. */
  values(): Values;
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
type Attrs = Record<string, string>;

let forms = 0;

/** Sets the brand's colors (checked for contrast) and font as custom properties of the form's root: every one, brand or not. */
export function applyBranding(element: HTMLElement, branding: Branding | null): void {
  const colors = palette(branding);
  const style = element.style;
  style.setProperty('--sf-bg', colors.background);
  style.setProperty('--sf-fg', colors.text);
  style.setProperty('--sf-pri', colors.primary);
  style.setProperty('--sf-on-pri', colors.onPrimary);
  style.setProperty('--sf-ring', colors.ring);
  style.setProperty('--sf-err', colors.error);
  // Always set, so a `--sf-font` of the host page never inherits into the embed: `initial` makes
  // the stylesheet's own font stack apply.
  const font = branding?.fontFamily;
  style.setProperty('--sf-font', font && FONT_FAMILY.test(font) ? font : 'initial');
}

/**
 * Draws the form of `config` into `root`, replacing what it held, and handles its submission.
 * The caller provides the styles: `formStyles` adopted into a shadow root, or a `<style nonce>`.
 */
export function renderForm(root: ShadowRoot | HTMLElement, config: PublicFormConfig, options: RenderOptions = {}): RenderedForm {
  const doc = root.ownerDocument;
  const prefix = `sf${++forms}-`;
  const doFetch: Fetch = options.fetch ?? ((url, init) => fetch(url, init));
  const apiBase = options.apiBase ?? '';
  const keys = attemptKeys(options.newKey ?? randomKey);
  const controls = new Map<string, { input: Control; error: HTMLElement }>();
  let current = config;
  let busy = false;

  function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
    const element = doc.createElement(tag);
    for (const name in attrs) element.setAttribute(name, attrs[name]!);
    element.append(...children);
    return element;
  }

  const wrap = h('div', { class: ROOT_CLASS });
  applyBranding(wrap, config.branding);
  const logo = httpUrl(config.branding?.logoUrl);
  if (logo) wrap.append(h('img', { class: 'sf-logo', src: logo, alt: config.branding!.name }));
  wrap.append(h(`h${options.headingLevel ?? 2}` as 'h2', { class: 'sf-title', id: `${prefix}t` }, config.title));

  const form = h('form', { novalidate: '', 'aria-labelledby': `${prefix}t` }, h('p', { class: 'sf-note' }, TEXT.note));
  const status = h('p', { class: 'sf-msg', role: 'alert' });
  const list = formControls(config);
  // The consent label is a text node of its own: a changed consent text replaces its data in place.
  const consentText = doc.createTextNode(config.consentText);

  /** One control of the list, as hosted-html.ts draws it: a `.sf-f` block with its label and error line. */
  function add(spec: FormControl): Node {
    const { key, type, required } = spec;
    const id = prefix + controls.size;
    const check = type === 'checkbox';
    const input: Control = type === 'textarea' ? h('textarea', spec.attrs) : type === 'select' ? h('select', spec.attrs) : h('input', { type, ...spec.attrs });
    if (spec.maxLength && !(input instanceof HTMLSelectElement)) input.maxLength = spec.maxLength;
    if (input instanceof HTMLSelectElement) {
      input.append(h('option', { value: '' }, TEXT.choose));
      for (const choice of spec.options) {
        const option = h('option', {}, choice);
        option.value = choice;
        input.append(option);
      }
    }
    input.id = id;
    input.name = key;
    if (!check) input.className = 'sf-in';
    if (required) {
      input.required = true;
      input.setAttribute('aria-required', 'true');
    }
    const start = options.values?.[key];
    if (check) (input as HTMLInputElement).checked = start === true;
    else if (typeof start === 'string') input.value = start;
    const labelElement = h('label', { for: id }, key === CONSENT ? consentText : spec.label);
    if (required) labelElement.append(h('span', { 'aria-hidden': 'true' }, ' *'));
    const error = h('p', { class: 'sf-err', id: `${id}e`, hidden: '' });
    controls.set(key, { input, error });
    return h('div', { class: 'sf-f' }, check ? h('div', { class: 'sf-c' }, input, labelElement) : labelElement, ...(check ? [] : [input]), error);
  }

  for (const spec of list) form.append(add(spec));
  const honeypot = h('input', { type: 'text', name: HONEYPOT.name, id: `${prefix}hp`, tabindex: '-1', autocomplete: 'off' });
  const button = h('button', { type: 'submit', class: 'sf-btn' }, TEXT.submit);
  form.append(h('div', { class: 'sf-hp', 'aria-hidden': 'true' }, h('label', { for: `${prefix}hp` }, HONEYPOT.label), honeypot), status, button);
  wrap.append(form);
  root.replaceChildren(wrap);

  /** What was typed, read from the form's own FormData: the same reading as the server's of a no-JS post. */
  function values(): Values {
    return postedValues(list, new FormData(form));
  }

  let announcing: ReturnType<typeof setTimeout> | undefined;
  function announce(message: string): void {
    // Emptied first, and filled a moment later, so the same message twice in a row is announced twice.
    clearTimeout(announcing);
    status.textContent = '';
    if (message) announcing = setTimeout(() => (status.textContent = message), 50);
  }

  function mark(key: string, message: string): void {
    const entry = controls.get(key);
    if (!entry) return;
    entry.input.setAttribute('aria-invalid', 'true');
    entry.input.setAttribute('aria-describedby', entry.error.id);
    entry.error.textContent = message;
    entry.error.hidden = false;
  }

  function clearMarks(): void {
    for (const { input, error } of controls.values()) {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
      error.textContent = '';
      error.hidden = true;
    }
    announce('');
  }

  function focusFirstMarked(): void {
    for (const { input } of controls.values()) {
      if (input.getAttribute('aria-invalid')) return input.focus();
    }
  }

  /** The browser's own checks (required, email, number, url, date), plus "email or phone". */
  function checkLocally(): boolean {
    let ok = true;
    for (const [key, { input }] of controls) {
      if (!input.validity.valid) {
        mark(key, input.validationMessage);
        ok = false;
      }
    }
    const identity = ['email', 'phone'].filter((key) => controls.has(key));
    if (identity.length && identity.every((key) => !controls.get(key)!.input.value.trim())) {
      const message = identityMessage(identity);
      for (const key of identity) mark(key, message);
      ok = false;
    }
    return ok;
  }

  function succeed(result: SubmitResult): void {
    keys.succeeded();
    const redirect = httpUrl(result.redirectUrl);
    options.onSubmitted?.({ successMessage: result.successMessage, redirectUrl: redirect });
    // Shown even when redirecting: a blocked navigation must not leave the visitor in front of the form.
    const done = h('p', { class: 'sf-done', role: 'status', tabindex: '-1' }, result.successMessage);
    form.replaceWith(done);
    done.focus();
    if (redirect) (options.navigate ?? ((url) => location.assign(url)))(redirect);
  }

  async function fail(failure: Failure): Promise<void> {
    options.onError?.({ code: failure.code, message: failure.message });
    if (failure.code === 'CONSENT_REQUIRED') {
      // The text changed while the form was open: show the new one and ask again, keeping the rest.
      const fresh = await getConfig(doFetch, apiBase, current.slug);
      if (!fresh.ok) return announce(fresh.message);
      current = { ...current, consentText: fresh.data.consentText, consentVersion: fresh.data.consentVersion };
      consentText.data = current.consentText;
      (controls.get(CONSENT)!.input as HTMLInputElement).checked = false;
    }
    const marked = controlsToMark(failure, (k) => controls.has(k));
    for (const k of marked) mark(k, failure.message);
    announce(failure.message);
    focusFirstMarked();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    clearMarks();
    if (!checkLocally()) {
      announce(TEXT.correct);
      return focusFirstMarked();
    }
    const metadata = utmFromUrl(options.pageUrl ?? location.href);
    const body = JSON.stringify(buildBody(current, values(), metadata, honeypot.value));
    if (options.preview) return announce('Preview: nothing was sent.');
    // aria-disabled rather than disabled: a disabled button drops keyboard focus to the page.
    busy = true;
    button.setAttribute('aria-disabled', 'true');
    form.setAttribute('aria-busy', 'true');
    button.textContent = 'Sending…';
    const outcome = await postLead(doFetch, apiBase, current.slug, body, keys.keyFor(body));
    if (outcome.ok) return succeed(outcome.data);
    await fail(outcome); // still busy: a CONSENT_REQUIRED fetches the new text first
    busy = false;
    button.removeAttribute('aria-disabled');
    form.removeAttribute('aria-busy');
    button.textContent = TEXT.submit;
  });

  options.onReady?.();
  return { form, values };
}
