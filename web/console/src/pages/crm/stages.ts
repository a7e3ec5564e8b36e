import type { Stage } from '../../api/types';

/**
 * The stage editor's draft: the complete ordered list the API's PATCH /api/org/pipelines/{id}
 * takes (`{id?, name}` — kept stages by id, new ones without, left-out ones deleted).
 */

export interface DraftStage {
  /** A stable key for React while editing. */
  key: string;
  /** The stage's id when it already exists. */
  id?: string;
  name: string;
}

let counter = 0;
const newKey = () => `new-${++counter}`;

export function draftFrom(stages: Stage[]): DraftStage[] {
  return [...stages].sort((a, b) => a.position - b.position).map((stage) => ({ key: stage.id, id: stage.id, name: stage.name }));
}

export function draftFromNames(names: string[]): DraftStage[] {
  return names.map((name) => ({ key: newKey(), name }));
}

/** The list with the item at `from` moved to `to` (both clamped to the list); the same list when nothing moves. */
export function moveItem<T>(list: T[], from: number, to: number): T[] {
  if (list.length === 0) return list;
  const source = Math.max(0, Math.min(list.length - 1, from));
  const target = Math.max(0, Math.min(list.length - 1, to));
  if (source === target) return list;
  const next = [...list];
  const [item] = next.splice(source, 1);
  next.splice(target, 0, item!);
  return next;
}

export function addStage(draft: DraftStage[], name = ''): DraftStage[] {
  return [...draft, { key: newKey(), name }];
}

export function renameStage(draft: DraftStage[], key: string, name: string): DraftStage[] {
  return draft.map((stage) => (stage.key === key ? { ...stage, name } : stage));
}

export function removeStage(draft: DraftStage[], key: string): DraftStage[] {
  return draft.filter((stage) => stage.key !== key);
}

/** The body's `stages`: names trimmed, ids kept for existing stages. */
export function stagesPayload(draft: DraftStage[]): { id?: string; name: string }[] {
  return draft.map((stage) => (stage.id ? { id: stage.id, name: stage.name.trim() } : { name: stage.name.trim() }));
}

/** True when the draft differs from the saved stages (order, names, additions, removals). */
export function stagesChanged(saved: Stage[], draft: DraftStage[]): boolean {
  const before = draftFrom(saved);
  if (before.length !== draft.length) return true;
  return draft.some((stage, i) => stage.id !== before[i]!.id || stage.name.trim() !== before[i]!.name);
}

/**
 * Checks the browser can make before sending (the API checks again and words its own refusals):
 * the index of the first empty name, or of the first name used twice (case-insensitive), with a message.
 */
export function checkDraft(draft: DraftStage[]): { index: number; message: string } | null {
  if (draft.length === 0) return { index: -1, message: 'A pipeline needs at least one stage.' };
  const seen = new Map<string, number>();
  for (const [index, stage] of draft.entries()) {
    const name = stage.name.trim();
    if (!name) return { index, message: 'Give this stage a name.' };
    const lower = name.toLowerCase();
    if (seen.has(lower)) return { index, message: `Another stage is already named "${name}".` };
    seen.set(lower, index);
  }
  return null;
}

/** The draft index an API field like `stages.2.name` points at, if any. */
export function stageIndexOf(field: string | undefined): number | undefined {
  const match = /^stages\.(\d+)(\.|$)/.exec(field ?? '');
  return match ? Number(match[1]) : undefined;
}
