import { Type, type Static } from '@sinclair/typebox';
import { named } from '../http/schema-name.js';
import { Contact, Note, Opportunity } from '../crm/schema.js';

/** Wire schemas of erasing and exporting a person (`/api/org/contacts/{id}/erase`, `…/export`; docs/privacy.md). */

const DateTime = Type.String({ format: 'date-time' });
const NullableString = Type.Union([Type.String(), Type.Null()]);
const Json = Type.Record(Type.String(), Type.Unknown());

export const Erasure = named('Erasure', Type.Object({
  contactId: Type.String(),
  erasedAt: DateTime,
  alreadyErased: Type.Boolean(),
  removed: Type.Object({
    notes: Type.Integer(),
    submissions: Type.Integer(),
    opportunities: Type.Integer(),
    conversations: Type.Integer(),
    webhookEvents: Type.Integer(),
    notifications: Type.Integer(),
  }),
}));
export type Erasure = Static<typeof Erasure>;

const ExportedSubmission = Type.Object({
  id: Type.String(),
  formId: Type.String(),
  formTitle: NullableString,
  opportunityId: NullableString,
  conversationId: NullableString,
  values: Json,
  custom: Json,
  metadata: Json,
  ip: NullableString,
  userAgent: NullableString,
  consentVersion: Type.String(),
  createdAt: DateTime,
});

const Consent = Type.Object({
  formId: Type.String(),
  formTitle: NullableString,
  version: Type.String(),
  text: NullableString,
  agreedAt: DateTime,
  submissionId: Type.String(),
});

const ExportedMessage = Type.Object({
  seq: Type.Integer(),
  role: Type.String(),
  content: NullableString,
  toolName: NullableString,
  toolArguments: NullableString,
  toolResult: NullableString,
  createdAt: DateTime,
});

const ExportedConversation = Type.Object({
  id: Type.String(),
  agentId: Type.String(),
  source: Type.String(),
  pageUrl: NullableString,
  utm: Json,
  createdAt: DateTime,
  messages: Type.Array(ExportedMessage),
});

const ExportedDelivery = Type.Object({
  id: Type.String(),
  endpointId: Type.String(),
  status: Type.String(),
  requestBody: NullableString,
  responseBody: NullableString,
  createdAt: DateTime,
});

const ExportedWebhookEvent = Type.Object({
  id: Type.String(),
  type: Type.String(),
  createdAt: DateTime,
  queued: Type.Boolean(),
  data: Json,
  deliveries: Type.Array(ExportedDelivery),
});

const ExportedNotification = Type.Object({
  kind: Type.String(),
  status: Type.String(),
  recipientId: Type.String(),
  createdAt: DateTime,
  sentAt: NullableString,
  payload: Json,
});

export const PersonExport = named('PersonExport', Type.Object({
  exportedAt: DateTime,
  contact: Contact,
  notes: Type.Array(Note),
  opportunities: Type.Array(Opportunity),
  submissions: Type.Array(ExportedSubmission),
  consents: Type.Array(Consent),
  conversations: Type.Array(ExportedConversation),
  webhookEvents: Type.Array(ExportedWebhookEvent),
  notifications: Type.Array(ExportedNotification),
}));
export type PersonExport = Static<typeof PersonExport>;
