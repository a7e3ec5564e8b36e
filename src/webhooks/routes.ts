import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { Deleted } from '../orgs/schema.js';
import { ORG_LIMITS } from '../http/tenant-limits.js';
import { CreatedWebhook, DeliveryIdParams, DeliveryPageQuery, Webhook, WebhookCreate, WebhookDelivery, WebhookDeliveryPage, WebhookIdParams, WebhookPage, WebhookPageQuery, WebhookPatch } from './schema.js';
import type { WebhooksService } from './service.js';

const WHO = 'Needs an org API key or an owner session (403 FORBIDDEN for a member).';

/** `/api/org/webhooks…`: where the organization's events are sent, and what became of each delivery. Owners only. */
export function registerWebhookRoutes(app: App, deps: { orgAuth: OrgAuth; webhooks: WebhooksService }): void {
  const { orgAuth, webhooks } = deps;
  const owner = { onRequest: orgAuth.requireOwner('manage webhooks') };

  registerOperatorScope(app, orgAuth, (r, orgOf) => {
    r.post('/api/org/webhooks', {
      ...owner,
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'createWebhook', summary: 'Add a webhook', description: `Events of the chosen types are POSTed to the URL, signed (docs/webhooks.md). The signing secret (\`whsec_…\`) is in this answer only. ${WHO} 400 ENDPOINT_NOT_ALLOWED for a URL that is not https:// or not public; 409 LIMIT_REACHED when the organization has as many webhooks as its limit allows (${ORG_LIMITS.limits.webhooks.default} unless raised: GET /api/org/limits).`, body: WebhookCreate, response: { 201: Envelope(CreatedWebhook), ...errorResponses(400, 401, 403, 409, 413, 415) } },
    }, async (request, reply) => reply.code(201).send(ok(await webhooks.create(orgOf(request), request.body, orgAuth.auditContext(request)))));

    r.get('/api/org/webhooks', {
      ...owner,
      schema: { ...operatorRoute, operationId: 'listWebhooks', summary: 'List webhooks', description: `Newest first, paged with \`limit\` and \`cursor\`; secrets are never returned. ${WHO}`, querystring: WebhookPageQuery, response: { 200: Envelope(WebhookPage), ...errorResponses(400, 401, 403) } },
    }, async (request) => ok(await webhooks.list(orgOf(request), request.query)));

    r.get('/api/org/webhooks/:webhook_id', {
      ...owner,
      schema: { ...operatorRoute, operationId: 'getWebhook', summary: 'Get a webhook', description: `Its URL, events and state; never the secret. ${WHO} 404 NOT_FOUND.`, params: WebhookIdParams, response: { 200: Envelope(Webhook), ...errorResponses(401, 403, 404) } },
    }, async (request) => ok(await webhooks.get(orgOf(request), request.params.webhook_id)));

    r.patch('/api/org/webhooks/:webhook_id', {
      ...owner,
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'updateWebhook', summary: 'Update a webhook', description: `Changes only the fields given. \`enabled: true\` re-enables a webhook the service disabled; its pending deliveries resume. ${WHO} 404 NOT_FOUND.`, params: WebhookIdParams, body: WebhookPatch, response: { 200: Envelope(Webhook), ...errorResponses(400, 401, 403, 404, 413, 415) } },
    }, async (request) => ok(await webhooks.update(orgOf(request), request.params.webhook_id, request.body)));

    r.delete('/api/org/webhooks/:webhook_id', {
      ...owner,
      schema: { ...operatorRoute, operationId: 'deleteWebhook', summary: 'Delete a webhook', description: `Removes it, its pending deliveries and its delivery log. ${WHO} 404 NOT_FOUND.`, params: WebhookIdParams, response: { 200: Envelope(Deleted), ...errorResponses(401, 403, 404) } },
    }, async (request) => ok(await webhooks.remove(orgOf(request), request.params.webhook_id, orgAuth.auditContext(request))));

    r.post('/api/org/webhooks/:webhook_id/secret', {
      ...owner,
      schema: { ...operatorRoute, operationId: 'rotateWebhookSecret', summary: 'Rotate a webhook\'s signing secret', description: `A new secret signs every delivery from now on (the old one stops at once); it is in this answer only. ${WHO} 404 NOT_FOUND.`, params: WebhookIdParams, response: { 200: Envelope(CreatedWebhook), ...errorResponses(401, 403, 404) } },
    }, async (request) => ok(await webhooks.rotateSecret(orgOf(request), request.params.webhook_id, orgAuth.auditContext(request))));

    r.post('/api/org/webhooks/:webhook_id/test', {
      ...owner,
      schema: { ...operatorRoute, operationId: 'testWebhook', summary: 'Send a test ping', description: `Sends a \`ping\` event to this webhook now, through the delivery path (signed, address policy, retries), and answers its delivery: \`status\`, \`lastStatus\`, \`lastError\`. ${WHO} 404 NOT_FOUND.`, params: WebhookIdParams, response: { 200: Envelope(WebhookDelivery), ...errorResponses(401, 403, 404) } },
    }, async (request) => ok(await webhooks.test(orgOf(request), request.params.webhook_id)));

    r.get('/api/org/webhooks/:webhook_id/deliveries', {
      ...owner,
      schema: { ...operatorRoute, operationId: 'listWebhookDeliveries', summary: 'List a webhook\'s deliveries', description: `Newest first, paged with \`limit\` and \`cursor\`, optionally one \`status\`: attempts, the last answer's status and time, the next retry, and the bodies (kept 7 days). ${WHO} 404 NOT_FOUND.`, params: WebhookIdParams, querystring: DeliveryPageQuery, response: { 200: Envelope(WebhookDeliveryPage), ...errorResponses(400, 401, 403, 404) } },
    }, async (request) => ok(await webhooks.listDeliveries(orgOf(request), request.params.webhook_id, request.query)));

    r.post('/api/org/webhooks/:webhook_id/deliveries/:delivery_id/redeliver', {
      ...owner,
      schema: { ...operatorRoute, operationId: 'redeliverWebhookDelivery', summary: 'Redeliver an event', description: `Queues the delivery's event again for this webhook, as a new delivery (same event \`id\`, so a receiver can tell it apart from a new event), behind the webhook's other pending deliveries. ${WHO} 404 NOT_FOUND.`, params: DeliveryIdParams, response: { 201: Envelope(WebhookDelivery), ...errorResponses(401, 403, 404) } },
    }, async (request, reply) => reply.code(201).send(ok(await webhooks.redeliver(orgOf(request), request.params.webhook_id, request.params.delivery_id))));
  });
}
