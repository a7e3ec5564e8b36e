import { useQuery, type QueryClient } from '@tanstack/react-query';
import { fetchAll, queryKeys } from '../../api/lists';
import type { ModelProvider, ModelProviderKind } from '../../api/types';
import { limitKeys } from '../../lib/limits';

/** The model providers page and the agent page's Model section: what they share. */

export const MODEL_PROVIDERS_PATH = '/settings/model-providers';

export const modelKeys = {
  providers: ['model-providers'] as const,
};

export function useModelProviders() {
  return useQuery({ queryKey: modelKeys.providers, queryFn: () => fetchAll<ModelProvider>('/api/org/model-providers') });
}

/** After a provider or an agent's model changes: the providers list, the agents (their "Used by") and the limits (how many providers). */
export async function afterModelChange(client: QueryClient): Promise<void> {
  await Promise.all([
    client.invalidateQueries({ queryKey: modelKeys.providers }),
    client.invalidateQueries({ queryKey: queryKeys.agents, exact: true }),
    client.invalidateQueries({ queryKey: limitKeys.all }),
  ]);
}

export const KINDS: { kind: ModelProviderKind; label: string }[] = [
  { kind: 'openai', label: 'OpenAI' },
  { kind: 'anthropic', label: 'Anthropic' },
  { kind: 'openai-compatible', label: 'OpenAI-compatible (Chat Completions)' },
];

export const kindLabel = (kind: ModelProviderKind) => KINDS.find((k) => k.kind === kind)?.label ?? kind;

/** The server's defaults (docs/operator-api.md, Model providers); openai-compatible has none. */
export const DEFAULT_BASE_URLS: Record<ModelProviderKind, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  'openai-compatible': '',
};

/** A base URL as the server stores it: trimmed, without a trailing slash. */
export const normalUrl = (url: string) => url.trim().replace(/\/+$/, '');

/**
 * The base URL field after the kind changes: a default (or nothing) follows the new kind's default;
 * an address the operator typed stays.
 */
export function baseUrlForKind(current: string, kind: ModelProviderKind): string {
  const url = normalUrl(current);
  return url === '' || Object.values(DEFAULT_BASE_URLS).includes(url) ? DEFAULT_BASE_URLS[kind] : current;
}

export interface ProviderDraft {
  name: string;
  kind: ModelProviderKind;
  baseUrl: string;
  apiKey: string;
}

/** The checks made before sending (the server makes them again, and more: the address policy). */
export function providerProblems(draft: ProviderDraft, keyRequired: boolean): Record<string, string | null> {
  const url = draft.baseUrl.trim();
  let baseUrl: string | null = null;
  if (!url) baseUrl = draft.kind === 'openai-compatible' ? 'Enter the server’s base URL, like https://openrouter.ai/api/v1.' : null;
  else {
    try {
      if (!['https:', 'http:'].includes(new URL(url).protocol)) baseUrl = 'Use an address starting with https://.';
    } catch {
      baseUrl = 'Use a full address starting with https://.';
    }
  }
  return {
    name: draft.name.trim() ? null : 'Give the provider a name, like “OpenAI (production)”.',
    baseUrl,
    apiKey: /\s/.test(draft.apiKey)
      ? 'An API key has no spaces. Paste it again.'
      : keyRequired && !draft.apiKey
        ? 'A new base URL needs the key again: enter it, or remove the key.'
        : null,
  };
}

/** Agents whose model uses this provider, by name. */
export function agentsUsing<T extends { name: string; model: { providerId: string } | null }>(agents: T[] | undefined, providerId: string): T[] {
  return (agents ?? []).filter((agent) => agent.model?.providerId === providerId);
}
