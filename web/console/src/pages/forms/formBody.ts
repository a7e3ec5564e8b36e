import type { Agent, BuiltInField, CustomField, FieldSetting, Fields, Form, FormInput } from '../../api/types';
import { BUILT_IN_FIELDS } from '../../api/types';
import type { PublicFormConfig } from '../../../../form/types';

/**
 * The form editor's model: a draft of every setting of a form body, the checks the page makes
 * before sending it, what a save sends (only what changed), and the public config the live
 * preview draws with the real renderer.
 */

export interface Draft {
  title: string;
  slug: string;
  active: boolean;
  fields: Fields;
  customFields: { key: string; required: boolean }[];
  consentText: string;
  successMessage: string;
  /** '' for none. */
  redirectUrl: string;
  agentId: string | null;
  createOpportunity: boolean;
  pipelineId: string | null;
  stageId: string | null;
  /** Email each lead (when the server has SMTP_URL). */
  notifyEnabled: boolean;
  /** 'owners', or the members chosen, by user id. */
  notifyRecipients: 'owners' | string[];
}

export const DEFAULT_SUCCESS_MESSAGE = 'Thank you! We will be in touch soon.';
export const SLUG = /^[a-z0-9-]{3,64}$/;
export const LIMITS = { title: 200, consentText: 5000, successMessage: 1000, redirectUrl: 2048, customFields: 50 } as const;

export const FIELD_LABELS: Record<BuiltInField, string> = { name: 'Name', email: 'Email', phone: 'Phone', company: 'Company', message: 'Message' };

export function newDraft(): Draft {
  return {
    title: '',
    slug: '',
    active: true,
    fields: {
      name: { enabled: true, required: false },
      email: { enabled: true, required: false },
      phone: { enabled: true, required: false },
      company: { enabled: false, required: false },
      message: { enabled: true, required: false },
    },
    customFields: [],
    consentText: '',
    successMessage: DEFAULT_SUCCESS_MESSAGE,
    redirectUrl: '',
    agentId: null,
    createOpportunity: true,
    pipelineId: null,
    stageId: null,
    notifyEnabled: true,
    notifyRecipients: 'owners',
  };
}

export function draftFromForm(form: Form): Draft {
  return {
    title: form.title,
    slug: form.slug,
    active: form.active,
    fields: structuredClone(form.fields),
    customFields: form.customFields.map(({ key, required }) => ({ key, required })),
    consentText: form.consentText,
    successMessage: form.successMessage,
    redirectUrl: form.redirectUrl ?? '',
    agentId: form.agentId,
    createOpportunity: form.createOpportunity,
    pipelineId: form.pipelineId,
    stageId: form.stageId,
    notifyEnabled: form.notify.enabled,
    notifyRecipients: form.notify.recipients === 'owners' ? 'owners' : [...form.notify.recipients],
  };
}

/** A built-in field's setting changed: a required field is shown; a hidden field is not required. */
export function setField(fields: Fields, name: BuiltInField, change: Partial<FieldSetting>): Fields {
  const next = { ...fields[name], ...change };
  if (change.required) next.enabled = true;
  if (change.enabled === false) next.required = false;
  return { ...fields, [name]: next };
}

/** A slug from a title: "Book a Visit!" → "book-a-visit". */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug.length >= 3 ? slug : slug ? `${slug}-form` : '';
}

export function moveItem<T>(list: readonly T[], index: number, delta: number): T[] {
  const target = index + delta;
  if (index < 0 || index >= list.length || target < 0 || target >= list.length) return [...list];
  const next = [...list];
  const [item] = next.splice(index, 1);
  next.splice(target, 0, item as T);
  return next;
}

export function toInput(draft: Draft): FormInput {
  const redirect = draft.redirectUrl.trim();
  return {
    slug: draft.slug.trim(),
    title: draft.title.trim(),
    active: draft.active,
    fields: draft.fields,
    customFields: draft.customFields.map(({ key, required }) => ({ key, required })),
    consentText: draft.consentText,
    successMessage: draft.successMessage,
    redirectUrl: redirect ? redirect : null,
    agentId: draft.agentId,
    createOpportunity: draft.createOpportunity,
    pipelineId: draft.pipelineId,
    stageId: draft.pipelineId ? draft.stageId : null,
    notify: { enabled: draft.notifyEnabled, recipients: draft.notifyRecipients },
  };
}

/** What a save sends for an existing form: the settings that differ from the saved ones. */
export function changes(saved: FormInput, next: FormInput): Partial<FormInput> {
  const out: Partial<FormInput> = {};
  for (const key of Object.keys(next) as (keyof FormInput)[]) {
    if (JSON.stringify(saved[key]) !== JSON.stringify(next[key])) (out as Record<string, unknown>)[key] = next[key];
  }
  return out;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The page's own checks, by input name (the API checks again and has the last word). */
export function checkDraft(draft: Draft): Record<string, string | null> {
  const { fields } = draft;
  return {
    title: !draft.title.trim() ? 'Give the form a title.' : draft.title.length > LIMITS.title ? `Keep the title under ${LIMITS.title} characters.` : null,
    slug: SLUG.test(draft.slug.trim()) ? null : 'Use 3 to 64 lowercase letters, digits and hyphens, like "book-a-visit".',
    fields: fields.email.enabled || fields.phone.enabled ? null : 'Show the email or the phone field: a lead needs a way to be reached.',
    consentText: !draft.consentText.trim()
      ? 'Write the consent text visitors agree to.'
      : draft.consentText.length > LIMITS.consentText
        ? `Keep the consent text under ${LIMITS.consentText} characters.`
        : null,
    successMessage: !draft.successMessage.trim() ? 'Write what visitors see after sending the form.' : null,
    redirectUrl: draft.redirectUrl.trim() && !isHttpUrl(draft.redirectUrl.trim()) ? 'Enter a full address starting with https:// or http://.' : null,
    customFields: draft.customFields.length > LIMITS.customFields ? `A form can ask for at most ${LIMITS.customFields} custom fields.` : null,
    notify: draft.notifyRecipients !== 'owners' && draft.notifyRecipients.length === 0 ? 'Choose at least one member, or send to the owners.' : null,
  };
}

/** The public config of the draft, as `GET /api/public/forms/{slug}` would answer once saved. */
export function previewConfig(draft: Draft, definitions: readonly CustomField[], agents: readonly Agent[]): PublicFormConfig {
  const byKey = new Map(definitions.map((definition) => [definition.key, definition]));
  const agent = draft.agentId ? agents.find((a) => a.id === draft.agentId) : undefined;
  const fields = Object.fromEntries(BUILT_IN_FIELDS.map((name) => [name, { ...draft.fields[name] }])) as Fields;
  return {
    slug: draft.slug || 'preview',
    title: draft.title.trim() || 'Untitled form',
    fields,
    customFields: draft.customFields.flatMap(({ key, required }) => {
      const definition = byKey.get(key);
      if (!definition || definition.archived) return [];
      return [{ key, entity: definition.entity, required, label: definition.label, type: definition.type, options: definition.options }];
    }),
    consentText: draft.consentText || 'Consent text',
    consentVersion: 'preview',
    successMessage: draft.successMessage || DEFAULT_SUCCESS_MESSAGE,
    redirectUrl: null,
    branding: agent ? agent.branding : null,
  };
}
