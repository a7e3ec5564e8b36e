import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { matchesEtag } from '../http/in-memory.js';
import { Envelope, errorResponses } from '../http/envelope.js';
import { AppError } from '../http/errors.js';
import { addJsonBodyParser } from '../http/json-body.js';
import { openCors, type CorsPolicy } from '../http/cors.js';
import { RATE_LIMIT_HEADERS, RateLimitedResponse, type RateLimiter, type RateLimitRule } from '../http/rate-limit.js';
import { isPlainObject } from '../lib/json.js';
import type { FormCache } from './form-cache.js';
import type { LiveForm } from './public-form.js';
import { CONFIG_READS_PER_MINUTE, LIMITS, SUBMISSIONS_PER_MINUTE } from './rules.js';
import { PublicFormConfig, PublicSlugParams, SubmitBody, SubmitResult } from './schema.js';
import { publicFormNotFound } from './errors.js';
import { pageUrlOf, type SubmitService } from './submit-service.js';

/**
 * The public Forms API (spec part C): no authentication, open CORS, a rate limit
 * per client IP + slug. The org is resolved from the slug and never exposed.
 */
export const CONFIG_READS: RateLimitRule = {
  name: 'form-config',
  limit: CONFIG_READS_PER_MINUTE,
  windowMs: 60_000,
  message: 'Too many requests for this form from your network.',
};
export const SUBMISSIONS: RateLimitRule = {
  name: 'form-submit',
  limit: SUBMISSIONS_PER_MINUTE,
  windowMs: 60_000,
  message: 'Too many submissions of this form from your network.',
};

