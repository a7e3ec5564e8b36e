import type { FastifyRequest } from 'fastify';
import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import { AppError } from '../http/errors.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, registerOperatorScope } from '../orgs/operator-scope.js';
import { NotificationSettings, NotificationSettingsPatch } from './schema.js';
import { SETTINGS_NEED_A_PERSON, type NotificationsService } from './service.js';

const WHO = 'The signed-in member\'s own (the console session): an org API key has no person, 401 UNAUTHORIZED.';
/** Session only: the settings are a person's. */
const sessionRoute = { tags: ['Operator'], security: [{ consoleSession: [] }] };

/** `/api/org/notification-settings`: the signed-in member's email notifications, and whether the server can send any. */
export function registerNotificationRoutes(app: App, deps: { orgAuth: OrgAuth; notifications: NotificationsService }): void {
  const { orgAuth, notifications } = deps;
  // After orgAuth.require (the scope's): a key it accepted speaks for the organization, and has no settings.
  const person = {
    onRequest: async (request: FastifyRequest) => {
      if (orgAuth.principal(request).actor.type !== 'user') throw new AppError('UNAUTHORIZED', SETTINGS_NEED_A_PERSON);
    },
  };
  registerOperatorScope(app, orgAuth, (r) => {
    r.get('/api/org/notification-settings', {
      ...person,
      schema: { ...sessionRoute, operationId: 'getNotificationSettings', summary: 'Get my notification settings', description: `Whether new leads and hand-off requests email me, and \`smtpConfigured\`: without SMTP_URL nothing is sent. ${WHO}`, response: { 200: Envelope(NotificationSettings), ...errorResponses(401, 403) } },
    }, async (request) => ok(await notifications.settings(orgAuth.principal(request))));

    r.patch('/api/org/notification-settings', {
      ...person,
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...sessionRoute, operationId: 'updateNotificationSettings', summary: 'Change my notification settings', description: `Turns my lead or hand-off emails on or off; the other stays. Needs X-CSRF-Token. ${WHO}`, body: NotificationSettingsPatch, response: { 200: Envelope(NotificationSettings), ...errorResponses(400, 401, 403, 413, 415) } },
    }, async (request) => ok(await notifications.update(orgAuth.principal(request), request.body)));
  });
}
