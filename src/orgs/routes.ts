import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { AgentKeysService } from './agent-keys-service.js';
import type { AgentsService } from './agents-service.js';
import type { ApiKeysService } from './api-keys-service.js';
import type { OrgAuth } from './auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from './operator-scope.js';
import { AgentKeyCreate, AgentKeyIdParams, AgentKeyPage, CreatedAgentKey } from './schema.js';
import { Agent, AgentCreate, AgentPage, AgentPatch, ApiKey, ApiKeyCreate, ApiKeyPage, CreatedApiKey, AgentIdParams, ApiKeyIdParams, Deleted, Organization, OrganizationPatch, OrgLimits, PageQuery } from './schema.js';
import type { OrgsService } from './service.js';
import type { OrgLimit, TenantLimits } from '../http/tenant-limits.js';

/** `/api/org/organization`, `/api/org/limits`, `/api/org/api-keys` and `/api/org/agents`. */
export function registerOrgRoutes(app: App, deps: { orgAuth: OrgAuth; orgs: OrgsService; limits: Pick<TenantLimits<OrgLimit>, 'show'>; apiKeys: ApiKeysService; agents: AgentsService; agentKeys: AgentKeysService }): void {
  const { orgAuth, orgs, limits, apiKeys, agents, agentKeys } = deps;

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    // ── The organization ──
    r.get('/api/org/organization', {
      schema: { ...operatorRoute, summary: 'Get your organization', description: 'The organization the credentials belong to: its name, the default country national phone numbers are read in, its daily model token budget with today\'s use, and how long it keeps personal data (`retention`).', response: { 200: Envelope(Organization), ...errorResponses(401, 404) } },
    }, async (request) => ok(await orgs.getOrganization(orgOf(request))));

    r.patch('/api/org/organization', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Update your organization', description: 'Changes `name`, `defaultCountry`, `dailyTokenBudget` and/or `retention`. A new default country applies to phone numbers written from then on, forms included; stored numbers stay as they are. `dailyTokenBudget` and `retention` need an org API key or an owner session (403 FORBIDDEN for a member).', body: OrganizationPatch, response: { 200: Envelope(Organization), ...errorResponses(400, 401, 403, 404, 413, 415) } },
    }, async (request) => ok(await orgs.updateOrganization(orgOf(request), request.body, { owner: orgAuth.principal(request).role !== 'member' }, orgAuth.auditContext(request))));

    r.get('/api/org/limits', {
      schema: { ...operatorRoute, operationId: 'getOrgLimits', summary: 'Get your limits', description: 'Each limit of the organization (the most agents, forms, API keys, … it may have at once) and how much of it is used. A create past a limit is refused with 409 LIMIT_REACHED; the organization\'s Switchboard operator can raise it (docs/operator-api.md, Limits). Needs an org API key or a session.', response: { 200: Envelope(OrgLimits), ...errorResponses(401, 404) } },
    }, async (request) => ok(await limits.show(orgOf(request))));

    // ── API keys ──
    const ownsKeys = orgAuth.requireOwner('manage API keys');
    r.post('/api/org/api-keys', {
      onRequest: ownsKeys,
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'createApiKey', summary: 'Create an org API key', description: 'Creates a key for the Operator API. The key is in this response only; only its hash is stored. Needs an org API key or an owner session (403 FORBIDDEN for a member). 409 LIMIT_REACHED when the organization has as many active (not revoked) API keys as its limit allows (GET /api/org/limits).', body: ApiKeyCreate, response: { 201: Envelope(CreatedApiKey), ...errorResponses(403, 400, 401, 409, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await apiKeys.create(orgOf(request), request.body, orgAuth.auditContext(request)))));

    r.get('/api/org/api-keys', {
      onRequest: ownsKeys,
      schema: { ...operatorRoute, operationId: 'listApiKeys', summary: 'List org API keys', description: 'The organization\'s keys, revoked ones included, newest first, paged with `limit` and `cursor`; secrets are never returned. Needs an org API key or an owner session (403 FORBIDDEN for a member).', querystring: PageQuery, response: { 200: Envelope(ApiKeyPage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await apiKeys.list(orgOf(request), request.query)));

    r.get('/api/org/api-keys/:id', {
      onRequest: ownsKeys,
      schema: { ...operatorRoute, operationId: 'getApiKey', summary: 'Get an org API key', description: 'One key\'s name, last four characters and dates; never the secret. Needs an org API key or an owner session (403 FORBIDDEN for a member). 404 NOT_FOUND.', params: ApiKeyIdParams, response: { 200: Envelope(ApiKey), ...errorResponses(403, 401, 404) } },
    }, async (request) => ok(await apiKeys.get(orgOf(request), request.params.id)));

    r.post('/api/org/api-keys/:id/revoke', {
      onRequest: ownsKeys,
      schema: { ...operatorRoute, operationId: 'revokeApiKey', summary: 'Revoke an org API key', description: 'The key stops working at once; the record stays for the audit trail. Revoking twice is harmless. Needs an org API key or an owner session (403 FORBIDDEN for a member). 404 NOT_FOUND.', params: ApiKeyIdParams, response: { 200: Envelope(ApiKey), ...errorResponses(403, 401, 404) } },
    }, async (request) => ok(await apiKeys.revoke(orgOf(request), request.params.id, orgAuth.auditContext(request))));

    r.delete('/api/org/api-keys/:id', {
      onRequest: ownsKeys,
      schema: { ...operatorRoute, operationId: 'deleteApiKey', summary: 'Delete an org API key', description: 'Revokes the key and removes its record. Needs an org API key or an owner session (403 FORBIDDEN for a member). 404 NOT_FOUND.', params: ApiKeyIdParams, response: { 200: Envelope(Deleted), ...errorResponses(403, 401, 404) } },
    }, async (request) => ok(await apiKeys.remove(orgOf(request), request.params.id, orgAuth.auditContext(request))));

    // ── Agents ──
    r.post('/api/org/agents', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'createAgent', summary: 'Create an agent', description: 'An agent carries the brand (name, colors, font, logo) its forms show. Needs an org API key or a session. 400 VALIDATION_ERROR for a bad color, font or logo URL (https:// only); 409 LIMIT_REACHED when the organization has as many agents as its limit allows (GET /api/org/limits).', body: AgentCreate, response: { 201: Envelope(Agent), ...errorResponses(400, 401, 409, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await agents.create(orgOf(request), request.body))));

    r.get('/api/org/agents', {
      schema: { ...operatorRoute, operationId: 'listAgents', summary: 'List agents', description: 'The organization\'s agents with their branding, newest first, paged with `limit` and `cursor`. Needs an org API key or a session.', querystring: PageQuery, response: { 200: Envelope(AgentPage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await agents.list(orgOf(request), request.query)));

    r.get('/api/org/agents/:id', {
      schema: { ...operatorRoute, operationId: 'getAgent', summary: 'Get an agent', description: 'One agent with its branding. Needs an org API key or a session. 404 AGENT_NOT_FOUND.', params: AgentIdParams, response: { 200: Envelope(Agent), ...errorResponses(401, 404) } },
    }, async (request) => ok(await agents.get(orgOf(request), request.params.id)));

    r.patch('/api/org/agents/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'updateAgent', summary: 'Update an agent', description: 'Changes only the fields given; `branding` fields may be given one by one. Forms using the agent show the new brand at once. Needs an org API key or a session. 404 AGENT_NOT_FOUND.', params: AgentIdParams, body: AgentPatch, response: { 200: Envelope(Agent), ...errorResponses(400, 401, 404, 413, 415) } },
    }, async (request) => ok(await agents.update(orgOf(request), request.params.id, request.body)));

    r.delete('/api/org/agents/:id', {
      schema: { ...operatorRoute, operationId: 'deleteAgent', summary: 'Delete an agent', description: 'Forms that used its brand show no branding until another agent is chosen. Needs an org API key or a session. 404 AGENT_NOT_FOUND.', params: AgentIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404) } },
    }, async (request) => ok(await agents.remove(orgOf(request), request.params.id)));

    // ── Agent keys (MCP) ──
    r.post('/api/org/agents/:id/keys', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'createAgentKey', summary: 'Create an agent key', description: 'A key (`svc_agt_…`) that lets an MCP client act as this agent: it reaches this agent\'s tools and nothing else. The key is in this response only; only its hash is stored. 404 AGENT_NOT_FOUND; 409 LIMIT_REACHED when the agent has as many keys as the organization\'s limit per agent allows (GET /api/org/limits).', params: AgentIdParams, body: AgentKeyCreate, response: { 201: Envelope(CreatedAgentKey), ...errorResponses(400, 401, 404, 409, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await agentKeys.create(orgOf(request), request.params.id, request.body, orgAuth.auditContext(request)))));

    r.get('/api/org/agents/:id/keys', {
      schema: { ...operatorRoute, operationId: 'listAgentKeys', summary: 'List an agent\'s keys', description: 'The agent\'s keys, newest first, paged with `limit` and `cursor`; secrets are never returned. 404 AGENT_NOT_FOUND.', params: AgentIdParams, querystring: PageQuery, response: { 200: Envelope(AgentKeyPage), ...errorResponses(400, 401, 404) } },
    }, async (request) => ok(await agentKeys.list(orgOf(request), request.params.id, request.query)));

    r.delete('/api/org/agents/:id/keys/:keyId', {
      schema: { ...operatorRoute, operationId: 'deleteAgentKey', summary: 'Delete an agent key', description: 'The key stops working at once. 404 AGENT_NOT_FOUND, 404 NOT_FOUND.', params: AgentKeyIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404) } },
    }, async (request) => ok(await agentKeys.remove(orgOf(request), request.params.id, request.params.keyId, orgAuth.auditContext(request))));
  });
}
