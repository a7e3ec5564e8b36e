import type { ToolParameter } from '../../api/types';

export type ParsedArguments = { ok: true; value: Record<string, unknown> | undefined } | { ok: false; message: string };

/** The Test call's arguments box: empty for none, else a JSON object keyed by parameter name. */
export function parseArguments(text: string): ParsedArguments {
  if (!text.trim()) return { ok: true, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `This is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'Write a JSON object, like {"name": "value"}.' };
  return { ok: true, value: value as Record<string, unknown> };
}

const SAMPLE: Record<ToolParameter['type'], unknown> = { string: '', number: 0, boolean: false, array: [] };

/** A starting point for the arguments: each required parameter with an empty value of its type. */
export function sampleArguments(parameters: ToolParameter[]): string {
  const required = parameters.filter((p) => p.required);
  if (!required.length) return '{}';
  return JSON.stringify(Object.fromEntries(required.map((p) => [p.name, SAMPLE[p.type]])), null, 2);
}
