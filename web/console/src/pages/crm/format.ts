import type { CustomField } from '../../api/types';
import { displayValue } from '../../lib/format';

/** Small formatting helpers shared by the CRM pages (pure: unit tested in format.test.ts). */

export function contactName(contact: { name: string | null; email: string | null; phone: string | null }): string {
  return contact.name?.trim() || contact.email || contact.phone || 'Unnamed contact';
}

/** Custom values in a readable order: by the definition's label when known, else by key. */
export function customRows(custom: Record<string, unknown>, fields: CustomField[] | undefined): { key: string; label: string; value: string; archived: boolean }[] {
  const byKey = new Map((fields ?? []).map((field) => [field.key, field]));
  return Object.entries(custom)
    .map(([key, value]) => {
      const field = byKey.get(key);
      return { key, label: field?.label ?? key, value: displayValue(value), archived: field?.archived ?? false };
    })
    .sort((a, b) => a.label.localeCompare(b.label));
}
