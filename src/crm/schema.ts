import { Type, type Static } from '@sinclair/typebox';
import { ChangesBody } from '../http/changes.js';
import { ListQuery, Page } from '../http/envelope.js';
import { IdParam } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { MultilineText } from '../http/wire-text.js';
import { contactNotFound, customFieldNotFound, opportunityNotFound, pipelineNotFound, stageNotFound } from './errors.js';

/** Wire schemas of the CRM side of the Operator API: custom fields, pipelines, contacts, notes, opportunities. */

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const CUSTOM_FIELD_KEY = '^[a-z][a-z0-9_]{0,63}$';
export const CUSTOM_FIELD_ENTITIES = ['contact', 'opportunity'] as const;
export const CUSTOM_FIELD_TYPES = ['text', 'textarea', 'number', 'email', 'phone', 'url', 'date', 'checkbox', 'select'] as const;
export type CustomFieldEntity = (typeof CUSTOM_FIELD_ENTITIES)[number];
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

const CustomValue = named('CustomValue', Type.Union([MultilineText({ maxLength: 5000 }), Type.Number(), Type.Boolean()]));
/** Values of custom fields by key; checked against the org's definitions. */
export const CustomValues = named('CustomValues', Type.Record(Type.String({ pattern: CUSTOM_FIELD_KEY }), CustomValue, {
  additionalProperties: false,
  maxProperties: 100,
  description: 'Values by custom field key: text as strings, `number` as numbers, `checkbox` as booleans.',
}));
/** In an update, null removes a value. */
export const CustomValuesPatch = named('CustomValuesPatch', Type.Record(Type.String({ pattern: CUSTOM_FIELD_KEY }), Type.Union([CustomValue, Type.Null()]), {
  additionalProperties: false,
  maxProperties: 100,
  description: 'Values to set by key; null removes a value; keys not given are kept.',
}));
const StoredCustom = Type.Record(Type.String(), Type.Unknown());

export const ContactIdParams = Type.Object({ id: IdParam('ct', contactNotFound, 'The contact id (`ct_…`).') });
export const OpportunityIdParams = Type.Object({ id: IdParam('opp', opportunityNotFound, 'The opportunity id (`opp_…`).') });
export const CustomFieldIdParams = Type.Object({ id: IdParam('cf', customFieldNotFound, 'The custom field id (`cf_…`).') });
export const PipelineIdParams = Type.Object({ id: IdParam('pipe', pipelineNotFound, 'The pipeline id (`pipe_…`).') });

// ── Custom fields ──

const Options = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, description: 'Choices of a `select` field: non-empty and unique. Empty for other types.' });

export const CustomField = named('CustomField', Type.Object({
  id: Type.String({ description: '`cf_…`' }),
  key: Type.String({ description: 'Key in the `custom` object of contacts, opportunities and submissions.' }),
  entity: Type.Union(CUSTOM_FIELD_ENTITIES.map((e) => Type.Literal(e))),
  label: Type.String(),
  type: Type.Union(CUSTOM_FIELD_TYPES.map((t) => Type.Literal(t))),
  options: Type.Array(Type.String()),
  archived: Type.Boolean({ description: 'Archived fields keep their values but leave forms and new input.' }),
  archivedAt: Type.Union([DateTime, Type.Null()]),
  createdAt: DateTime,
  updatedAt: DateTime,
}));
export type CustomField = Static<typeof CustomField>;
export const CustomFieldPage = Page(CustomField);

export const CustomFieldCreate = named('CustomFieldCreate', Type.Object(
  {
    key: Type.String({ pattern: CUSTOM_FIELD_KEY, description: 'Lowercase letters, digits and _, starting with a letter; unique in the organization.' }),
    entity: CustomField.properties.entity,
    label: Type.String({ minLength: 1, maxLength: 100 }),
    type: CustomField.properties.type,
    options: Type.Optional(Options),
  },
  { additionalProperties: false },
));
export type CustomFieldCreate = Static<typeof CustomFieldCreate>;

export const CustomFieldPatch = named('CustomFieldPatch', ChangesBody(
  { label: CustomFieldCreate.properties.label, options: Options },
  { description: 'Key, entity and type are fixed once created: values already stored depend on them.' },
));
export type CustomFieldPatch = Static<typeof CustomFieldPatch>;

