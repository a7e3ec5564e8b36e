import { Type, type Static } from '@sinclair/typebox';
import { ChangesBody } from '../http/changes.js';
import { Page } from '../http/envelope.js';
import { IdParam, withNotFound } from '../http/path-ids.js';
import { named } from '../http/schema-name.js';
import { MultilineText } from '../http/wire-text.js';
import { formNotFound, publicFormNotFound } from './errors.js';
import { BUILT_IN_FIELDS, LIMITS, SLUG_PATTERN, UTM_KEYS } from './rules.js';

/** Wire shapes of the forms feature: the Operator API (`/api/org/forms`) and the public Forms API. */

// ── Shared pieces ──

export const FieldSetting = named('FieldSetting', Type.Object(
  {
    enabled: Type.Boolean({ description: 'The field is shown.' }),
    required: Type.Boolean({ description: 'The field must carry a value. A required field must be enabled.' }),
  },
  { additionalProperties: false },
));

const fieldProperties = Object.fromEntries(BUILT_IN_FIELDS.map((name) => [name, FieldSetting])) as Record<(typeof BUILT_IN_FIELDS)[number], typeof FieldSetting>;

/** All five built-in fields, as the public config and the operator record show them. */
export const Fields = named('FormFields', Type.Object(fieldProperties, { additionalProperties: false, description: 'Exactly five keys: name, email, phone, company, message.' }));

/** On create and update any subset of the five; the others keep their current (or default) setting. */
const FieldsInput = named('FormFieldsInput', Type.Partial(Fields, {
  additionalProperties: false,
  description:
    'Any of name, email, phone, company, message, each {enabled, required}. Omitted ones keep their setting; on create the defaults are ' +
    'name, email, phone and message enabled and optional, company off. A required field must be enabled; email or phone must be enabled.',
}));

export const Slug = Type.String({ pattern: SLUG_PATTERN.source, description: 'Lowercase letters, digits and hyphens, 3–64 characters; unique across the service.' });
const Id = Type.String({ minLength: 1, maxLength: 64 });
const NullableId = (description: string) => Type.Union([Id, Type.Null()], { description });
const Url = Type.String({ maxLength: LIMITS.redirectUrl, description: 'An http:// or https:// URL.' });

// ── Operator API ──

/** The most members a form may name as its recipients. */
export const MAX_NOTIFY_RECIPIENTS = 50;

const NotifyRecipients = Type.Union([
  Type.Literal('owners'),
  Type.Array(Type.String({ pattern: '^usr_[0-9A-Za-z]{20,24}$', description: 'A member\'s user id.' }), { minItems: 1, maxItems: MAX_NOTIFY_RECIPIENTS, uniqueItems: true }),
], { description: '"owners": the organization\'s owners at the time of each submission; or members by user id (`usr_…`, each a member of your organization).' });

export const FormNotify = named('FormNotify', Type.Object(
  {
    enabled: Type.Boolean({ description: 'Email each submission to the recipients (only when the server has SMTP_URL; members can turn it off for themselves).' }),
    recipients: NotifyRecipients,
  },
  { additionalProperties: false },
));

const FormNotifyInput = named('FormNotifyInput', Type.Partial(FormNotify, { additionalProperties: false, description: 'Either or both; the other keeps its setting (default: on, owners).' }));

const CustomFieldRefInput = named('FormCustomFieldRefInput', Type.Object(
  {
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Key of a custom field definition.' })),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Or its id (`cf_…`).' })),
    required: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false, description: 'A custom field definition of your organization, by key or by id (one of them), that is not archived.' },
));

const formInputProperties = {
  title: Type.String({ minLength: 1, maxLength: LIMITS.title }),
  active: Type.Boolean({ description: 'An inactive form answers 404 FORM_NOT_FOUND on the public endpoints.' }),
  fields: FieldsInput,
  customFields: Type.Array(CustomFieldRefInput, { maxItems: LIMITS.customFieldsPerForm, description: 'Custom CRM fields shown on the form, in display order.' }),
  consentText: MultilineText({ minLength: 1, maxLength: LIMITS.consentText, description: 'Changing it issues a new consentVersion.' }),
  successMessage: MultilineText({ minLength: 1, maxLength: LIMITS.successMessage }),
  redirectUrl: Type.Union([Url, Type.Null()], { description: 'Where the visitor goes after success; null to stay and show the success message.' }),
  agentId: NullableId('Agent whose brand styles the form (`agt_…`); null for the default style.'),
  createOpportunity: Type.Boolean({ description: 'Open an opportunity on every submission.' }),
  pipelineId: NullableId('Pipeline for the opportunities; null for the default pipeline.'),
  stageId: NullableId('Stage for the opportunities; null for the first stage of the pipeline.'),
  notify: FormNotifyInput,
};

