import { getConfig, MESSAGES, type Outcome } from './api.js';
import { applyBranding, drawForm, type Submitter } from './renderer.js';
import { formStyles } from './styles.js';
import type { PublicFormConfig } from './types.js';

/**
 * form-embed.js: one script tag renders every `<div data-svc-form="slug">` of the page, present at
 * load or inserted later, each in its own shadow root styled through a constructable stylesheet
 * (no <style> element, no style attribute, no eval: a host CSP that allows only our origin in
 * script-src and connect-src is enough). Events on the div, bubbling and composed:
 * `svc-form:ready` {slug}, `svc-form:submitted` {slug, successMessage}, `svc-form:error` {slug, code, message}.
 *
 * The submission's code (submit.ts: checks, the request, marking refused fields) is a module of its own,
 * `/assets/form-submit.<hash>.js` on the same service, imported once when the visitor first focuses or
 * types in a form of the page: most page views never do, and pay for drawing the form only. A submit
 * waits for it. Its hashed name is written into this script by the build (scripts/build-web.mjs).
 */

/** The submission module's file name, written in by the build. */
declare const FORM_SUBMIT: string;

const SELECTOR = '[data-svc-form]';
const SLUG = /^[a-z0-9-]{3,64}$/;

/** The service's origin, from this script's own URL (captured now: currentScript is null later). */
function apiBase(): string {
  const script = document.currentScript as HTMLScriptElement | null;
  let src = script?.src;
  if (!src) {
    for (const candidate of Array.from(document.scripts)) {
      if (/\/form-embed(\.[\w-]+)?\.js([?#]|$)/.test(candidate.src)) src = candidate.src;
    }
  }
  return src ? new URL(src).origin : location.origin;
}

const base = apiBase();
const rendered = new WeakSet<Element>();
const configs = new Map<string, Promise<Outcome<PublicFormConfig>>>();
let sheet: CSSStyleSheet | undefined;

/**
 * The submission module, once for every form of the page. A failed load is tried again by the next submit,
 * under a URL of its own (`?1`, `?2`…): a browser may remember a module it failed to fetch by its URL.
 */
let submission: Promise<Submitter> | undefined;
let failures = 0;
function loadSubmitter(): Promise<Submitter> {
  return (submission ??= (import(`${base}/assets/${FORM_SUBMIT}${failures ? `?${failures}` : ''}`) as Promise<typeof import('./submit.js')>).then(
    (module) => module.submitter,
    (error: unknown) => {
      submission = undefined;
      failures++;
      throw error;
    },
  ));
}

/** One config request per distinct slug; a failed one is forgotten so a later div tries again. */
function config(slug: string): Promise<Outcome<PublicFormConfig>> {
  let pending = configs.get(slug);
  if (!pending) {
    pending = getConfig((url, init) => fetch(url, init), base, slug);
    configs.set(slug, pending);
    pending.then((outcome) => outcome.ok || configs.delete(slug));
  }
  return pending;
}

function emit(host: Element, name: string, detail: object): void {
  host.dispatchEvent(new CustomEvent(`svc-form:${name}`, { bubbles: true, composed: true, detail }));
}

async function mount(host: HTMLElement): Promise<void> {
  if (rendered.has(host)) return;
  rendered.add(host);
  const slug = host.getAttribute('data-svc-form') ?? '';
  let shadow: ShadowRoot;
  try {
    shadow = host.attachShadow({ mode: 'open' });
  } catch {
    return; // the host page gave this element a shadow root of its own
  }
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(formStyles);
  }
  shadow.adoptedStyleSheets = [sheet];
  const outcome: Outcome<PublicFormConfig> = SLUG.test(slug)
    ? await config(slug)
    : { ok: false, code: 'FORM_NOT_FOUND', status: 404, message: MESSAGES.notFound };
  if (!outcome.ok) {
    const box = document.createElement('p');
    box.className = 'svc-form';
    applyBranding(box, null);
    box.setAttribute('role', 'alert');
    box.textContent = outcome.message;
    shadow.replaceChildren(box);
    return emit(host, 'error', { slug, code: outcome.code, message: outcome.message });
  }
  drawForm(
    shadow,
    outcome.data,
    {
      apiBase: base,
      onReady: () => emit(host, 'ready', { slug }),
      onSubmitted: ({ successMessage }) => emit(host, 'submitted', { slug, successMessage }),
      onError: ({ code, message }) => emit(host, 'error', { slug, code, message }),
    },
    loadSubmitter,
  );
}

function scan(node: Node): void {
  if (!(node instanceof HTMLElement)) return;
  if (node.matches(SELECTOR)) void mount(node);
  node.querySelectorAll<HTMLElement>(SELECTOR).forEach((element) => void mount(element));
}

scan(document.documentElement);
new MutationObserver((records) => {
  for (const record of records) {
    if (record.type === 'attributes') scan(record.target);
    else record.addedNodes.forEach(scan);
  }
}).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-svc-form'] });
