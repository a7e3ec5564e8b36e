import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { Deleted, PageQuery } from '../orgs/schema.js';
import type { CustomFieldsService } from './custom-fields-service.js';
import type { PipelinesService } from './pipelines-service.js';
import { CustomField, CustomFieldCreate, CustomFieldListQuery, CustomFieldPage, CustomFieldIdParams, CustomFieldPatch, Pipeline, PipelineIdParams, PipelineCreate, PipelinePage, PipelinePatch, StageParams } from './schema.js';

/** `/api/org/custom-fields` and `/api/org/pipelines`: how the org's CRM is set up. */
export function registerCrmSettingsRoutes(app: App, deps: { orgAuth: OrgAuth; customFields: CustomFieldsService; pipelines: PipelinesService }): void {
  const { customFields, pipelines } = deps;

  registerOperatorScope(app, deps.orgAuth, (r, orgOf) => {
    // ── Custom fields ──
    r.post('/api/org/custom-fields', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Create a custom field', description: 'A field for contacts or opportunities. `key` is unique in the organization (409 otherwise).', body: CustomFieldCreate, response: { 201: Envelope(CustomField), ...errorResponses(400, 401, 409, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await customFields.create(orgOf(request), request.body))));

    r.get('/api/org/custom-fields', {
      schema: { ...operatorRoute, summary: 'List custom fields', description: 'Newest first; filter by `entity` and `archived`.', querystring: CustomFieldListQuery, response: { 200: Envelope(CustomFieldPage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await customFields.list(orgOf(request), request.query)));

    r.get('/api/org/custom-fields/:id', {
      schema: { ...operatorRoute, summary: 'Get a custom field', params: CustomFieldIdParams, response: { 200: Envelope(CustomField), ...errorResponses(401, 404) } },
    }, async (request) => ok(await customFields.get(orgOf(request), request.params.id)));

    r.patch('/api/org/custom-fields/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Update a custom field', description: 'Label and options; key, entity and type are fixed.', params: CustomFieldIdParams, body: CustomFieldPatch, response: { 200: Envelope(CustomField), ...errorResponses(400, 401, 404, 413, 415) } },
    }, async (request) => ok(await customFields.update(orgOf(request), request.params.id, request.body)));

    r.post('/api/org/custom-fields/:id/archive', {
      schema: { ...operatorRoute, summary: 'Archive a custom field', description: 'Hidden from forms and refused in new input; stored values stay. Idempotent.', params: CustomFieldIdParams, response: { 200: Envelope(CustomField), ...errorResponses(401, 404) } },
    }, async (request) => ok(await customFields.archive(orgOf(request), request.params.id)));

    r.post('/api/org/custom-fields/:id/unarchive', {
      schema: { ...operatorRoute, summary: 'Restore an archived custom field', params: CustomFieldIdParams, response: { 200: Envelope(CustomField), ...errorResponses(401, 404) } },
    }, async (request) => ok(await customFields.unarchive(orgOf(request), request.params.id)));

    r.delete('/api/org/custom-fields/:id', {
      schema: { ...operatorRoute, summary: 'Delete a custom field', description: 'Forms stop showing it; values already stored on records stay.', params: CustomFieldIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404) } },
    }, async (request) => ok(await customFields.remove(orgOf(request), request.params.id)));

    // ── Pipelines ──
    r.post('/api/org/pipelines', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Create a pipeline', description: 'With its stages in order.', body: PipelineCreate, response: { 201: Envelope(Pipeline), ...errorResponses(400, 401, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await pipelines.create(orgOf(request), request.body))));

    r.get('/api/org/pipelines', {
      schema: { ...operatorRoute, summary: 'List pipelines', description: 'Newest first, each with its stages in order.', querystring: PageQuery, response: { 200: Envelope(PipelinePage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await pipelines.list(orgOf(request), request.query)));

    r.get('/api/org/pipelines/:id', {
      schema: { ...operatorRoute, summary: 'Get a pipeline', params: PipelineIdParams, response: { 200: Envelope(Pipeline), ...errorResponses(401, 404) } },
    }, async (request) => ok(await pipelines.get(orgOf(request), request.params.id)));

    r.patch('/api/org/pipelines/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: {
        ...operatorRoute,
        summary: 'Update a pipeline',
        description: 'Rename it, make it the default, or give the complete ordered list of `stages`. Removing a stage that an active form or an opportunity uses is refused with 409.',
        params: PipelineIdParams, body: PipelinePatch, response: { 200: Envelope(Pipeline), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    }, async (request) => ok(await pipelines.update(orgOf(request), request.params.id, request.body)));

    r.delete('/api/org/pipelines/:id', {
      schema: { ...operatorRoute, summary: 'Delete a pipeline', description: 'Refused with 409 for the default pipeline, and while an active form or an opportunity uses it.', params: PipelineIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404, 409) } },
    }, async (request) => ok(await pipelines.remove(orgOf(request), request.params.id)));

    r.delete('/api/org/pipelines/:id/stages/:stageId', {
      schema: { ...operatorRoute, summary: 'Delete a stage', description: 'Answers the pipeline without it. Refused with 409 for the last stage, and while an active form or an opportunity uses it.', params: StageParams, response: { 200: Envelope(Pipeline), ...errorResponses(401, 404, 409) } },
    }, async (request) => ok(await pipelines.removeStage(orgOf(request), request.params.id, request.params.stageId)));
  });
}
