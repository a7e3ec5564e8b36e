import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import { AuditEntryPage, AuditLogQuery } from './schema.js';
import type { AuditService } from './service.js';

const FILTERS = 'Newest first, paged; append-only, kept 400 days.';

/**
 * `GET /api/org/audit-log` (owners) and `GET /api/dev/audit-log` (a developer's own, session only). The other
 * features' auth comes in as functions (audit/ sits below them: they record into it).
 */
export function registerAuditRoutes(app: App, deps: {
  audit: Pick<AuditService, 'listForOrg' | 'listForDeveloper'>;
  /** Registers routes in the Operator API's scope (orgs/operator-scope.ts: authenticated first, JSON bodies). */
  operatorScope: (register: (scope: App, orgOf: (request: FastifyRequest) => string) => void) => void;
  operatorRoute: { tags: string[]; security: Record<string, string[]>[] };
  requireOwner: onRequestAsyncHookHandler;
  requireDeveloperSession: onRequestAsyncHookHandler;
  developerIdOf: (request: FastifyRequest) => string;
}): void {
  const { audit } = deps;
  deps.operatorScope((r, orgOf) => {
    r.get('/api/org/audit-log', {
      onRequest: deps.requireOwner,
      schema: {
        ...deps.operatorRoute, operationId: 'listOrgAuditLog', summary: 'Read the audit log',
        description: `Who did each sensitive action, from where, on what, when. ${FILTERS} Owners and org API keys only (403 for a member).`,
        querystring: AuditLogQuery, response: { 200: Envelope(AuditEntryPage), ...errorResponses(400, 401, 403) },
      },
    }, async (request) => ok(await audit.listForOrg(orgOf(request), request.query)));
  });

  app.get('/api/dev/audit-log', {
    onRequest: deps.requireDeveloperSession,
    schema: {
      tags: ['Apps'], security: [{ consoleSession: [] }], operationId: 'listDeveloperAuditLog', summary: 'Read your audit log',
      description: `Your sign-ins, app secrets rotated, tools published and withdrawn. ${FILTERS} Console session only.`,
      querystring: AuditLogQuery, response: { 200: Envelope(AuditEntryPage), ...errorResponses(400, 401, 403) },
    },
  }, async (request) => ok(await audit.listForDeveloper(deps.developerIdOf(request), request.query)));
}