export const FormCreateBody = named('FormCreate', Type.Object(
  {
    slug: Slug,
    title: formInputProperties.title,
    active: Type.Optional(formInputProperties.active),
    fields: Type.Optional(formInputProperties.fields),
    customFields: Type.Optional(formInputProperties.customFields),
    consentText: formInputProperties.consentText,
    successMessage: Type.Optional(formInputProperties.successMessage),
    redirectUrl: Type.Optional(formInputProperties.redirectUrl),
    agentId: Type.Optional(formInputProperties.agentId),
    createOpportunity: Type.Optional(formInputProperties.createOpportunity),
    pipelineId: Type.Optional(formInputProperties.pipelineId),
    stageId: Type.Optional(formInputProperties.stageId),
    notify: Type.Optional(formInputProperties.notify),
  },
  { additionalProperties: false },
));
export type FormCreateInput = Static<typeof FormCreateBody>;

export const FormPatchBody = named('FormPatch', ChangesBody({ slug: Slug, ...formInputProperties }, {
  description: 'Any subset of the form fields; only those given change.',
}));
export type FormPatchInput = Static<typeof FormPatchBody>;

export const FormCustomFieldRef = named('FormCustomFieldRef', Type.Object({
  id: Type.String(),
  key: Type.String(),
  required: Type.Boolean(),
  archived: Type.Boolean({ description: 'The definition was archived: the public form no longer shows it.' }),
}));

export const FormRecord = named('Form', Type.Object({
  id: Type.String({ description: '`frm_…`' }),
  slug: Type.String(),
  title: Type.String(),
  active: Type.Boolean(),
  fields: Fields,
  customFields: Type.Array(FormCustomFieldRef),
  consentText: Type.String(),
  consentVersion: Type.String({ description: 'Version of consentText: "1", then "2" after the first change, and so on.' }),
  successMessage: Type.String(),
  redirectUrl: Type.Union([Type.String(), Type.Null()]),
  agentId: Type.Union([Type.String(), Type.Null()]),
  createOpportunity: Type.Boolean(),
  pipelineId: Type.Union([Type.String(), Type.Null()]),
  stageId: Type.Union([Type.String(), Type.Null()]),
  notify: FormNotify,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}));
export type FormRecord = Static<typeof FormRecord>;

export const FormWithCounts = named('FormWithCounts', Type.Object({
  ...FormRecord.properties,
  views: Type.Integer({ minimum: 0, description: 'Views since the form was created: loads of the hosted page (and its iframe embed) and renders by form-embed.js (one per page and form).' }),
  submissions: Type.Integer({ minimum: 0, description: 'Submissions stored since the form was created (honeypot hits and refusals are not stored).' }),
}));

export const FormPage = Page(FormWithCounts);

const DayStats = named('FormDayStats', Type.Object({
  day: Type.String({ description: 'UTC day, YYYY-MM-DD.' }),
  views: Type.Integer({ minimum: 0 }),
  submissions: Type.Integer({ minimum: 0 }),
}));

export const FormStats = named('FormStats', Type.Object({
  from: Type.String({ description: 'First day (UTC) of the period: 29 days before `to`.' }),
  to: Type.String({ description: 'Last day of the period: today (UTC).' }),
  views: Type.Integer({ minimum: 0, description: 'Views in the period.' }),
  submissions: Type.Integer({ minimum: 0, description: 'Submissions in the period.' }),
  days: Type.Array(DayStats, { description: 'Exactly 30 entries, oldest first; days without views or submissions included with zeros.' }),
}));
export const FormIdParams = Type.Object({ id: IdParam('frm', formNotFound, 'The form id (`frm_…`).') });

export const SubmissionRecord = named('Submission', Type.Object({
  id: Type.String({ description: '`sub_…`' }),
  formId: Type.String(),
  contactId: Type.String(),
  opportunityId: Type.Union([Type.String(), Type.Null()]),
  values: Type.Record(Type.String(), Type.String(), { description: 'Built-in field values as stored (email lowercased, phone in E.164).' }),
  custom: Type.Record(Type.String(), Type.Unknown(), { description: 'Custom field values by key.' }),
  consentVersion: Type.String(),
  consentText: Type.Union([Type.String(), Type.Null()], { description: 'The consent text the visitor agreed to.' }),
  metadata: Type.Record(Type.String(), Type.String(), { description: 'utm_* values.' }),
  ip: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
}));
export type SubmissionRecord = Static<typeof SubmissionRecord>;
export const SubmissionPage = Page(SubmissionRecord);

