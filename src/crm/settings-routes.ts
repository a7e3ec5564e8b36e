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
      schema: { ...operatorRoute, operationId: 'createCustomField', summary: 'Create a custom field', description: 'A field for contacts or opportunities, which forms can ask for. Needs an org API key or a session. 400 VALIDATION_ERROR for bad options (only `select` fields have them); 409 CONFLICT when the key is taken, archived fields included; 409 LIMIT_REACHED when the organization has as many custom fields as its limit allows (GET /api/org/limits), archived ones included.', body: CustomFieldCreate, response: { 201: Envelope(CustomField), ...errorResponses(400, 401, 409, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await customFields.create(orgOf(request), request.body))));

    r.get('/api/org/custom-fields', {
      schema: { ...operatorRoute, operationId: 'listCustomFields', summary: 'List custom fields', description: 'Newest first, paged with `limit` and `cursor`; filter by `entity` and `archived`. Needs an org API key or a session.', querystring: CustomFieldListQuery, response: { 200: Envelope(CustomFieldPage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await customFields.list(orgOf(request), request.query)));

    r.get('/api/org/custom-fields/:id', {
      schema: { ...operatorRoute, operationId: 'getCustomField', summary: 'Get a custom field', description: 'One custom field definition. Needs an org API key or a session. 404 CUSTOM_FIELD_NOT_FOUND.', params: CustomFieldIdParams, response: { 200: Envelope(CustomField), ...errorResponses(401, 404) } },
    }, async (request) => ok(await customFields.get(orgOf(request), request.params.id)));

    r.patch('/api/org/custom-fields/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'updateCustomField', summary: 'Update a custom field', description: 'Label and options; key, entity and type are fixed. Needs an org API key or a session. 404 CUSTOM_FIELD_NOT_FOUND.', params: CustomFieldIdParams, body: CustomFieldPatch, response: { 200: Envelope(CustomField), ...errorResponses(400, 401, 404, 413, 415) } },
    }, async (request) => ok(await customFields.update(orgOf(request), request.params.id, request.body)));

    r.post('/api/org/custom-fields/:id/archive', {
      schema: { ...operatorRoute, operationId: 'archiveCustomField', summary: 'Archive a custom field', description: 'Hidden from forms and refused in new input; stored values stay. Idempotent. Needs an org API key or a session. 404 CUSTOM_FIELD_NOT_FOUND.', params: CustomFieldIdParams, response: { 200: Envelope(CustomField), ...errorResponses(401, 404) } },
    }, async (request) => ok(await customFields.archive(orgOf(request), request.params.id)));

    r.post('/api/org/custom-fields/:id/unarchive', {
      schema: { ...operatorRoute, operationId: 'unarchiveCustomField', summary: 'Restore an archived custom field', description: 'Forms that list the field show it again and new input may set it. Idempotent. Needs an org API key or a session. 404 CUSTOM_FIELD_NOT_FOUND.', params: CustomFieldIdParams, response: { 200: Envelope(CustomField), ...errorResponses(401, 404) } },
    }, async (request) => ok(await customFields.unarchive(orgOf(request), request.params.id)));

    r.delete('/api/org/custom-fields/:id', {
      schema: { ...operatorRoute, operationId: 'deleteCustomField', summary: 'Delete a custom field', description: 'Forms stop showing it; values already stored on records stay. Needs an org API key or a session. 404 CUSTOM_FIELD_NOT_FOUND.', params: CustomFieldIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404) } },
    }, async (request) => ok(await customFields.remove(orgOf(request), request.params.id)));

    // ── Pipelines ──
    r.post('/api/org/pipelines', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'createPipeline', summary: 'Create a pipeline', description: 'With its stages in order; `isDefault: true` makes it the default pipeline. Needs an org API key or a session. 400 VALIDATION_ERROR for two stages with one name; 409 LIMIT_REACHED when the organization has as many pipelines as its limit allows (GET /api/org/limits).', body: PipelineCreate, response: { 201: Envelope(Pipeline), ...errorResponses(400, 401, 409, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await pipelines.create(orgOf(request), request.body))));

    r.get('/api/org/pipelines', {
      schema: { ...operatorRoute, operationId: 'listPipelines', summary: 'List pipelines', description: 'Newest first, each with its stages in order, paged with `limit` and `cursor`. Needs an org API key or a session.', querystring: PageQuery, response: { 200: Envelope(PipelinePage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await pipelines.list(orgOf(request), request.query)));

    r.get('/api/org/pipelines/:id', {
      schema: { ...operatorRoute, operationId: 'getPipeline', summary: 'Get a pipeline', description: 'One pipeline with its stages in order. Needs an org API key or a session. 404 NOT_FOUND.', params: PipelineIdParams, response: { 200: Envelope(Pipeline), ...errorResponses(401, 404) } },
    }, async (request) => ok(await pipelines.get(orgOf(request), request.params.id)));

    r.patch('/api/org/pipelines/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: {
        ...operatorRoute,
        operationId: 'updatePipeline',
        summary: 'Update a pipeline',
        description:
          'Rename it, make it the default, or give the complete ordered list of `stages`. Needs an org API key or a session. 404 NOT_FOUND; ' +
          '409 CONFLICT when a stage left out is used by an active form or an opportunity.',
        params: PipelineIdParams, body: PipelinePatch, response: { 200: Envelope(Pipeline), ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    }, async (request) => ok(await pipelines.update(orgOf(request), request.params.id, request.body)));

    r.delete('/api/org/pipelines/:id', {
      schema: { ...operatorRoute, operationId: 'deletePipeline', summary: 'Delete a pipeline', description: 'Deletes the pipeline and its stages. Needs an org API key or a session. 404 NOT_FOUND; 409 CONFLICT for the default pipeline, and while an active form or an opportunity uses it.', params: PipelineIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404, 409) } },
    }, async (request) => ok(await pipelines.remove(orgOf(request), request.params.id)));

    r.delete('/api/org/pipelines/:id/stages/:stageId', {
      schema: { ...operatorRoute, operationId: 'deleteStage', summary: 'Delete a stage', description: 'Answers the pipeline without it. Needs an org API key or a session. 404 NOT_FOUND for an unknown pipeline or stage; 409 CONFLICT for the last stage, and while an active form or an opportunity uses it.', params: StageParams, response: { 200: Envelope(Pipeline), ...errorResponses(401, 404, 409) } },
    }, async (request) => ok(await pipelines.removeStage(orgOf(request), request.params.id, request.params.stageId)));
  });
}
