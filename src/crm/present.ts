import type { ContactsTable, NotesTable, OpportunitiesTable, SubmissionsTable } from '../db/tables.js';
import type { Contact, Note, Opportunity } from './schema.js';

/** Rows → wire shapes (camelCase, JSON columns parsed). */

const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

export function presentContact(row: ContactsTable): Contact {
  return {
    id: row.id,
    email: row.email,
    phone: row.phone,
    name: row.name,
    company: row.company,
    source: row.source,
    custom: json(row.custom),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function presentNote(row: NotesTable): Note {
  return { id: row.id, body: row.body, source: row.source, submissionId: row.submission_id, createdAt: row.created_at };
}

/** `contact_erased`: as the opportunities repo reads it (1: the contact was erased); a row without it is a live contact's. */
export function presentOpportunity(row: OpportunitiesTable & { contact_erased?: number | undefined }): Opportunity {
  return {
    id: row.id,
    contactId: row.contact_id,
    pipelineId: row.pipeline_id,
    stageId: row.stage_id,
    title: row.title,
    source: row.source,
    custom: json(row.custom),
    submissionId: row.submission_id,
    contactErased: Number(row.contact_erased ?? 0) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A stored submission on the wire: forms/schema.ts's SubmissionRecord (a form's list, checked against it
 * by forms/service.ts) and, without `contactId`, crm/schema.ts's ContactSubmission. Declared here,
 * since forms/ depends on the CRM and not the other way round.
 */
export interface PresentedSubmission {
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

/**
 * A form submission, with the consent text its version had: for a form's submission list and
 * a contact's detail (whose schema leaves out `contactId`).
 */
export function presentSubmission(row: SubmissionsTable & { consent_text: string | null }): PresentedSubmission {
  return {
    id: row.id,
    formId: row.form_id,
    contactId: row.contact_id,
    opportunityId: row.opportunity_id,
    values: JSON.parse(row.field_values) as Record<string, string>,
    custom: json(row.custom),
    consentVersion: row.consent_version,
    consentText: row.consent_text,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    ip: row.ip,
    userAgent: row.user_agent,
    createdAt: row.created_at,
  };
}
