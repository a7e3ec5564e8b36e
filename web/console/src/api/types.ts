/**
 * Wire shapes of the JSON APIs the console uses: the session API (docs: sessions) and the Operator API
 * (`/api/org/*`, docs/operator-api.md and docs/forms-api.md; the OpenAPI document is the reference).
 */

import type { BuiltInField, Branding, FieldSetting } from '../../../form/types';

// Shapes the form renderer shares with the API (one definition, in web/form/types.ts).
export { BUILT_IN_FIELDS, type Branding, type BuiltInField, type FieldSetting } from '../../../form/types';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// ── Session ──

export type Role = 'owner' | 'member';

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: Role;
}

export interface SessionOrganization {
  id: string;
  name: string;
}

export interface Session {
  user: SessionUser;
  organization: SessionOrganization;
  csrfToken: string;
}

export interface InvitationPreview {
  email: string;
  organization: { name: string };
  expiresAt: string;
}

export interface Member {
  id: string;
  email: string;
  name: string;
  role: Role;
  createdAt: string;
}

export interface Invitation {
  id: string;
  email: string;
  expiresAt: string;
  createdAt: string;
  /** The accept link, only when the server sends no email (no SMTP configured). */
  url?: string;
}

// ── Organization ──

export interface Organization {
  id: string;
  name: string;
  defaultCountry: string;
  createdAt: string;
}

export interface ApiKey {
  id: string;
  name: string;
  lastFour: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreatedApiKey extends ApiKey {
  key: string;
}


export interface Agent {
  id: string;
  name: string;
  branding: Branding;
  createdAt: string;
  updatedAt: string;
}

// ── CRM settings ──

export const CUSTOM_FIELD_TYPES = ['text', 'textarea', 'number', 'email', 'phone', 'url', 'date', 'checkbox', 'select'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export interface CustomField {
  id: string;
  key: string;
  entity: 'contact' | 'opportunity';
  label: string;
  type: CustomFieldType | string;
  options: string[];
  archived: boolean;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Stage {
  id: string;
  name: string;
  position: number;
}

export interface Pipeline {
  id: string;
  name: string;
  isDefault: boolean;
  stages: Stage[];
  createdAt: string;
  updatedAt: string;
}

// ── Forms ──

export type Fields = Record<BuiltInField, FieldSetting>;

export interface FormCustomFieldRef {
  id: string;
  key: string;
  required: boolean;
  archived: boolean;
}

export interface Form {
  id: string;
  slug: string;
  title: string;
  active: boolean;
  fields: Fields;
  customFields: FormCustomFieldRef[];
  consentText: string;
  consentVersion: string;
  successMessage: string;
  redirectUrl: string | null;
  agentId: string | null;
  createOpportunity: boolean;
  pipelineId: string | null;
  stageId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface FormWithCounts extends Form {
  views: number;
  submissions: number;
}

/** `GET /api/org/forms/{id}/stats`: the last 30 UTC days, oldest first, today last. */
export interface FormStats {
  from: string;
  to: string;
  views: number;
  submissions: number;
  days: Array<{ day: string; views: number; submissions: number }>;
}

/** What the console sends on create and update (`customFields` by key). */
export interface FormInput {
  slug: string;
  title: string;
  active: boolean;
  fields: Fields;
  customFields: { key: string; required: boolean }[];
  consentText: string;
  successMessage: string;
  redirectUrl: string | null;
  agentId: string | null;
  createOpportunity: boolean;
  pipelineId: string | null;
  stageId: string | null;
}

export interface ConsentVersion {
  version: string;
  text: string;
  createdAt: string;
}

export interface Submission {
  id: string;
  formId: string;
  contactId: string;
  opportunityId: string | null;
  values: Record<string, string>;
  custom: Record<string, unknown>;
  consentVersion: string;
  consentText: string | null;
  metadata: Record<string, string>;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
}

export interface EmbedSnippets {
  directLink: string;
  iframe: string;
  script: string;
}

export interface Deleted {
  id: string;
  deleted: true;
}
