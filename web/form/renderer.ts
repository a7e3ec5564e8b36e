import { MESSAGES } from './api.js';
import { palette } from './contrast.js';
import { CONSENT, formControls, HONEYPOT, postedValues, TEXT, type FormControl, type Values } from './controls.js';
import { FONT_FAMILY } from './fields.js';
import { ROOT_CLASS } from './styles.js';
import { submitter } from './submit.js';
import type { Branding, PublicFormConfig } from './types.js';
import type { Control, DrawnForm, RenderOptions, Submitter } from './drawn.js';
import { httpUrl } from './urls.js';

export { formStyles, ROOT_CLASS } from './styles.js';
export type { Branding, PublicCustomField, PublicFormConfig, SubmitResult } from './types.js';
export type { Values } from './values.js';
export type { DrawnForm, RenderOptions, Submitter } from './drawn.js';

/**
 * The one form renderer, for the hosted page, the embed script and the console's preview.
 * Every operator-supplied string reaches the DOM as a text node or through an attribute
 * setter; nothing is ever parsed as HTML.
 */

export interface RenderedForm {
  /** The `<form>` element (detached once the success message replaces it). */
  form: HTMLFormElement;
  /** What the visitor has entered so far, by control key: pass it as `values` to a re-render. */
  values(): Values;
}

type Attrs = Record<string, string>;

let forms = 0;

/** Sets the brand's colors (checked for contrast) and font as custom properties of the form's root: every one, brand or not. */
export function applyBranding(element: HTMLElement, branding: Branding | null): void {
  const colors = palette(branding);
  const font = branding?.fontFamily;
  const values = {
    bg: colors.background,
    fg: colors.text,
    pri: colors.primary,
    'on-pri': colors.onPrimary,
    ring: colors.ring,
    err: colors.error,
    // Always set, so a `--sf-font` of the host page never inherits into the embed: `initial` makes
    // the stylesheet's own font stack apply.
    font: font && FONT_FAMILY.test(font) ? font : 'initial',
  };
  for (const [name, value] of Object.entries(values)) element.style.setProperty(`--sf-${name}`, value);
}

/**
 * Draws the form of `config` into `root`, replacing what it held, and handles its submission.
 * The caller provides the styles: `formStyles` adopted into a shadow root, or a `<style nonce>`.
 */
export function renderForm(root: ShadowRoot | HTMLElement, config: PublicFormConfig, options: RenderOptions = {}): RenderedForm {
  const { form, list } = drawForm(root, config, options, () => Promise.resolve(submitter));
  // What was typed, read from the form's own FormData: the same reading as the server's of a no-JS post.
  return { form, values: () => postedValues(list, new FormData(form)) };
}

/**
 * `renderForm` with the submission's code brought by `load` when it is first needed: form-embed.js imports
 * it from the service when the visitor first touches the form (most page views never do), and a submit
 * waits for it. A load that failed says so (NETWORK_ERROR's words) and the next submit tries again.
 */
export function drawForm(root: ShadowRoot | HTMLElement, config: PublicFormConfig, options: RenderOptions, load: () => Promise<Submitter>): DrawnForm {
  const doc = root.ownerDocument;
  const prefix = `sf${++forms}-`;
  const controls: DrawnForm['controls'] = new Map();

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

  const drawn: DrawnForm = {
    config,
    options,
    form,
    status,
    button,
    honeypot,
    controls,
    consentText,
    list,
  };
  let submit: Promise<() => Promise<void>> | undefined;
  const ready = () =>
    (submit ??= load().then(
      (make) => make(drawn),
      (error: unknown) => {
        submit = undefined;
        throw error;
      },
    ));
  // The visitor started on the form: its submission's code is fetched now, so it is there by the submit.
  for (const type of ['focusin', 'input']) form.addEventListener(type, () => void ready().catch(() => {}), { once: true });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    ready().then(
      (run) => run(),
      () => {
        // As a submission that could not reach the server: said, and the `svc-form:error` of form-embed.js.
        status.textContent = MESSAGES.network;
        options.onError?.({ code: 'NETWORK_ERROR', message: MESSAGES.network });
      },
    );
  });

  options.onReady?.();
  return drawn;
}
