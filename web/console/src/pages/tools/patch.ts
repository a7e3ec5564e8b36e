import type { Installation, InstallationPatch } from '../../api/types';

/** The installation settings form: every agent, or the chosen ones; the alias ('' for the tool's own name). */
export interface SettingsDraft {
  allAgents: boolean;
  agentIds: string[];
  alias: string;
}

export function draftOf(installation: Installation): SettingsDraft {
  return { allAgents: installation.allAgents, agentIds: [...installation.agentIds], alias: installation.alias ?? '' };
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((id) => b.includes(id));

/**
 * The PATCH body for what changed, and only that (the API refuses an empty PATCH: null when nothing did).
 * `agentIds: null` goes back to every agent; `alias: null` to the tool's own name.
 */
export function settingsPatch(installation: Installation, draft: SettingsDraft): InstallationPatch | null {
  const patch: InstallationPatch = {};
  if (draft.allAgents !== installation.allAgents || (!draft.allAgents && !sameSet(draft.agentIds, installation.agentIds))) {
    patch.agentIds = draft.allAgents ? null : [...draft.agentIds];
  }
  const alias = draft.alias.trim();
  if (alias !== (installation.alias ?? '')) patch.alias = alias || null;
  return Object.keys(patch).length ? patch : null;
}

/** The agents part of a create body: left out for every agent. */
export function agentsBody(draft: Pick<SettingsDraft, 'allAgents' | 'agentIds'>): { agentIds?: string[] } {
  return draft.allAgents ? {} : { agentIds: [...draft.agentIds] };
}

export const ALIAS_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export function settingsProblems(draft: SettingsDraft): Record<string, string | null> {
  const alias = draft.alias.trim();
  return {
    agentIds: !draft.allAgents && draft.agentIds.length === 0 ? 'Choose at least one agent, or All agents.' : null,
    alias: alias && !ALIAS_PATTERN.test(alias) ? 'Start with a letter, then use letters, digits, _ or -, up to 64 characters.' : null,
  };
}