export const CustomFieldListQuery = Type.Object(
  {
    ...ListQuery,
    entity: Type.Optional(CustomField.properties.entity),
    archived: Type.Optional(Type.Boolean({ description: 'true: only archived; false: only active; omitted: all.' })),
  },
  { additionalProperties: false },
);

// ── Pipelines ──

export const Stage = named('Stage', Type.Object({ id: Type.String({ description: '`stg_…`' }), name: Type.String(), position: Type.Integer({ description: '0 for the first stage.' }) }));
export const Pipeline = named('Pipeline', Type.Object({
  id: Type.String({ description: '`pipe_…`' }),
  name: Type.String(),
  isDefault: Type.Boolean({ description: 'Forms without a configured pipeline open opportunities in the default pipeline\'s first stage.' }),
  stages: Type.Array(Stage),
  createdAt: DateTime,
  updatedAt: DateTime,
}));
export type Pipeline = Static<typeof Pipeline>;
export const PipelinePage = Page(Pipeline);

const StageName = Type.String({ minLength: 1, maxLength: 100 });
export const PipelineCreate = named('PipelineCreate', Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    stages: Type.Array(Type.Object({ name: StageName }, { additionalProperties: false }), { minItems: 1, maxItems: 50, description: 'In order; names unique within the pipeline.' }),
    isDefault: Type.Optional(Type.Boolean({ description: 'true makes this the default pipeline in place of the current one.' })),
  },
  { additionalProperties: false },
));
export type PipelineCreate = Static<typeof PipelineCreate>;

export const PipelinePatch = named('PipelinePatch', ChangesBody({
  name: PipelineCreate.properties.name,
  stages: Type.Array(Type.Object({ id: Type.Optional(Type.String({ maxLength: 100 })), name: StageName }, { additionalProperties: false }), {
    minItems: 1,
    maxItems: 50,
    description: 'The complete new list, in order: items with an `id` keep (rename, move) that stage, items without one are added, stages left out are deleted.',
  }),
  isDefault: Type.Literal(true, { description: 'Make this the default pipeline. To change the default, set it on another pipeline.' }),
}));
export type PipelinePatch = Static<typeof PipelinePatch>;
export const StageParams = Type.Object({ id: PipelineIdParams.properties.id, stageId: IdParam('stg', stageNotFound, 'The stage id (`stg_…`).') });

// ── Contacts, notes, opportunities ──

export const Contact = named('Contact', Type.Object({
  id: Type.String({ description: '`ct_…`' }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'Trimmed and lowercased.' }),
  phone: Type.Union([Type.String(), Type.Null()], { description: 'E.164, like +14155552671.' }),
  name: Type.Union([Type.String(), Type.Null()]),
  company: Type.Union([Type.String(), Type.Null()]),
  source: Type.String({ description: 'Where the contact came from: `form`, `api` or `panel`.' }),
  custom: StoredCustom,
  createdAt: DateTime,
  updatedAt: DateTime,
}));
export type Contact = Static<typeof Contact>;
export const ContactPage = Page(Contact);

export const Note = named('Note', Type.Object({
  id: Type.String({ description: '`note_…`' }),
  body: Type.String(),
  source: Type.String(),
  submissionId: Type.Union([Type.String(), Type.Null()]),
  createdAt: DateTime,
}));
export type Note = Static<typeof Note>;
export const NoteCreate = named('NoteCreate', Type.Object({ body: MultilineText({ minLength: 1, maxLength: 10000 }) }, { additionalProperties: false }));

export const Opportunity = named('Opportunity', Type.Object({
  id: Type.String({ description: '`opp_…`' }),
  contactId: Type.String(),
  pipelineId: Type.String(),
  stageId: Type.String(),
  title: Type.String(),
  source: Type.String(),
  custom: StoredCustom,
  submissionId: Type.Union([Type.String(), Type.Null()], { description: 'The form submission that opened it, if any.' }),
  contactErased: Type.Boolean({ description: 'Its contact was erased (POST /api/org/contacts/{id}/erase): the contact is gone, the opportunity stays.' }),
  createdAt: DateTime,
  updatedAt: DateTime,
}));
export type Opportunity = Static<typeof Opportunity>;
export const OpportunityPage = Page(Opportunity);

