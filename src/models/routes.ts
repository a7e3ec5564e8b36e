import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { Deleted } from '../orgs/schema.js';
import { ModelProvider, ModelProviderCreate, ModelProviderPage, ModelProviderPatch, ProviderIdParams, ProviderPageQuery } from './schema.js';
import type { ModelsService } from './service.js';

const WHO = 'Needs an org API key or a session (an owner\'s or a member\'s).';

/** `/api/org/model-providers`: where the organization's agents' models are, and the keys to reach them. */
export function registerModelRoutes(app: App, deps: { orgAuth: OrgAuth; models: ModelsService }): void {
  const { orgAuth, models } = deps;

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    r.post('/api/org/model-providers', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'createModelProvider', summary: 'Add a model provider', description: `A model API the organization's agents can use: OpenAI, Anthropic or any Chat Completions server. The API key is stored encrypted and never returned (\`hasApiKey\`). ${WHO} 400 VALIDATION_ERROR; 400 ENDPOINT_NOT_ALLOWED for a base URL that is not https:// or not public; 409 LIMIT_REACHED when the organization has as many model providers as its limit allows (GET /api/org/limits).`, body: ModelProviderCreate, response: { 201: Envelope(ModelProvider), ...errorResponses(400, 401, 409, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await models.create(orgOf(request), request.body, orgAuth.auditContext(request)))));

    r.get('/api/org/model-providers', {
      schema: { ...operatorRoute, operationId: 'listModelProviders', summary: 'List model providers', description: `Newest first, paged with \`limit\` and \`cursor\`; keys are never returned. ${WHO}`, querystring: ProviderPageQuery, response: { 200: Envelope(ModelProviderPage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await models.list(orgOf(request), request.query)));

    r.get('/api/org/model-providers/:provider_id', {
      schema: { ...operatorRoute, operationId: 'getModelProvider', summary: 'Get a model provider', description: `Its kind, base URL and whether a key is stored; never the key. ${WHO} 404 NOT_FOUND.`, params: ProviderIdParams, response: { 200: Envelope(ModelProvider), ...errorResponses(401, 404) } },
    }, async (request) => ok(await models.get(orgOf(request), request.params.provider_id)));

    r.patch('/api/org/model-providers/:provider_id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'updateModelProvider', summary: 'Update a model provider', description: `Changes only the fields given; \`apiKey: null\` removes the key. A new \`baseUrl\` of a provider with a key needs \`apiKey\` in the same request (400 VALIDATION_ERROR otherwise): the key never follows a URL it was not given for. ${WHO} 404 NOT_FOUND.`, params: ProviderIdParams, body: ModelProviderPatch, response: { 200: Envelope(ModelProvider), ...errorResponses(400, 401, 404, 413, 415) } },
    }, async (request) => ok(await models.update(orgOf(request), request.params.provider_id, request.body, orgAuth.auditContext(request))));

    r.delete('/api/org/model-providers/:provider_id', {
      schema: { ...operatorRoute, operationId: 'deleteModelProvider', summary: 'Delete a model provider', description: `Removes it and its key. 409 CONFLICT while an agent's model uses it. ${WHO} 404 NOT_FOUND.`, params: ProviderIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404, 409) } },
    }, async (request) => ok(await models.remove(orgOf(request), request.params.provider_id)));
  });
}
