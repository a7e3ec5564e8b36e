import type { DeveloperTool } from '../../../api/types';
import type { Checks } from '../../../lib/errors';
import type { ExportedParameter } from '../../../../../tools/export';
import { MAX_PARAMETERS, parameterNameProblems, type ItemType, type ParameterType } from '../../../../../tools/parameters';

/**
 * The tool editor's state and what it sends: the Developer API's tool definition (docs/developer-api.md,
 * "Tools") as the form holds it, its checks before sending (the API's own parameter-name rules, from
 * web/tools/parameters.ts), and the body of POST /api/dev/tools or PUT /api/dev/tools/{id}.
 */

export const TOOL_METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'] as const satisfies readonly DeveloperTool['method'][];

export interface ParameterDraft {
  /** Stable across renames and moves: React's key, and how a moved row finds its buttons again. */
  key: string;
  name: string;
  type: ParameterType;
  description: string;
  required: boolean;
  /** For arrays: the item type, or '' for any value. */
  items: ItemType | '';
}

export interface ToolDraft {
  name: string;
  description: string;
  endpoint: string;
  method: DeveloperTool['method'];
  authType: DeveloperTool['authType'];
  apiKeyHeader: string;
  category: DeveloperTool['category'];
  parameters: ParameterDraft[];
}

let lastKey = 0;
export const newKey = () => `p${++lastKey}`;

export const blankParameter = (): ParameterDraft => ({ key: newKey(), name: '', type: 'string', description: '', required: false, items: '' });

export const blankDraft = (): ToolDraft => ({
  name: '', description: '', endpoint: '', method: 'POST', authType: 'none', apiKeyHeader: '', category: 'other', parameters: [],
});

export function draftOf(tool: DeveloperTool): ToolDraft {
  return {
    name: tool.name,
    description: tool.description,
    endpoint: tool.endpoint,
    method: tool.method,
    authType: tool.authType,
    apiKeyHeader: tool.apiKeyHeader ?? '',
    category: tool.category,
    parameters: tool.parameters.map((p) => ({ key: newKey(), name: p.name, type: p.type, description: p.description, required: p.required, items: p.items ?? '' })),
  };
}

/** The draft without its row keys: what "unsaved changes" compares. */
export function comparable(draft: ToolDraft): string {
  return JSON.stringify({ ...draft, parameters: draft.parameters.map(({ key: _key, ...rest }) => rest) });
}

/** The parameters as the API stores them (and the export reads them). */
export function parametersOf(draft: ToolDraft): ExportedParameter[] & Array<{ items?: ItemType }> {
  return draft.parameters.map((p) => ({
    name: p.name.trim(),
    type: p.type,
    description: p.description,
    required: p.required,
    ...(p.type === 'array' && p.items !== '' ? { items: p.items } : {}),
  }));
}

/** The create or full-update body: every field, so the working copy becomes exactly the form. */
export function toolBody(draft: ToolDraft) {
  return {
    name: draft.name.trim(),
    description: draft.description.trim(),
    endpoint: draft.endpoint.trim(),
    method: draft.method,
    authType: draft.authType,
    // Only api_key has a header; sending null elsewhere clears one left from an earlier auth type.
    apiKeyHeader: draft.authType === 'api_key' && draft.apiKeyHeader.trim() ? draft.apiKeyHeader.trim() : null,
    category: draft.category,
    parameters: parametersOf(draft),
  };
}

/** Problems of the parameter names as typed: the API's rules, with its words. Empty names are left to `checks`. */
export function nameProblemsAsTyped(draft: ToolDraft): Record<string, string> {
  const names = draft.parameters.map((p) => p.name.trim());
  const out: Record<string, string> = {};
  for (const problem of parameterNameProblems(names, { checkPattern: true })) {
    const index = Number(problem.path.split('.')[1]);
    if (names[index] === '') continue;
    out[problem.path] = `The name ${problem.message}.`;
  }
  return out;
}

/** Everything checked before sending, by the API's field names. */
export function checks(draft: ToolDraft): Checks {
  const out: Checks = {
    name: draft.name.trim() ? null : 'Give the tool a name, like get_weather.',
    description: draft.description.trim() ? null : 'Say what the tool does: the model reads it to decide when to call the tool.',
    endpoint: draft.endpoint.trim() ? null : 'Enter the https:// address the service calls.',
    parameters: draft.parameters.length > MAX_PARAMETERS ? `A tool takes at most ${MAX_PARAMETERS} parameters.` : null,
  };
  draft.parameters.forEach((p, index) => {
    if (!p.name.trim()) out[`parameters.${index}.name`] = 'Give the parameter a name, or remove it.';
  });
  return { ...out, ...nameProblemsAsTyped(draft) };
}

/** Moves the item at `from` by `by` places; the same array when it would leave the list. */
export function moved<T>(items: readonly T[], from: number, by: -1 | 1): T[] {
  const to = from + by;
  if (to < 0 || to >= items.length) return [...items];
  const next = [...items];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item as T);
  return next;
}

/** The field names the API's refusals may name, for useFormErrors. */
export function errorFields(draft: ToolDraft): string[] {
  const fields = ['name', 'description', 'endpoint', 'method', 'authType', 'apiKeyHeader', 'category', 'parameters'];
  draft.parameters.forEach((_, i) => fields.push(`parameters.${i}.name`, `parameters.${i}.type`, `parameters.${i}.description`, `parameters.${i}.items`));
  return fields;
}