export const ContactSubmission = named('ContactSubmission', Type.Object({
  id: Type.String({ description: '`sub_…`' }),
  formId: Type.String(),
  opportunityId: Type.Union([Type.String(), Type.Null()]),
  values: Type.Record(Type.String(), Type.Unknown(), { description: 'Built-in field values as stored.' }),
  custom: StoredCustom,
  consentVersion: Type.String(),
  consentText: Type.Union([Type.String(), Type.Null()], { description: 'The consent text the visitor agreed to.' }),
  metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'utm_* values.' }),
  ip: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  createdAt: DateTime,
}));
export type ContactSubmission = Static<typeof ContactSubmission>;

export const ContactDetail = named('ContactDetail', Type.Intersect([
  Contact,
  Type.Object({
    notes: Type.Array(Note, { description: 'Newest first, at most 100.' }),
    opportunities: Type.Array(Opportunity, { description: 'Newest first, at most 100.' }),
    submissions: Type.Array(ContactSubmission, { description: 'Newest first, at most 100.' }),
  }),
]));
export type ContactDetail = Static<typeof ContactDetail>;

const Email = Type.String({ maxLength: 254 });
const Phone = Type.String({ maxLength: 40 });
const Name = Type.String({ maxLength: 200 });
export const ContactCreate = named('ContactCreate', Type.Object(
  { email: Type.Optional(Email), phone: Type.Optional(Phone), name: Type.Optional(Name), company: Type.Optional(Name), custom: Type.Optional(CustomValues) },
  { additionalProperties: false, description: 'Needs an email or a phone. National phone numbers are read in the organization\'s default country.' },
));
export type ContactCreate = Static<typeof ContactCreate>;

export const ContactPatch = named('ContactPatch', ChangesBody(
  {
    email: Nullable(Email),
    phone: Nullable(Phone),
    name: Nullable(Name),
    company: Nullable(Name),
    custom: CustomValuesPatch,
  },
  { description: 'Changes only the fields given; null clears one. A contact keeps an email or a phone.' },
));
export type ContactPatch = Static<typeof ContactPatch>;

export const ContactListQuery = Type.Object(
  {
    ...ListQuery,
    email: Type.Optional(Type.String({ maxLength: 254, description: 'Exact match, after trimming and lowercasing.' })),
    phone: Type.Optional(Type.String({ maxLength: 40, description: "Exact match after normalizing to E.164 (national numbers in the org's default country)." })),
    q: Type.Optional(Type.String({ maxLength: 200, description: 'Free text, case-insensitive, over name, email, phone and company.' })),
  },
  { additionalProperties: false },
);
export type ContactListQuery = Static<typeof ContactListQuery>;

const Title = Type.String({ minLength: 1, maxLength: 200 });
export const OpportunityCreate = named('OpportunityCreate', Type.Object(
  {
    contactId: Type.String({ maxLength: 100 }),
    title: Title,
    pipelineId: Type.Optional(Type.String({ maxLength: 100, description: 'Omit both pipelineId and stageId for the default pipeline\'s first stage.' })),
    stageId: Type.Optional(Type.String({ maxLength: 100, description: "Omit for the pipeline's first stage." })),
    custom: Type.Optional(CustomValues),
  },
  { additionalProperties: false },
));
export type OpportunityCreate = Static<typeof OpportunityCreate>;

export const OpportunityPatch = named('OpportunityPatch', ChangesBody({
  title: Title,
  pipelineId: Type.String({ maxLength: 100, description: "Moving to another pipeline without a stageId lands in that pipeline's first stage." }),
  stageId: Type.String({ maxLength: 100, description: 'The new stage; its pipeline follows from it.' }),
  custom: CustomValuesPatch,
}));
export type OpportunityPatch = Static<typeof OpportunityPatch>;

export const OpportunityListQuery = Type.Object(
  {
    ...ListQuery,
    contactId: Type.Optional(Type.String({ maxLength: 100 })),
    pipelineId: Type.Optional(Type.String({ maxLength: 100 })),
    stageId: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type OpportunityListQuery = Static<typeof OpportunityListQuery>;
