import { getConfig, postLead, type Failure, type Fetch } from './api.js';
import { attemptKeys, randomKey } from './attempt.js';
import { CONSENT, identityMessage, postedValues, TEXT } from './controls.js';
import type { DrawnForm } from './drawn.js';
import type { SubmitResult } from './types.js';
import { httpUrl, utmFromUrl } from './urls.js';
import { buildBody, controlsToMark } from './values.js';

/**
 * A drawn form's submission (renderer.ts draws it): the browser's own checks and "email or phone", the
 * body, one Idempotency-Key per attempt, the request, and what its answer shows: the success message (and
 * the redirect), or each refused field marked and the refusal said once. Bundled into form-page.js and
 * form-renderer.js; form-embed.js imports it from the service (`/assets/form-submit.<hash>.js`) when the
 * visitor first touches a form.
 */
export function submitter(drawn: DrawnForm): () => Promise<void> {
  const { options, form, status, button, honeypot, controls, consentText } = drawn;
  const doFetch: Fetch = options.fetch ?? ((url, init) => fetch(url, init));
  const apiBase = options.apiBase ?? '';
  const keys = attemptKeys(options.newKey ?? randomKey);
  let current = drawn.config;
  let busy = false;

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
    const done = form.ownerDocument.createElement('p');
    done.className = 'sf-done';
    done.setAttribute('role', 'status');
    done.tabIndex = -1;
    done.textContent = result.successMessage;
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

  return async () => {
    if (busy) return;
    clearMarks();
    if (!checkLocally()) {
      announce(TEXT.correct);
      return focusFirstMarked();
    }
    const metadata = utmFromUrl(options.pageUrl ?? location.href);
    const body = JSON.stringify(buildBody(current, postedValues(drawn.list, new FormData(form)), metadata, honeypot.value));
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
  };
}
