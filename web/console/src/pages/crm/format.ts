import { ApiError } from '../../api/client';
import type { CustomField } from '../../api/types';

/** Small formatting helpers shared by the CRM pages (pure: unit tested in format.test.ts). */

export function contactName(contact: { name: string | null; email: string | null; phone: string | null }): string {
  return contact.name?.trim() || contact.email || contact.phone || 'Unnamed contact';
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** A stored custom value as text: booleans as Yes/No, lists joined, objects as JSON. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(formatValue).join(', ');
  return JSON.stringify(value);
}

/** Custom values in a readable order: by the definition's label when known, else by key. */
export function customRows(custom: Record<string, unknown>, fields: CustomField[] | undefined): { key: string; label: string; value: string; archived: boolean }[] {
  const byKey = new Map((fields ?? []).map((field) => [field.key, field]));
  return Object.entries(custom)
    .map(([key, value]) => {
      const field = byKey.get(key);
      return { key, label: field?.label ?? key, value: formatValue(value), archived: field?.archived ?? false };
    })
    .sort((a, b) => a.label.localeCompare(b.label));
}

/**
 * The API's message when its refusal names this field (`body`, `options`, `stages.2.name`…), to show
 * beside the input; `prefix` also claims sub-paths (`options.1` belongs to `options`).
 */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError) || !error.field) return undefined;
  if (error.field === field || error.field.startsWith(`${field}.`)) return error.message;
  return undefined;
}

/** The error when no field claims it, for the form-level alert. */
export function formLevelError(error: unknown, fields: string[]): unknown {
  if (!error) return null;
  if (error instanceof ApiError && error.field && fields.some((field) => fieldError(error, field))) return null;
  return error;
}
