import { ContactIdParams } from '../crm/schema.js';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { OrgAuth } from '../orgs/auth.js';
import { operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { Erasure, PersonExport } from './schema.js';
import type { PrivacyService } from './service.js';

const WHO = 'Needs an org API key or an owner session (403 FORBIDDEN for a member).';

/** A person's requests under data protection law: `/api/org/contacts/{id}/erase` and `…/export` (docs/privacy.md). Owners only. */
export function registerPrivacyRoutes(app: App, deps: { orgAuth: OrgAuth; privacy: PrivacyService }): void {
  const { orgAuth, privacy } = deps;
  const owner = { onRequest: orgAuth.requireOwner('erase or export a person\'s data') };
  registerOperatorScope(app, orgAuth, (r) => {
    r.post('/api/org/contacts/:id/erase', {
      ...owner,
      schema: {
        ...operatorRoute, operationId: 'eraseContact', summary: 'Erase a person',
        description: `Removes the contact's data everywhere (docs/privacy.md) in one transaction; opportunities stay, marked \`contactErased\`; emits \`contact.erased\`. Again: the first erasure, \`alreadyErased: true\`. ${WHO} 404 CONTACT_NOT_FOUND.`,
        params: ContactIdParams, response: { 200: Envelope(Erasure), ...errorResponses(401, 403, 404) },
      },
    }, async (request) => ok(await privacy.erase(orgAuth.principal(request), request.params.id, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null })));

    r.get('/api/org/contacts/:id/export', {
      ...owner,
      schema: {
        ...operatorRoute, operationId: 'exportContact', summary: 'Export a person',
        description: `Everything held about the contact, as one document: what an erasure removes, with each consent text agreed to. ${WHO} 404 CONTACT_NOT_FOUND (an erased contact too).`,
        params: ContactIdParams, response: { 200: Envelope(PersonExport), ...errorResponses(401, 403, 404) },
      },
    }, async (request) => ok(await privacy.export(orgAuth.principal(request), request.params.id, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null })));
  });
}
