import type { App } from '../http/app-type.js';
import { Envelope, errorResponses, ok } from '../http/envelope.js';
import type { OrgAuth } from '../orgs/auth.js';
import { ORG_BODY_LIMIT, operatorRoute, registerOperatorScope } from '../orgs/operator-scope.js';
import { NotificationSettings, NotificationSettingsPatch } from './schema.js';
import type { NotificationsService } from './service.js';

const WHO = 'A signed-in member\'s own settings: 403 FORBIDDEN with an org API key (it has no person).';

/** `/api/org/notification-settings`: the signed-in member's email notifications, and whether the server can send any. */
export function registerNotificationRoutes(app: App, deps: { orgAuth: OrgAuth; notifications: NotificationsService }): void {
  const { orgAuth, notifications } = deps;
  registerOperatorScope(app, orgAuth, (r) => {
    r.get('/api/org/notification-settings', {
      schema: { ...operatorRoute, operationId: 'getNotificationSettings', summary: 'Get my notification settings', description: `Whether new leads and hand-off requests email me, and \`smtpConfigured\`: without SMTP_URL nothing is sent. ${WHO}`, response: { 200: Envelope(NotificationSettings), ...errorResponses(401, 403) } },
    }, async (request) => ok(await notifications.settings(orgAuth.principal(request))));

    r.patch('/api/org/notification-settings', {
      bodyLimit: ORG_BODY_LIMIT,
      schema: { ...operatorRoute, operationId: 'updateNotificationSettings', summary: 'Change my notification settings', description: `Turns my lead or hand-off emails on or off; the others' stay. ${WHO}`, body: NotificationSettingsPatch, response: { 200: Envelope(NotificationSettings), ...errorResponses(400, 401, 403, 413, 415) } },
    }, async (request) => ok(await notifications.update(orgAuth.principal(request), request.body)));
  });
}
