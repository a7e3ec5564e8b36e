import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { AgentsService } from './agents-service.js';
import type { ApiKeysService } from './api-keys-service.js';
import type { OrgAuth } from './auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from './operator-scope.js';
import { Agent, AgentCreate, AgentPage, AgentPatch, ApiKey, ApiKeyCreate, ApiKeyPage, CreatedApiKey, AgentIdParams, ApiKeyIdParams, Deleted, PageQuery } from './schema.js';

/** `/api/org/api-keys` and `/api/org/agents`. */
export function registerOrgRoutes(app: App, deps: { orgAuth: OrgAuth; apiKeys: ApiKeysService; agents: AgentsService }): void {
  const { orgAuth, apiKeys, agents } = deps;

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    // ── API keys ──
    r.post('/api/org/api-keys', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Create an org API key', description: 'The key is in this response only; only its hash is stored.', body: ApiKeyCreate, response: { 201: Envelope(CreatedApiKey), ...errorResponses(400, 401, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await apiKeys.create(orgOf(request), request.body))));

    r.get('/api/org/api-keys', {
      schema: { ...operatorRoute, summary: 'List org API keys', description: 'Newest first; secrets are never returned.', querystring: PageQuery, response: { 200: Envelope(ApiKeyPage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await apiKeys.list(orgOf(request), request.query)));

    r.get('/api/org/api-keys/:id', {
      schema: { ...operatorRoute, summary: 'Get an org API key', params: ApiKeyIdParams, response: { 200: Envelope(ApiKey), ...errorResponses(401, 404) } },
    }, async (request) => ok(await apiKeys.get(orgOf(request), request.params.id)));

    r.post('/api/org/api-keys/:id/revoke', {
      schema: { ...operatorRoute, summary: 'Revoke an org API key', description: 'The key stops working at once; the record stays for the audit trail. Revoking twice is harmless.', params: ApiKeyIdParams, response: { 200: Envelope(ApiKey), ...errorResponses(401, 404) } },
    }, async (request) => ok(await apiKeys.revoke(orgOf(request), request.params.id)));

    r.delete('/api/org/api-keys/:id', {
      schema: { ...operatorRoute, summary: 'Delete an org API key', description: 'Revokes it and removes its record.', params: ApiKeyIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404) } },
    }, async (request) => ok(await apiKeys.remove(orgOf(request), request.params.id)));

    // ── Agents ──
    r.post('/api/org/agents', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Create an agent', description: 'An agent carries the brand its forms show.', body: AgentCreate, response: { 201: Envelope(Agent), ...errorResponses(400, 401, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await agents.create(orgOf(request), request.body))));

    r.get('/api/org/agents', {
      schema: { ...operatorRoute, summary: 'List agents', description: 'Newest first.', querystring: PageQuery, response: { 200: Envelope(AgentPage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await agents.list(orgOf(request), request.query)));

    r.get('/api/org/agents/:id', {
      schema: { ...operatorRoute, summary: 'Get an agent', params: AgentIdParams, response: { 200: Envelope(Agent), ...errorResponses(401, 404) } },
    }, async (request) => ok(await agents.get(orgOf(request), request.params.id)));

    r.patch('/api/org/agents/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Update an agent', description: 'Changes only the fields given; `branding` fields may be given one by one.', params: AgentIdParams, body: AgentPatch, response: { 200: Envelope(Agent), ...errorResponses(400, 401, 404, 413, 415) } },
    }, async (request) => ok(await agents.update(orgOf(request), request.params.id, request.body)));

    r.delete('/api/org/agents/:id', {
      schema: { ...operatorRoute, summary: 'Delete an agent', description: 'Forms that used its brand show no branding until another agent is chosen.', params: AgentIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404) } },
    }, async (request) => ok(await agents.remove(orgOf(request), request.params.id)));
  });
}
