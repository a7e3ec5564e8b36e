import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { Deleted } from '../orgs/schema.js';
import type { ContactsService } from './contacts-service.js';
import type { OpportunitiesService } from './opportunities-service.js';
import {
  Contact, ContactCreate, ContactDetail, ContactListQuery, ContactPage, ContactIdParams, ContactPatch, Note, NoteCreate,
  Opportunity, OpportunityCreate, OpportunityIdParams, OpportunityListQuery, OpportunityPage, OpportunityPatch,
} from './schema.js';

/** `/api/org/contacts` (with notes) and `/api/org/opportunities`: the org's CRM records. */
export function registerCrmRecordRoutes(app: App, deps: { orgAuth: OrgAuth; contacts: ContactsService; opportunities: OpportunitiesService }): void {
  const { orgAuth, contacts, opportunities } = deps;

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    // ── Contacts ──
    r.get('/api/org/contacts', {
      schema: {
        ...operatorRoute,
        summary: 'List contacts',
        description: "Newest first. `email` and `phone` match exactly after normalizing (phones to E.164 in the org's default country); `q` searches name, email, phone and company.",
        querystring: ContactListQuery, response: { 200: Envelope(ContactPage), ...errorResponses(400, 401) },
      },
    }, async (request) => ok(await contacts.list(orgOf(request), request.query)));

    r.post('/api/org/contacts', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Create a contact', description: 'Needs an email or a phone; 409 when another contact already has either.', body: ContactCreate, response: { 201: Envelope(Contact), ...errorResponses(400, 401, 409, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await contacts.create(orgAuth.principal(request), request.body))));

    r.get('/api/org/contacts/:id', {
      schema: { ...operatorRoute, summary: 'Get a contact', description: 'With its notes, opportunities and form submissions (newest first, up to 100 each).', params: ContactIdParams, response: { 200: Envelope(ContactDetail), ...errorResponses(401, 404) } },
    }, async (request) => ok(await contacts.get(orgOf(request), request.params.id)));

    r.patch('/api/org/contacts/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Update a contact', description: 'Changes only the fields given; null clears one. A contact keeps an email or a phone.', params: ContactIdParams, body: ContactPatch, response: { 200: Envelope(Contact), ...errorResponses(400, 401, 404, 409, 413, 415) } },
    }, async (request) => ok(await contacts.update(orgOf(request), request.params.id, request.body)));

    r.delete('/api/org/contacts/:id', {
      schema: { ...operatorRoute, summary: 'Delete a contact', description: 'With its notes, opportunities and submissions.', params: ContactIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404) } },
    }, async (request) => ok(await contacts.remove(orgOf(request), request.params.id)));

    r.post('/api/org/contacts/:id/notes', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Add a note to a contact', params: ContactIdParams, body: NoteCreate, response: { 201: Envelope(Note), ...errorResponses(400, 401, 404, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await contacts.addNote(orgAuth.principal(request), request.params.id, request.body))));

    // ── Opportunities ──
    r.get('/api/org/opportunities', {
      schema: { ...operatorRoute, summary: 'List opportunities', description: 'Newest first; filter by `contactId`, `pipelineId`, `stageId`.', querystring: OpportunityListQuery, response: { 200: Envelope(OpportunityPage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await opportunities.list(orgOf(request), request.query)));

    r.post('/api/org/opportunities', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: {
        ...operatorRoute,
        summary: 'Create an opportunity',
        description: "For a contact, in the given pipeline and stage (default: the default pipeline's first stage). A pipeline or stage that does not exist is 422 PIPELINE_NOT_FOUND / STAGE_NOT_FOUND.",
        body: OpportunityCreate, response: { 201: Envelope(Opportunity), ...errorResponses(400, 401, 404, 413, 415, 422) },
      },
    }, async (request, reply) => reply.code(201).send(ok(await opportunities.create(orgAuth.principal(request), request.body))));

    r.get('/api/org/opportunities/:id', {
      schema: { ...operatorRoute, summary: 'Get an opportunity', params: OpportunityIdParams, response: { 200: Envelope(Opportunity), ...errorResponses(401, 404) } },
    }, async (request) => ok(await opportunities.get(orgOf(request), request.params.id)));

    r.patch('/api/org/opportunities/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, summary: 'Update an opportunity', description: 'Title, stage (move it along the pipeline), pipeline, custom values.', params: OpportunityIdParams, body: OpportunityPatch, response: { 200: Envelope(Opportunity), ...errorResponses(400, 401, 404, 413, 415, 422) } },
    }, async (request) => ok(await opportunities.update(orgOf(request), request.params.id, request.body)));

    r.delete('/api/org/opportunities/:id', {
      schema: { ...operatorRoute, summary: 'Delete an opportunity', params: OpportunityIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404) } },
    }, async (request) => ok(await opportunities.remove(orgOf(request), request.params.id)));
  });
}
