import { formControls, postedValues } from './controls.js';
import { renderForm } from './renderer.js';
import type { PublicFormConfig } from './types.js';

/**
 * form-page.js: the hosted page's enhancement (`/f/{slug}`). The server has already drawn a working
 * `<form method="post">` (it works with JavaScript off); this replaces it with the renderer's form,
 * keeping anything typed, so the visitor gets inline errors, a consent refresh and no page reload.
 *
 * With `?embed=1` (`<html data-embed>`), it reports the page's height to the parent window whenever
 * it changes: `postMessage({type: 'svc-form:resize', slug, height}, '*')`, and a success redirect
 * navigates the top window.
 *
 * The config is read from `<script type="application/json" id="svc-form-config">`: no request before
 * the form is drawn. A page that shows server-side errors (a no-JS post) is left as it is.
 */

const root = document.getElementById('svc-form-root');
const source = document.getElementById('svc-form-config');
const embedded = document.documentElement.hasAttribute('data-embed');

function navigateTop(url: string): void {
  try {
    (window.top ?? window).location.assign(url);
  } catch {
    location.assign(url); // a sandboxed frame may not move its parent
  }
}

/**
 * In an iframe, UTM values come from the iframe's own URL when it has any (the host put them in the
 * src), else from the host page's URL as far as the referrer shows it (only its origin under the
 * default strict-origin-when-cross-origin policy, so usually none).
 */
function utmSource(): string {
  return /[?&]utm_/.test(location.search) ? location.href : document.referrer || location.href;
}

if (root && source && !root.hasAttribute('data-errors')) {
  const config = JSON.parse(source.textContent ?? 'null') as PublicFormConfig;
  const form = root.querySelector('form');
  renderForm(root, config, {
    headingLevel: 1,
    // Anything typed before the script ran, read as the server reads a post of that form.
    values: form ? postedValues(formControls(config), new FormData(form)) : {},
    ...(embedded ? { navigate: navigateTop, pageUrl: utmSource() } : {}),
  });
}

if (embedded && source && window.parent !== window) {
  const slug = (JSON.parse(source.textContent ?? '{}') as { slug?: string }).slug ?? '';
  let last = -1;
  const report = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'svc-form:resize', slug, height }, '*');
  };
  new ResizeObserver(report).observe(document.documentElement);
  report();
}
