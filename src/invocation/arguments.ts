import type { ErrorDetail } from '../http/errors.js';
import { RESERVED_PARAMETER, type ItemType, type ParameterType } from '../tools/definition.js';
import { isPlainObject } from '../lib/json.js';

/**
 * A model's arguments, checked against the parameters of the revision being called,
 * before any request is built; and the same parameters as the JSON Schema that
 * function-calling APIs (OpenAI, Anthropic, MCP) take.
 *
 * Types beyond what a tool can declare today (integer, object) are understood here, so a
 * wider parameter vocabulary needs no change to the invoker.
 */
export type ArgumentType = ParameterType | 'integer' | 'object';
export type ArgumentItemType = ItemType | 'integer' | 'object';

export interface ArgumentParameter {
  name: string;
  type: ArgumentType;
  description: string;
  required: boolean;
  items?: ArgumentItemType;
}

export type ArgumentsCheck =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; details: ErrorDetail[] };

const OWN = Object.prototype.hasOwnProperty;

/** "a string", "an integer": what the model should have sent. */
function expected(type: ArgumentType): string {
  switch (type) {
    case 'string': return 'a string';
    case 'number': return 'a number';
    case 'integer': return 'an integer (a whole number)';
    case 'boolean': return 'a boolean (true or false)';
    case 'array': return 'an array';
    case 'object': return 'an object';
  }
}

/** What the model sent instead, in JSON's own words. */
function described(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string': return 'a string';
    case 'number': return Number.isInteger(value) ? 'an integer' : 'a number with a fraction';
    case 'boolean': return 'a boolean';
    case 'object': return 'an object';
    default: return typeof value;
  }
}

function matches(type: ArgumentType, value: unknown): boolean {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'integer': return typeof value === 'number' && Number.isSafeInteger(value);
    case 'boolean': return typeof value === 'boolean';
    case 'array': return Array.isArray(value);
    case 'object': return isPlainObject(value);
  }
}

function typeProblem(path: string, type: ArgumentType, value: unknown): ErrorDetail {
  if (type === 'integer' && typeof value === 'number' && Number.isInteger(value)) {
    return { path, message: `${path} must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}` };
  }
  return { path, message: `${path} must be ${expected(type)} (got ${described(value)})` };
}

function listNames(parameters: ReadonlyArray<ArgumentParameter>): string {
  return parameters.map((p) => `${p.name} (${p.type}${p.required ? ', required' : ''})`).join(', ');
}

/**
 * Checks `args` (the model's arguments, already parsed from JSON) against the revision's
 * parameters: every problem at once, each message naming the parameter and what to send.
 *
 * - `undefined` and `null` stand for "no arguments" (some clients send nothing for a tool without parameters).
 * - A required parameter must be present and not null.
 * - An optional parameter given as null counts as not given and is left out of the value,
 *   so the endpoint never receives null for a parameter it declared as, say, a string.
 * - Keys that are not parameters are refused, and `_svc_context` always: the service sets it.
 *
 * The value holds exactly the declared parameters that were given, in parameter order.
 */
export function checkArguments(parameters: ReadonlyArray<ArgumentParameter>, args: unknown): ArgumentsCheck {
  if (args === undefined || args === null) args = {};
  if (!isPlainObject(args)) {
    return {
      ok: false,
      details: [{ path: '', message: `the arguments must be a JSON object keyed by parameter name (got ${described(args)})` }],
    };
  }

  const details: ErrorDetail[] = [];
  // No prototype: a parameter could be called __proto__, and that must stay an ordinary key.
  const value = Object.create(null) as Record<string, unknown>;
  const declared = new Set<string>();

  for (const parameter of parameters) {
    declared.add(parameter.name);
    const present = OWN.call(args, parameter.name);
    const given = present ? args[parameter.name] : undefined;
    if (given === undefined || given === null) {
      if (parameter.required) {
        details.push({
          path: parameter.name,
          message: given === null
            ? `${parameter.name} is required and cannot be null; send ${expected(parameter.type)}`
            : `${parameter.name} is required (${expected(parameter.type)})`,
        });
      }
      continue;
    }
    if (!matches(parameter.type, given)) {
      details.push(typeProblem(parameter.name, parameter.type, given));
      continue;
    }
    if (parameter.type === 'array' && parameter.items !== undefined) {
      const items = parameter.items;
      const before = details.length;
      (given as unknown[]).forEach((item, index) => {
        if (!matches(items, item)) details.push(typeProblem(`${parameter.name}[${index}]`, items, item));
      });
      if (details.length - before > 5) {
        // One line per bad element helps little past a handful; say it once.
        details.splice(before, details.length - before, {
          path: parameter.name,
          message: `${parameter.name} must be an array of ${items} values; ${countBad(given as unknown[], items)} of its ${(given as unknown[]).length} elements are not`,
        });
      }
    }
    value[parameter.name] = given;
  }

  for (const key of Object.keys(args)) {
    if (declared.has(key)) continue;
    if (key === RESERVED_PARAMETER) {
      details.push({ path: key, message: `${RESERVED_PARAMETER} is set by the service on every call and cannot be passed as an argument` });
    } else if (parameters.length === 0) {
      details.push({ path: key, message: `${key} is not a parameter of this tool; this tool takes no parameters, so send {}` });
    } else {
      details.push({ path: key, message: `${key} is not a parameter of this tool; the parameters are: ${listNames(parameters)}` });
    }
  }

  return details.length === 0 ? { ok: true, value } : { ok: false, details };
}

function countBad(values: unknown[], type: ArgumentItemType): number {
  return values.filter((item) => !matches(type, item)).length;
}

/** "weightKg is required; country must be a string (got a number)": all details in one sentence for an error message. */
export function summarizeArgumentProblems(details: ReadonlyArray<ErrorDetail>): string {
  return `Invalid arguments: ${details.map((d) => d.message).join('; ')}.`;
}

/** The parameters as the JSON Schema function-calling APIs take: shared with the portal's preview (web/tools/export.ts). */
export { parametersToJsonSchema, type JsonSchemaProperty, type ParametersJsonSchema } from '../../web/tools/export.js';
