import { createHash } from 'node:crypto';
import type { App } from '../http/app-type.js';
import type { ErrorPageRenderer, RouteErrorConfig } from '../http/error-handler.js';
import { AppError, isAppError } from '../http/errors.js';
import { addFormBodyParser } from '../http/form-body.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { sendHtmlPage as sendPage, styleHash, type HtmlPage as Page } from '../http/html-page.js';
import { etagOf } from '../http/in-memory.js';
import { CONSENT, formControls, HONEYPOT, postedMetadata, postedValues, submissionBody } from '../../web/form/controls.js';
import { controlsToMark } from '../../web/form/values.js';
import { httpUrl, utmValues } from '../../web/form/urls.js';
import { publicFormNotFound } from './errors.js';
import type { FormCache } from './form-cache.js';
import { contentSecurityPolicy, renderFormPage, renderMessagePage, type FieldError } from './hosted-html.js';
import type { LiveForm } from './public-form.js';
import { CONFIG_READS, SUBMISSIONS, clientAndSlug } from './public-routes.js';
import { LIMITS } from './rules.js';
import type { PublicFormConfig } from './schema.js';
import { pageUrlOf, type SubmitService } from './submit-service.js';
import type { WebAssets } from './web-assets.js';

/**
 * The hosted page `GET /f/{slug}` (`?embed=1` for an iframe) and its no-JavaScript post
 * `POST /f/{slug}` (form-encoded), which goes through the same submit service, rules and rate
 * limit as `POST /api/public/forms/{slug}/submit`.
 *
 * Caching: the page of a live form is the same bytes for every visitor (no per-response nonce:
 * the CSP allows scripts from our origin only and the one inline style by its hash), so it is
 * rendered once per form version and embed flag, compressed once, and answered with an ETag
 * (304 on If-None-Match) derived from the form's config ETag and the build of the page script.
 */

/** The config as the public API shows it, parsed once per cached form version. */
const configs = new WeakMap<LiveForm, PublicFormConfig>();
function configOf(form: LiveForm): PublicFormConfig {
  let config = configs.get(form);
  if (!config) {
    config = (JSON.parse(form.configBody) as { data: PublicFormConfig }).data;
    configs.set(form, config);
  }
  return config;
}

const isEmbed = (query: Record<string, unknown>) => query.embed === '1' || query.embed === 'true';

/** The posted pairs by name: last value wins for a repeated name; `__proto__` is just a name in a Map. */
function postedByName(pairs: [string, string][]): Map<string, string> {
  return new Map(pairs);
}

/**
 * The submit API's body from a form post: the one builder of web/form/controls.ts, over the values
 * read from the post as the script reads them from the form's FormData. An unticked consent box
 * sends nothing, so no consentVersion goes with it and the rules answer CONSENT_REQUIRED.
 */
export function postedBody(config: PublicFormConfig, posted: Map<string, string>): Record<string, unknown> {
  const controls = formControls(config);
  return submissionBody(controls, postedValues(controls, posted), {
    consentVersion: posted.has(CONSENT) ? (posted.get('consentVersion') ?? '') : undefined,
    metadata: postedMetadata(posted),
    honeypot: posted.get(HONEYPOT.name) ?? '',
  });
}

/**
 * The Idempotency-Key of a no-JS post: a digest of the form and exactly what was posted. A double
 * click or a resent POST carries the same values, so it replays the first answer and makes one lead;
 * changed values are a new attempt (the same rule as web/form/attempt.ts). A random key in the page
 * would do the same only if every visitor got different bytes, which would defeat caching the page.
 */
function idempotencyKeyOf(slug: string, body: Record<string, unknown>): string {
  return `form-post.${createHash('sha256').update(`${slug}\n${JSON.stringify(body)}`).digest('base64url')}`;
}

const FIELD_CODES = new Set(['CONSENT_REQUIRED', 'IDENTITY_REQUIRED', 'FIELD_REQUIRED', 'INVALID_FIELD', 'VALIDATION_ERROR']);

export interface HostedPageDeps {
  cache: FormCache<LiveForm>;
  submit: SubmitService;
  limiter: RateLimiter;
  assets: WebAssets;
  /** Called for every page load (200 or 304) of a live form: counts a view. */
  onView?: (form: LiveForm) => void;
}

