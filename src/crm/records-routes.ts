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
        operationId: 'listContacts',
        summary: 'List contacts',
        description:
          "Newest first, paged with `limit` and `cursor`. `email` and `phone` match exactly after normalizing (phones to E.164 in the org's default country); " +
          '`q` searches name, email, phone and company. Needs an org API key or a session.',
        querystring: ContactListQuery, response: { 200: Envelope(ContactPage), ...errorResponses(400, 401) },
      },
    }, async (request) => ok(await contacts.list(orgOf(request), request.query)));

    r.post('/api/org/contacts', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'createContact', summary: 'Create a contact', description: 'A contact with an email or a phone (or both), custom values checked against the org\'s custom fields. Needs an org API key or a session. 400 IDENTITY_REQUIRED without email and phone; 409 CONFLICT when another contact already has either (`contactId` names it).', body: ContactCreate, response: { 201: Envelope(Contact), ...errorResponses(400, 401, 409, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await contacts.create(orgAuth.principal(request), request.body))));

    r.get('/api/org/contacts/:id', {
      schema: { ...operatorRoute, operationId: 'getContact', summary: 'Get a contact', description: 'With its notes, opportunities and form submissions (newest first, up to 100 each). Needs an org API key or a session. 404 CONTACT_NOT_FOUND.', params: ContactIdParams, response: { 200: Envelope(ContactDetail), ...errorResponses(401, 404) } },
    }, async (request) => ok(await contacts.get(orgOf(request), request.params.id)));

    r.patch('/api/org/contacts/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'updateContact', summary: 'Update a contact', description: 'Changes only the fields given; null clears one. A contact keeps an email or a phone. Needs an org API key or a session. 404 CONTACT_NOT_FOUND; 409 CONFLICT when another contact has the new email or phone.', params: ContactIdParams, body: ContactPatch, response: { 200: Envelope(Contact), ...errorResponses(400, 401, 404, 409, 413, 415) } },
    }, async (request) => ok(await contacts.update(orgOf(request), request.params.id, request.body)));

    r.delete('/api/org/contacts/:id', {
      schema: { ...operatorRoute, operationId: 'deleteContact', summary: 'Delete a contact', description: 'Deletes the contact with its notes, opportunities and submissions. Needs an org API key or a session. 404 CONTACT_NOT_FOUND.', params: ContactIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404) } },
    }, async (request) => ok(await contacts.remove(orgOf(request), request.params.id)));

    r.post('/api/org/contacts/:id/notes', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'addContactNote', summary: 'Add a note to a contact', description: 'A free-text note (line breaks allowed) on the contact\'s timeline. Needs an org API key or a session. 404 CONTACT_NOT_FOUND.', params: ContactIdParams, body: NoteCreate, response: { 201: Envelope(Note), ...errorResponses(400, 401, 404, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await contacts.addNote(orgAuth.principal(request), request.params.id, request.body))));

    // ── Opportunities ──
    r.get('/api/org/opportunities', {
      schema: { ...operatorRoute, operationId: 'listOpportunities', summary: 'List opportunities', description: 'Newest first, paged with `limit` and `cursor`; filter by `contactId`, `pipelineId`, `stageId`. Needs an org API key or a session.', querystring: OpportunityListQuery, response: { 200: Envelope(OpportunityPage), ...errorResponses(400, 401) } },
    }, async (request) => ok(await opportunities.list(orgOf(request), request.query)));

    r.post('/api/org/opportunities', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: {
        ...operatorRoute,
        operationId: 'createOpportunity',
        summary: 'Create an opportunity',
        description:
          "For a contact, in the given pipeline and stage (default: the default pipeline's first stage). Needs an org API key or a session. 404 CONTACT_NOT_FOUND; " +
          'a pipeline or stage that does not exist is 422 PIPELINE_NOT_FOUND / STAGE_NOT_FOUND.',
        body: OpportunityCreate, response: { 201: Envelope(Opportunity), ...errorResponses(400, 401, 404, 413, 415, 422) },
      },
    }, async (request, reply) => reply.code(201).send(ok(await opportunities.create(orgAuth.principal(request), request.body))));

    r.get('/api/org/opportunities/:id', {
      schema: { ...operatorRoute, operationId: 'getOpportunity', summary: 'Get an opportunity', description: 'One opportunity with its pipeline, stage and custom values. Needs an org API key or a session. 404 OPPORTUNITY_NOT_FOUND.', params: OpportunityIdParams, response: { 200: Envelope(Opportunity), ...errorResponses(401, 404) } },
    }, async (request) => ok(await opportunities.get(orgOf(request), request.params.id)));

    r.patch('/api/org/opportunities/:id', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'updateOpportunity', summary: 'Update an opportunity', description: 'Title, stage (move it along the pipeline), pipeline, custom values. Needs an org API key or a session. 404 OPPORTUNITY_NOT_FOUND; 422 PIPELINE_NOT_FOUND / STAGE_NOT_FOUND.', params: OpportunityIdParams, body: OpportunityPatch, response: { 200: Envelope(Opportunity), ...errorResponses(400, 401, 404, 413, 415, 422) } },
    }, async (request) => ok(await opportunities.update(orgOf(request), request.params.id, request.body)));

    r.delete('/api/org/opportunities/:id', {
      schema: { ...operatorRoute, operationId: 'deleteOpportunity', summary: 'Delete an opportunity', description: 'Deletes the opportunity; the contact stays. Needs an org API key or a session. 404 OPPORTUNITY_NOT_FOUND.', params: OpportunityIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 404) } },
    }, async (request) => ok(await opportunities.remove(orgOf(request), request.params.id)));
  });
}
