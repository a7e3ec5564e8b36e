import { createHash } from 'node:crypto';
import type { CrmService, CustomFieldDefinition, OpportunityTarget } from '../crm/service.js';
import type { FormsTable } from '../db/tables.js';
import { isAppError } from '../http/errors.js';
import type { OrgsService } from '../orgs/service.js';
import type { NotifySetting } from '../notifications/outbox.js';
import type { CachedForm } from './form-cache.js';
import type { FormsRepo } from './repo.js';
import { SLUG_PATTERN, type FieldSettings } from './rules.js';
import type { PublicFormConfig } from './schema.js';

/** A custom field as a live form uses it: the definition resolved, plus the form's `required`. */
export interface LiveCustomField extends CustomFieldDefinition {
  required: boolean;
}

/**
 * Everything the public endpoints need about one active form, resolved once and
 * cached: the rules submit checks against, and the config response already
 * serialized with its ETag, so a config read is a Map lookup and a write.
 */
export interface LiveForm extends CachedForm {
  id: string;
  orgId: string;
  slug: string;
  fields: FieldSettings;
  customFields: LiveCustomField[];
  consentVersion: string;
  successMessage: string;
  redirectUrl: string | null;
  createOpportunity: boolean;
  pipelineId: string | null;
  stageId: string | null;
  /**
   * Where opportunities go, resolved when the form was loaded (saves two queries per
   * submission). Pipeline and stage changes invalidate the cache; should a deleted stage
   * slip through, creating the opportunity fails and submit resolves the target again.
   * Null when opportunities are off or the configuration is broken (submit then reports it).
   */
  opportunityTarget: OpportunityTarget | null;
  title: string;
  /** For national phone numbers (ISO 3166 alpha-2). */
  defaultCountry: string;
  /** Who each submission emails (notifications/): read from the form at submit time, through this cache. */
  notify: NotifySetting;
  /** `{"success":true,"data":<config>}`, ready to send. */
  configBody: string;
  etag: string;
}

export interface StoredCustomFieldRef {
  customFieldId: string;
  required: boolean;
}

export function parseCustomFieldRefs(json: string): StoredCustomFieldRef[] {
  return JSON.parse(json) as StoredCustomFieldRef[];
}

/** A form's notify setting from its row: null recipients are the owners. */
export function notifyOf(form: Pick<FormsTable, 'notify_enabled' | 'notify_recipients'>): NotifySetting {
  return { enabled: form.notify_enabled === 1, recipients: form.notify_recipients === null ? 'owners' : (JSON.parse(form.notify_recipients) as string[]) };
}

/** Exactly the spec's fields, in the spec's order, and no internal id anywhere. */
function publicConfig(form: FormsTable, fields: FieldSettings, customFields: LiveCustomField[], branding: PublicFormConfig['branding']): PublicFormConfig {
  return {
    slug: form.slug,
    title: form.title,
    fields: {
      name: { enabled: fields.name.enabled, required: fields.name.required },
      email: { enabled: fields.email.enabled, required: fields.email.required },
      phone: { enabled: fields.phone.enabled, required: fields.phone.required },
      company: { enabled: fields.company.enabled, required: fields.company.required },
      message: { enabled: fields.message.enabled, required: fields.message.required },
    },
    customFields: customFields.map((field) => ({
      key: field.key,
      entity: field.entity,
      required: field.required,
      label: field.label,
      type: field.type,
      options: [...field.options],
    })),
    consentText: form.consent_text,
    consentVersion: form.consent_version,
    successMessage: form.success_message,
    redirectUrl: form.redirect_url,
    branding: branding
      ? {
          name: branding.name,
          primaryColor: branding.primaryColor,
          backgroundColor: branding.backgroundColor,
          textColor: branding.textColor,
          fontFamily: branding.fontFamily,
          // The spec types it as a string; a brand without a logo has an empty one (as the Operator API shows it).
          logoUrl: branding.logoUrl ?? '',
        }
      : null,
  };
}

/** Loads one form by slug for the cache: null when it does not exist or is inactive. */
export function createLiveFormLoader(deps: { repo: FormsRepo; crm: CrmService; orgs: Pick<OrgsService, 'agentBranding' | 'defaultCountry'> }) {
  const { repo, crm, orgs } = deps;

  async function resolveTarget(form: FormsTable): Promise<OpportunityTarget | null> {
    try {
      return await crm.resolveOpportunityTarget(form.org_id, form.pipeline_id, form.stage_id);
    } catch (error) {
      if (isAppError(error)) return null;
      throw error;
    }
  }

  return async (slug: string): Promise<LiveForm | null> => {
    // A string that cannot be a slug costs no query: floods of made-up slugs stay off the database.
    if (!SLUG_PATTERN.test(slug)) return null;
    const form = await repo.findFormBySlug(slug);
    if (!form || form.active !== 1) return null;
    const refs = parseCustomFieldRefs(form.custom_fields);
    const [definitions, branding, defaultCountry, opportunityTarget] = await Promise.all([
      crm.activeCustomFields(form.org_id, refs.map((ref) => ref.customFieldId)),
      orgs.agentBranding(form.org_id, form.agent_id),
      orgs.defaultCountry(form.org_id),
      form.create_opportunity === 1 ? resolveTarget(form) : null,
    ]);
    const requiredById = new Map(refs.map((ref) => [ref.customFieldId, ref.required]));
    const customFields: LiveCustomField[] = definitions.map((definition) => ({ ...definition, required: requiredById.get(definition.id) ?? false }));
    const fields = JSON.parse(form.fields) as FieldSettings;
    const configBody = JSON.stringify({ success: true, data: publicConfig(form, fields, customFields, branding) });
    return {
      id: form.id,
      orgId: form.org_id,
      slug: form.slug,
      title: form.title,
      fields,
      customFields,
      consentVersion: form.consent_version,
      successMessage: form.success_message,
      redirectUrl: form.redirect_url,
      createOpportunity: form.create_opportunity === 1,
      pipelineId: form.pipeline_id,
      stageId: form.stage_id,
      opportunityTarget,
      defaultCountry,
      notify: notifyOf(form),
      configBody,
      etag: `"${createHash('sha256').update(configBody).digest('base64url').slice(0, 27)}"`,
    };
  };
}