export function registerHostedPageRoutes(app: App, deps: HostedPageDeps): void {
  const { cache, submit, limiter, assets } = deps;
  const pageLimit = limiter.hook(CONFIG_READS, clientAndSlug);
  const submitLimit = limiter.hook(SUBMISSIONS, clientAndSlug);
  /** Rendered pages per form version: `${embed}` → page. UTM variants are rendered per request. */
  const rendered = new WeakMap<LiveForm, Map<string, Page>>();

  function assetUrls(): { css: string; script: string } {
    const state = assets.load();
    if (!state.ok) throw new AppError('SERVICE_UNAVAILABLE', state.message);
    return { css: `/assets/${state.set.hashed('form.css').name}`, script: `/assets/${state.set.hashed('form-page.js').name}` };
  }

  function formPage(config: PublicFormConfig, options: Parameters<typeof renderFormPage>[2], status = 200): Page {
    const { html, style } = renderFormPage(config, assetUrls(), options);
    return { status, html: Buffer.from(html), csp: contentSecurityPolicy(styleHash(style), config.redirectUrl) };
  }

  function messagePage(status: number, heading: string, message: string, config: PublicFormConfig | null, embed: boolean, link?: { href: string; text: string }): Page {
    const state = assets.load();
    const css = state.ok ? `/assets/${state.set.hashed('form.css').name}` : null;
    const { html, style } = renderMessagePage({
      title: config ? config.title : heading,
      heading: config ? config.title : heading,
      message,
      branding: config?.branding ?? null,
      embed,
      css,
      link,
      role: status < 400 ? 'status' : 'alert',
    });
    return { status, html: Buffer.from(html), csp: contentSecurityPolicy(styleHash(style), null) };
  }

  /**
   * Refusals on these routes are pages, not JSON: a 404, a 429 with Retry-After, a 503 before the
   * build exists or while the database is unavailable (http/database-unavailable.ts). The one error
   * handler (http/error-handler.ts) logs them and sets their headers; this is the page.
   */
  const errorPage: ErrorPageRenderer = (request, reply, { status, error }) => {
    const embed = isEmbed((request.query ?? {}) as Record<string, unknown>);
    const message =
      error?.code === 'FORM_NOT_FOUND'
        ? 'This form does not exist or is no longer accepting submissions.'
        : error && status < 500
          ? error.message
          : status === 503 && error
            ? error.message
            : status < 500
              ? 'The request could not be read.'
              : 'Something went wrong on our side. Please try again in a moment.';
    const heading = status === 404 ? 'Form not found' : status === 429 ? 'Too many attempts' : 'Something went wrong';
    return sendPage(request, reply, messagePage(status, heading, message, null, embed), 'no-store');
  };
  const config: RouteErrorConfig = { errorFormat: 'html', errorPage };

  app.register(async (scope) => {
    // Only these routes read form posts; the limit is the submit API's.
    scope.removeAllContentTypeParsers();
    addFormBodyParser(scope, LIMITS.submitBodyBytes, postedByName);

    scope.get('/f/:slug', { onRequest: pageLimit, config, schema: { hide: true } }, async (request, reply) => {
      const { slug } = request.params as { slug: string };
      const query = (request.query ?? {}) as Record<string, unknown>;
      const form = cache.peek(slug) ?? (await cache.get(slug));
      if (!form) throw publicFormNotFound();
      deps.onView?.(form);
      const embed = isEmbed(query);
      const utm = utmValues((key) => query[key]);
      const config = configOf(form);
      if (Object.keys(utm).length) {
        const page = formPage(config, { embed, utm });
        page.etag = etagOf(page.html);
        return sendPage(request, reply, page, 'no-cache');
      }
      let pages = rendered.get(form);
      if (!pages) rendered.set(form, (pages = new Map()));
      const variant = embed ? 'embed' : 'page';
      let page = pages.get(variant);
      if (!page) {
        page = formPage(config, { embed, utm });
        page.etag = `"${createHash('sha256').update(`${form.etag}|${variant}|${assetUrls().script}`).digest('base64url').slice(0, 27)}"`;
        pages.set(variant, page);
      }
      return sendPage(request, reply, page, 'no-cache');
    });

    scope.post('/f/:slug', { onRequest: submitLimit, config, schema: { hide: true } }, async (request, reply) => {
      const { slug } = request.params as { slug: string };
      const embed = isEmbed((request.query ?? {}) as Record<string, unknown>);
      const posted = request.body instanceof Map ? (request.body as Map<string, string>) : new Map<string, string>();
      const form = await cache.get(slug);
      if (!form) throw publicFormNotFound();
      const config = configOf(form);
      const body = postedBody(config, posted);
      const utm = postedMetadata(posted);
      try {
        const outcome = await submit.submit(slug, body, {
          ip: request.ip ?? null,
          userAgent: request.headers['user-agent'] ?? null,
          idempotencyKey: idempotencyKeyOf(slug, body),
          pageUrl: pageUrlOf(request.headers.referer),
        });
        const redirect = httpUrl(outcome.result.redirectUrl);
        if (redirect && !embed) return reply.code(303).header('Location', redirect).header('Cache-Control', 'no-store').send();
        const link = redirect ? { href: redirect, text: 'Continue' } : undefined;
        return sendPage(request, reply, messagePage(200, 'Thank you', outcome.result.successMessage, config, embed, link), 'no-store');
      } catch (error) {
        if (!isAppError(error) || !FIELD_CODES.has(error.code)) throw error;
        // The form again, as the visitor left it, with the refusal marked; a changed consent text is shown fresh.
        const current = error.code === 'CONSENT_REQUIRED' ? ((await cache.get(slug)) ?? form) : form;
        const currentConfig = configOf(current);
        const values = postedValues(formControls(currentConfig), posted);
        if (error.code === 'CONSENT_REQUIRED' && posted.has(CONSENT) && posted.get('consentVersion') !== current.consentVersion) values[CONSENT] = false;
        const shown = new Set(Object.keys(values));
        const errors: FieldError[] = controlsToMark({ code: error.code, ...(error.field !== undefined ? { field: error.field } : {}) }, (key) => shown.has(key)).map(
          (key) => ({ key, message: error.message }),
        );
        const page = formPage(currentConfig, { embed, utm, values, errors, summary: error.message }, error.status);
        return sendPage(request, reply, page, 'no-store');
      }
    });
  });
}