/** CORS for every route of this API (http/cors.ts). */
const CORS: CorsPolicy = {
  methods: ['GET', 'POST', 'OPTIONS'],
  allowedHeaders: ['Content-Type', 'Idempotency-Key', 'If-None-Match'],
  // Browsers hide other response headers from cross-origin scripts unless listed.
  exposedHeaders: ['ETag', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Idempotent-Replayed', 'X-Request-Id'],
  // A day: the longest Firefox honours (Chromium caps at 2 hours); the answer never changes.
  maxAge: 86400,
};

const ETAG_HEADER = { type: 'string', description: 'Version of this configuration: send it in If-None-Match to get 304 while it is current.' } as const;

/** Per client IP (request.ip honours TRUST_PROXY) and slug; an over-long slug cannot be a form, so it is cut. */
export function clientAndSlug(request: FastifyRequest): string {
  return submitLimitKey(request.ip, (request.params as { slug?: string }).slug ?? '');
}

/** The key of a form's limits per address: also the chat widget's lead cards' (chat/lead-service.ts), one budget for both. */
export const submitLimitKey = (ip: string, slug: string) => `${ip}|${slug.slice(0, 65)}`;

export function registerPublicFormRoutes(
  app: App,
  deps: { cache: FormCache<LiveForm>; submit: SubmitService; limiter: RateLimiter; /** Counts a view of a live form (each config read: see views-service.ts). */ onView?: (form: LiveForm) => void },
): void {
  const { cache, submit, limiter } = deps;
  const configLimit = limiter.hook(CONFIG_READS, clientAndSlug);
  const submitLimit = limiter.hook(SUBMISSIONS, clientAndSlug);

  // Under its own prefix, so the preflight route CORS adds (OPTIONS /api/public/forms/*) answers this API only.
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // The spec's Content-Type is application/json: anything else is a 415, not text that fails later.
    scope.removeAllContentTypeParsers();
    addJsonBodyParser(scope);
    // First hook of every public route, so even a 404 or a 429 carries the CORS headers.
    openCors(scope, CORS);

    scope.get(
      '/:slug',
      {
        onRequest: configLimit,
        // The slug is looked up as given; validating a lone string param would only cost time on the hottest route.
        validatorCompiler: () => () => true,
        schema: {
          tags: ['Public forms'],
          security: [],
          operationId: 'getPublicForm',
          summary: 'Get a form\'s public configuration',
          description:
            'What a client needs to render the form: fields, custom fields, consent text and version, success message, branding. ' +
            `No authentication; CORS open to every origin. Limited to ${CONFIG_READS_PER_MINUTE} requests per minute per client IP and slug: ` +
            'every answer carries RateLimit-* headers, and a 429 RATE_LIMIT_EXCEEDED says when to retry in Retry-After. ' +
            'Answers with an ETag; send it back in an If-None-Match header to get 304 Not Modified while the form is unchanged. ' +
            'An unknown or inactive form is 404 FORM_NOT_FOUND.',
          params: PublicSlugParams,
          response: {
            200: { ...Envelope(PublicFormConfig), headers: { ETag: ETAG_HEADER, ...RATE_LIMIT_HEADERS } },
            304: { type: 'null', description: 'Not modified: the copy whose ETag you sent is current.', headers: { ETag: ETAG_HEADER, ...RATE_LIMIT_HEADERS } },
            ...errorResponses(404),
            429: RateLimitedResponse,
          },
        },
      },
      (request, reply) => {
        const send = (form: LiveForm | null): void => {
          if (!form) throw publicFormNotFound();
          deps.onView?.(form);
          // Lower-case names: Fastify lower-cases each name it is given, per request (see app.ts).
          reply.header('etag', form.etag).header('cache-control', 'no-cache');
          if (matchesEtag(request.headers['if-none-match'], form.etag)) reply.code(304).send();
          else reply.header('content-type', 'application/json; charset=utf-8').send(form.configBody);
        };
        // A cache hit answers synchronously, without a promise: this is the hottest public route.
        const hit = cache.peek(request.params.slug);
        if (hit !== undefined) return send(hit);
        return cache.get(request.params.slug).then((form) => {
          send(form);
          return reply;
        });
      },
    );

    scope.post(
      '/:slug/submit',
      {
        onRequest: submitLimit,
        bodyLimit: LIMITS.submitBodyBytes,
        // The body schema documents the request; the submit rules check it in their spec order (see submission-check.ts).
        validatorCompiler: () => () => true,
        schema: {
          tags: ['Public forms'],
          security: [],
          operationId: 'submitForm',
          summary: 'Submit a lead',
          description:
            'Creates or updates the CRM contact (by email, then phone), adds a note and, if the form says so, opens an opportunity. ' +
            `No authentication; CORS open to every origin. Limited to ${SUBMISSIONS_PER_MINUTE} submissions per minute per client IP and slug ` +
            '(RateLimit-* headers on every answer; 429 RATE_LIMIT_EXCEEDED with Retry-After); ' +
            'body at most 64 KB. Send an Idempotency-Key header (e.g. a UUID) to make retries safe: a repeat within 24 hours returns the first response and writes nothing. ' +
            'Checks, in order: CONSENT_REQUIRED, IDENTITY_REQUIRED, FIELD_REQUIRED, INVALID_FIELD. A non-empty `_hp` (honeypot) gets a generic 200 and nothing is stored.',
          params: PublicSlugParams,
          headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: LIMITS.idempotencyKey, description: '1–255 visible ASCII characters.' })) }),
          body: SubmitBody,
          response: {
            200: { ...Envelope(SubmitResult), headers: { 'Idempotent-Replayed': { type: 'string', description: '`true` when this is the stored first response.' }, ...RATE_LIMIT_HEADERS } },
            ...errorResponses(400, 404, 413, 415, 422),
            429: RateLimitedResponse,
          },
        },
      },
      async (request, reply) => {
        const body: unknown = request.body;
        if (!isPlainObject(body)) throw new AppError('VALIDATION_ERROR', 'The request body must be a JSON object.');
        const idempotencyKey = request.headers['idempotency-key'];
        const outcome = await submit.submit(request.params.slug, body, {
          ip: request.ip ?? null,
          userAgent: request.headers['user-agent'] ?? null,
          idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey.join(',') : idempotencyKey,
          // The page the form was on, as the browser tells it (often its origin only): the notification email shows it.
          pageUrl: pageUrlOf(request.headers.referer),
        });
        reply.header('Cache-Control', 'no-store');
        if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
        return { success: true as const, data: outcome.result };
      },
    );
  }, { prefix: '/api/public/forms' });
}
