/**
 * The rules of a tool's parameters that hold wherever they are edited: the API refuses with them
 * (src/tools/definition.ts) and the portal's parameter editor applies them as the developer types,
 * with the same words. Pure: no Node, no DOM.
 */
export const PARAMETER_TYPES = ['string', 'number', 'boolean', 'array'] as const;
export const ITEM_TYPES = ['string', 'number', 'boolean'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];
export type ItemType = (typeof ITEM_TYPES)[number];

export const PARAMETER_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
export const MAX_PARAMETERS = 64;
/** The service adds this key to every call body, so no parameter may use it. */
export const RESERVED_PARAMETER = '_svc_context';

export interface ParameterProblem {
  /** `parameters.2.name`, as the API's validation details name it. */
  path: string;
  message: string;
}

const NAME = new RegExp(PARAMETER_NAME_PATTERN);

/**
 * What the API says of these names beyond its JSON schema: the reserved name, and a name that repeats
 * an earlier one. With `checkPattern`, also a name the schema's pattern refuses (the API's schema
 * says that one itself, in the schema validator's words).
 */
export function parameterNameProblems(names: readonly string[], options: { checkPattern?: boolean } = {}): ParameterProblem[] {
  const problems: ParameterProblem[] = [];
  const seen = new Set<string>();
  names.forEach((name, index) => {
    const path = `parameters.${index}.name`;
    if (options.checkPattern && !NAME.test(name)) {
      problems.push({ path, message: name === '' ? 'must not be empty' : 'must start with a letter or _, then letters, digits or _ (at most 64 characters)' });
    } else if (name === RESERVED_PARAMETER) problems.push({ path, message: `cannot be ${RESERVED_PARAMETER}: the service uses that key for call context` });
    else if (seen.has(name)) problems.push({ path, message: `repeats the parameter name "${name}"` });
    seen.add(name);
  });
  return problems;
}
