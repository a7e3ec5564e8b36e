import { Type, type Static } from '@sinclair/typebox';
import { ChangesBody } from '../http/changes.js';
import { ListQuery, Page } from '../http/envelope.js';
import { IdParam } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { StringEnum } from '../tools/schema.js';
import { deliveryNotFound, webhookNotFound } from './errors.js';

/** Wire schemas of webhooks (`/api/org/webhooks…`). docs/webhooks.md is the receiver's side. */

/** The events an endpoint can subscribe to: the contract with receivers (docs/webhooks.md). */
export const WEBHOOK_EVENT_TYPES = [
  'submission.created',
  'contact.created',
  'contact.updated',
  'contact.erased',
  'opportunity.created',
  'opportunity.stage_changed',
  'tool_call.failed',
  'installation.connection_failed',
  'installation.connection_restored',
  'conversation.handoff_requested',
  'conversation.closed',
] as const;
export type SubscribableEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** `ping`: sent only by POST /api/org/webhooks/{id}/test, to that one endpoint. */
export type WebhookEventType = SubscribableEventType | 'ping';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const WebhookIdParams = Type.Object({ webhook_id: IdParam('wh', webhookNotFound, 'The webhook id (`wh_…`).') });
export const DeliveryIdParams = Type.Object({
  webhook_id: IdParam('wh', webhookNotFound, 'The webhook id (`wh_…`).'),
  delivery_id: IdParam('whd', deliveryNotFound, 'The delivery id (`whd_…`).'),
});
export const WebhookPageQuery = Type.Object(ListQuery, { additionalProperties: false });
export const DeliveryPageQuery = Type.Object(
  { ...ListQuery, status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries in this state.' })) },
  { additionalProperties: false },
);

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'Where events are POSTed: https://, a public address (TOOL_ALLOW_PRIVATE_ENDPOINTS=1 allows private ones in development), no user name or fragment.',
  examples: ['https://hooks.example.com/switchboard'],
});
const Events = Type.Array(StringEnum(WEBHOOK_EVENT_TYPES), { minItems: 1, maxItems: 20, description: 'The event types to send; at least one.' });
const Description = Type.String({ maxLength: 500, description: 'What it is for, up to 500 characters.' });
const Secret = Type.String({ description: 'The signing secret (`whsec_…`): in this answer only. Store it where the receiver verifies signatures (docs/webhooks.md).' });

const webhookProperties = {
  id: Type.String({ description: '`wh_…`' }),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean({ description: 'False: no new events are queued for it and its pending deliveries wait.' }),
  disabledReason: Type.Union([Type.String(), Type.Null()], { description: 'Why the service disabled it (24 h of failed deliveries); null otherwise.' }),
  failingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'The first failed attempt since the last success.' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};

export const Webhook = named('Webhook', Type.Object(webhookProperties));
export type Webhook = Static<typeof Webhook>;
export const WebhookPage = Page(Webhook);
export const CreatedWebhook = named('CreatedWebhook', Type.Object({ ...webhookProperties, secret: Secret }));
export type CreatedWebhook = Static<typeof CreatedWebhook>;

export const WebhookCreate = named('WebhookCreate', Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false },
));
export type WebhookCreate = Static<typeof WebhookCreate>;

export const WebhookPatch = named('WebhookPatch', ChangesBody({
  url: Url,
  events: Events,
  enabled: Type.Boolean({ description: 'true re-enables a disabled endpoint (its failure count starts over); false pauses it.' }),
  description: Type.Union([Description, Type.Null()]),
}));
export type WebhookPatch = Static<typeof WebhookPatch>;

export const WebhookDelivery = named('WebhookDelivery', Type.Object({
  id: Type.String({ description: '`whd_…`; sent as X-Svc-Delivery.' }),
  webhookId: Type.String(),
  eventId: Type.String({ description: '`evt_…`: the body\'s `id`, the same in every delivery of the event (redeliveries too).' }),
  eventType: Type.String(),
  status: StringEnum(DELIVERY_STATUSES),
  attempts: Type.Integer(),
  lastStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'The HTTP status of the last answer; null when none came.' }),
  lastDurationMs: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it is tried next (pending only).' }),
  requestBody: Type.Union([Type.String(), Type.Null()], { description: 'The body last sent; kept 7 days.' }),
  responseBody: Type.Union([Type.String(), Type.Null()], { description: 'The first 4 KB of the last answer; kept 7 days.' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}));
export type WebhookDelivery = Static<typeof WebhookDelivery>;
export const WebhookDeliveryPage = Page(WebhookDelivery);
