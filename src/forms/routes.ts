import { Readable } from 'node:stream';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { Deleted, PageQuery } from '../orgs/schema.js';
import { ConsentVersionList, EmbedSnippets, FormCreateBody, SubmissionsCsv, FormIdParams, FormPage, FormPatchBody, FormRecord, FormStats, FormWithCounts, SubmissionPage } from './schema.js';
import type { FormsService } from './service.js';

/** Operator API for forms (`/api/org/forms`): everything the panel does with forms. */
export function registerFormRoutes(app: App, deps: { forms: FormsService; orgAuth: OrgAuth }): void {
  const { forms } = deps;

  registerOperatorScope(app, deps.orgAuth, (scope, orgOf) => {
    scope.post(
      '/api/org/forms',
      {
        bodyLimit: ORG_BODY_LIMIT,
        schema: {
          ...operatorRoute,
          operationId: 'createForm',
          summary: 'Create a form',
          description:
            'A lead-capture form, live at once unless `active: false`. The first consent text gets consentVersion "1". Needs an org API key or a session. ' +
            '400 VALIDATION_ERROR for inconsistent fields (a required field must be enabled; email or phone must be); ' +
            '404 AGENT_NOT_FOUND / CUSTOM_FIELD_NOT_FOUND for an unknown agent or custom field; 409 CONFLICT when the slug is taken (slugs are unique across the service); 409 LIMIT_REACHED when the organization has as many forms as its limit allows (GET /api/org/limits); ' +
            '422 PIPELINE_NOT_FOUND / STAGE_NOT_FOUND.',
          body: FormCreateBody,
          response: { 201: Envelope(FormRecord), ...errorResponses(400, 401, 404, 409, 413, 415, 422) },
        },
      },
      async (request, reply) => reply.code(201).send(ok(await forms.create(orgOf(request), request.body))),
    );

    scope.get(
      '/api/org/forms',
      {
        schema: {
          ...operatorRoute,
          operationId: 'listForms',
          summary: 'List forms',
          description: 'The organization\'s forms, active or not, newest first, paged with `limit` and `cursor`. Needs an org API key or a session.',
          querystring: PageQuery,
          response: { 200: Envelope(FormPage), ...errorResponses(400, 401) },
        },
      },
      async (request) => ok(await forms.list(orgOf(request), request.query)),
    );

    scope.get(
      '/api/org/forms/:id',
      {
        schema: {
          ...operatorRoute,
          operationId: 'getForm',
          summary: 'Get a form',
          description:
            'One form with its current consent version, and its all-time `views` and `submissions` (conversion = submissions / views). ' +
            'Views are written in batches about once a second. Needs an org API key or a session. 404 FORM_NOT_FOUND.',
          params: FormIdParams,
          response: { 200: Envelope(FormWithCounts), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => ok(await forms.get(orgOf(request), request.params.id)),
    );

    scope.patch(
      '/api/org/forms/:id',
      {
        bodyLimit: ORG_BODY_LIMIT,
        schema: {
          ...operatorRoute,
          operationId: 'updateForm',
          summary: 'Update a form',
          description:
            'Changes only the fields given, including `active`. A new consentText issues the next consentVersion; clients holding the old one get CONSENT_REQUIRED until they reload the form. ' +
            'Needs an org API key or a session. 404 FORM_NOT_FOUND (or AGENT_NOT_FOUND / CUSTOM_FIELD_NOT_FOUND for a reference); 409 CONFLICT when the slug is taken or the form changed at the same time; 422 PIPELINE_NOT_FOUND / STAGE_NOT_FOUND.',
          params: FormIdParams,
          body: FormPatchBody,
          response: { 200: Envelope(FormRecord), ...errorResponses(400, 401, 404, 409, 413, 415, 422) },
        },
      },
      async (request) => ok(await forms.update(orgOf(request), request.params.id, request.body, deps.orgAuth.auditContext(request))),
    );

    scope.delete(
      '/api/org/forms/:id',
      {
        schema: {
          ...operatorRoute,
          operationId: 'deleteForm',
          summary: 'Delete a form',
          description:
            'Deletes the form with its consent history and submission records; contacts, notes and opportunities stay in the CRM. To stop a form but keep its records, set `active: false`. ' +
            'Needs an org API key or a session. 404 FORM_NOT_FOUND.',
          params: FormIdParams,
          response: { 200: Envelope(Deleted), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => ok(await forms.remove(orgOf(request), request.params.id)),
    );

    scope.get(
      '/api/org/forms/:id/submissions',
      {
        schema: {
          ...operatorRoute,
          operationId: 'listFormSubmissions',
          summary: 'List a form\'s submissions',
          description: 'Newest first, paged with `limit` and `cursor`. Each carries the consent text the visitor agreed to, the UTM values, IP and user agent. Needs an org API key or a session. 404 FORM_NOT_FOUND.',
          params: FormIdParams,
          querystring: PageQuery,
          response: { 200: Envelope(SubmissionPage), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => ok(await forms.submissions(orgOf(request), request.params.id, request.query)),
    );

    scope.get(
      '/api/org/forms/:id/submissions/export',
      {
        schema: {
          ...operatorRoute,
          operationId: 'exportFormSubmissions',
          summary: 'Export a form\'s submissions as CSV',
          description:
            'Every submission of the form as a CSV download (`Content-Disposition: attachment; filename="<slug>-submissions.csv"`), streamed page by page, so any number of rows works. ' +
            'Needs an org API key or a session. 404 FORM_NOT_FOUND.',
          params: FormIdParams,
          response: { 200: { description: 'The CSV file.', content: { 'text/csv': { schema: SubmissionsCsv } } }, ...errorResponses(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const { filename, rows } = await forms.exportSubmissions(orgOf(request), request.params.id);
        reply.headers({
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': `attachment; filename="${filename}"`,
          'Cache-Control': 'no-store',
          'X-Content-Type-Options': 'nosniff',
        });
        // The schema documents the body as text; a stream is how that text is sent, a page at a time.
        return reply.send(Readable.from(rows) as unknown as string);
      },
    );

    scope.get(
      '/api/org/forms/:id/consent-versions',
      {
        schema: {
          ...operatorRoute,
          operationId: 'listFormConsentVersions',
          summary: 'List a form\'s consent versions',
          description: 'Every consent text the form has had, newest version first; a submission\'s consentVersion names one of them. Needs an org API key or a session. 404 FORM_NOT_FOUND.',
          params: FormIdParams,
          response: { 200: Envelope(ConsentVersionList), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => ok(await forms.consentVersions(orgOf(request), request.params.id)),
    );

    scope.get(
      '/api/org/forms/:id/stats',
      {
        schema: {
          ...operatorRoute,
          operationId: 'getFormStats',
          summary: 'Views and submissions of a form per day',
          description:
            'The last 30 days (UTC), today included, oldest first: views (hosted page loads, iframe loads, form-embed.js renders) and stored submissions per day, ' +
            'and their totals over the period. Needs an org API key or a session. 404 FORM_NOT_FOUND.',
          params: FormIdParams,
          response: { 200: Envelope(FormStats), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => ok(await forms.stats(orgOf(request), request.params.id)),
    );

    scope.get(
      '/api/org/forms/:id/embed',
      {
        schema: {
          ...operatorRoute,
          operationId: 'getFormEmbed',
          summary: 'Embed snippets of a form',
          description: 'The direct link, the iframe snippet and the native script snippet, ready to paste into a page. Needs an org API key or a session. 404 FORM_NOT_FOUND.',
          params: FormIdParams,
          response: { 200: Envelope(EmbedSnippets), ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => ok(await forms.embed(orgOf(request), request.params.id)),
    );
  });
}