export const ConsentVersion = named('ConsentVersion', Type.Object({
  version: Type.String({ description: '"1", "2", …: what submissions carry as consentVersion.' }),
  text: Type.String({ description: 'The exact consent text of that version.' }),
  createdAt: Type.String({ format: 'date-time' }),
}));
export type ConsentVersion = Static<typeof ConsentVersion>;
export const ConsentVersionList = named('ConsentVersionList', Type.Array(ConsentVersion));

export const SubmissionsCsv = named('SubmissionsCsv', Type.String({
  description: 'CSV (RFC 4180, UTF-8 with a byte order mark), newest first. Columns: submittedAt, id, the form\'s enabled fields, its custom field keys, utm_source, utm_medium, utm_campaign, utm_term, utm_content, consentVersion, consentText. A cell starting with = + - @, a tab or a carriage return is prefixed with \' so spreadsheets do not run it.',
}));

export const EmbedSnippets = named('EmbedSnippets', Type.Object({
  directLink: Type.String({ description: '`{base_url}/f/{slug}`' }),
  iframe: Type.String({ description: 'An <iframe> of the hosted page with `?embed=1`, sized by attributes (width 100%, a height fitted to the form), with no inline style, so a host CSP needs only `frame-src`.' }),
  script: Type.String({ description: 'A <div data-svc-form> plus the one async script tag that renders every such div.' }),
}));

// ── Public Forms API ──

export const PublicSlugParams = Type.Object({ slug: withNotFound(Type.String({ pattern: SLUG_PATTERN.source, description: 'The form\'s slug.' }), publicFormNotFound) });

const HexColor = Type.String({ description: 'Hex color, like #1a73e8.' });
export const Branding = named('PublicBranding', Type.Object(
  {
    name: Type.String(),
    primaryColor: HexColor,
    backgroundColor: HexColor,
    textColor: HexColor,
    fontFamily: Type.Union([Type.String(), Type.Null()]),
    logoUrl: Type.String({ description: 'URL of the logo; an empty string when the brand has none.' }),
  },
  { additionalProperties: false },
));

export const PublicCustomField = named('PublicCustomField', Type.Object(
  {
    key: Type.String({ description: 'Key to use in the `custom` object of a submission.' }),
    entity: Type.String({ description: '`contact` or `opportunity`.' }),
    required: Type.Boolean(),
    label: Type.String(),
    type: Type.String({ description: 'Field type, e.g. `text` or `select`.' }),
    options: Type.Array(Type.String(), { description: 'Choices of a select field; empty for other types.' }),
  },
  { additionalProperties: false },
));

export const PublicFormConfig = named('PublicFormConfig', Type.Object(
  {
    slug: Type.String(),
    title: Type.String(),
    fields: Fields,
    customFields: Type.Array(PublicCustomField),
    consentText: Type.String(),
    consentVersion: Type.String({ description: 'Send it back as consentVersion when submitting.' }),
    successMessage: Type.String(),
    redirectUrl: Type.Union([Type.String(), Type.Null()], { description: 'If not null, redirect the visitor here after success (http/https only).' }),
    branding: Type.Union([Branding, Type.Null()]),
  },
  { additionalProperties: false },
));
export type PublicFormConfig = Static<typeof PublicFormConfig>;

/**
 * Documents the submission body. Values are checked by the submit rules in their
 * documented order (consent, identity, required, then each value), not by this
 * schema, so a wrong type is an INVALID_FIELD naming the field, after the earlier rules.
 */
export const SubmitBody = named('SubmitRequest', Type.Object(
  {
    consentVersion: Type.String({ description: 'Must equal the form\'s current consentVersion.' }),
    name: Type.Optional(Type.String({ maxLength: LIMITS.name })),
    email: Type.Optional(Type.String({ maxLength: LIMITS.email })),
    phone: Type.Optional(Type.String({ maxLength: LIMITS.phone })),
    company: Type.Optional(Type.String({ maxLength: LIMITS.company })),
    message: Type.Optional(MultilineText({ maxLength: LIMITS.message })),
    custom: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Values of the form\'s custom fields by key.' })),
    metadata: Type.Optional(
      Type.Object(Object.fromEntries(UTM_KEYS.map((key) => [key, Type.Optional(Type.String({ maxLength: LIMITS.utm }))])), {
        description: 'UTM parameters; other keys are ignored.',
      }),
    ),
    _hp: Type.Optional(Type.String({ description: 'Honeypot: leave empty. Any value makes the submission a silent no-op.' })),
  },
  { description: 'A lead. At least one of email or phone. Values of disabled fields and unknown keys are ignored.' },
));

export const SubmitResult = named('SubmitResult', Type.Object({
  ok: Type.Literal(true),
  successMessage: Type.String(),
  redirectUrl: Type.Union([Type.String(), Type.Null()]),
}));
export type SubmitResult = Static<typeof SubmitResult>;
