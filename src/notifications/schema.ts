import { Type, type Static } from '@sinclair/typebox';
import { ChangesBody } from '../http/changes.js';
import { named } from '../http/schema-name.js';

/** Wire shapes of notifications: a member's own settings (`/api/org/notification-settings`). */

export const NotificationSettings = named('NotificationSettings', Type.Object({
  smtpConfigured: Type.Boolean({ description: 'false: this server has no SMTP_URL, so no notification is sent (and none queued).' }),
  leads: Type.Boolean({ description: 'Email me new leads of the forms that notify me.' }),
  handoffs: Type.Boolean({ description: 'Email me when a visitor asks for a person.' }),
}));
export type NotificationSettings = Static<typeof NotificationSettings>;

export const NotificationSettingsPatch = named('NotificationSettingsPatch', ChangesBody({
  leads: Type.Boolean(),
  handoffs: Type.Boolean(),
}));
export type NotificationSettingsPatch = Static<typeof NotificationSettingsPatch>;
