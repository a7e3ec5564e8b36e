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
        description: `Removes the person's data everywhere, in one transaction (docs/privacy.md); emits \`contact.erased\`. Again: \`alreadyErased\`. ${WHO} 404 CONTACT_NOT_FOUND.`,
        params: ContactIdParams, response: { 200: Envelope(Erasure), ...errorResponses(401, 403, 404) },
      },
    }, async (request) => ok(await privacy.erase(orgAuth.principal(request), request.params.id, orgAuth.auditContext(request))));

    r.get('/api/org/contacts/:id/export', {
      ...owner,
      schema: {
        ...operatorRoute, operationId: 'exportContact', summary: 'Export a person',
        description: `Everything held about the person, with each consent agreed to (docs/privacy.md). ${WHO} 404 CONTACT_NOT_FOUND.`,
        params: ContactIdParams, response: { 200: Envelope(PersonExport), ...errorResponses(401, 403, 404) },
      },
    }, async (request) => ok(await privacy.export(orgAuth.principal(request), request.params.id, orgAuth.auditContext(request))));
  });
}
