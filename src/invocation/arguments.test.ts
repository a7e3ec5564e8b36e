import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { ToolParameter } from '../tools/definition.js';
import { checkArguments, parametersToJsonSchema, summarizeArgumentProblems, type ArgumentParameter } from './arguments.js';

const PARAMETERS: ToolParameter[] = [
  { name: 'weightKg', type: 'number', description: 'Parcel weight in kilograms', required: true },
  { name: 'country', type: 'string', description: 'ISO 3166 country code', required: true },
  { name: 'express', type: 'boolean', description: '', required: false },
  { name: 'tags', type: 'array', description: 'Labels', required: false, items: 'string' },
  { name: 'extras', type: 'array', description: '', required: false },
];

const WIDER: ArgumentParameter[] = [
  { name: 'count', type: 'integer', description: 'How many', required: true },
  { name: 'address', type: 'object', description: 'Postal address', required: false },
  { name: 'ids', type: 'array', description: '', required: false, items: 'integer' },
];

function problems(parameters: ReadonlyArray<ArgumentParameter>, args: unknown) {
  const result = checkArguments(parameters, args);
  if (result.ok) throw new Error('accepted');
  return result.details;
}

describe('checkArguments', () => {
  it('accepts valid arguments and returns exactly the declared ones, in parameter order', () => {
    const result = checkArguments(PARAMETERS, { tags: ['a', 'b'], country: 'PT', weightKg: 2.5, express: false, extras: [1, 'x', null, { a: 1 }] });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.keys(result.value)).toEqual(['weightKg', 'country', 'express', 'tags', 'extras']);
    expect(JSON.stringify(result.value)).toBe('{"weightKg":2.5,"country":"PT","express":false,"tags":["a","b"],"extras":[1,"x",null,{"a":1}]}');
  });

  it('says which required parameter is missing, and what to send', () => {
    expect(problems(PARAMETERS, { country: 'PT' })).toEqual([{ path: 'weightKg', message: 'weightKg is required (a number)' }]);
    expect(problems(PARAMETERS, {})).toEqual([
      { path: 'weightKg', message: 'weightKg is required (a number)' },
      { path: 'country', message: 'country is required (a string)' },
    ]);
    expect(problems(PARAMETERS, { weightKg: null, country: 'PT' })).toEqual([
      { path: 'weightKg', message: 'weightKg is required and cannot be null; send a number' },
    ]);
  });

  it('drops an optional parameter given as null instead of sending null', () => {
    const result = checkArguments(PARAMETERS, { weightKg: 1, country: 'PT', express: null, tags: null });
    expect(result).toEqual({ ok: true, value: { weightKg: 1, country: 'PT' } });
  });

  it.each([
    ['country', 12, 'country must be a string (got an integer)'],
    ['country', ['PT'], 'country must be a string (got an array)'],
    ['weightKg', '2.5', 'weightKg must be a number (got a string)'],
    ['express', 'yes', 'express must be a boolean (true or false) (got a string)'],
    ['express', 0, 'express must be a boolean (true or false) (got an integer)'],
    ['tags', 'a,b', 'tags must be an array (got a string)'],
    ['tags', { 0: 'a' }, 'tags must be an array (got an object)'],
  ])('refuses %s = %j', (name, given, message) => {
    const args: Record<string, unknown> = { weightKg: 1, country: 'PT', [name]: given };
    expect(problems(PARAMETERS, args)).toEqual([{ path: name, message }]);
  });

  it('checks each array element against items, with the element in the path', () => {
    expect(problems(PARAMETERS, { weightKg: 1, country: 'PT', tags: ['a', 2, 'c', true] })).toEqual([
      { path: 'tags[1]', message: 'tags[1] must be a string (got an integer)' },
      { path: 'tags[3]', message: 'tags[3] must be a string (got a boolean)' },
    ]);
  });

  it('says it once when many elements are wrong', () => {
    expect(problems(PARAMETERS, { weightKg: 1, country: 'PT', tags: [1, 2, 3, 4, 5, 6, 'ok'] })).toEqual([
      { path: 'tags', message: 'tags must be an array of string values; 6 of its 7 elements are not' },
    ]);
  });

  it('understands integer and object parameters and integer items', () => {
    expect(checkArguments(WIDER, { count: 3, address: { city: 'Porto' }, ids: [1, 2] }).ok).toBe(true);
    expect(problems(WIDER, { count: 2.5 })).toEqual([{ path: 'count', message: 'count must be an integer (a whole number) (got a number with a fraction)' }]);
    expect(problems(WIDER, { count: 2 ** 60 })[0]!.message).toMatch(/^count must be an integer between -9007199254740991 and 9007199254740991$/);
    expect(problems(WIDER, { count: 1, address: ['Porto'] })).toEqual([{ path: 'address', message: 'address must be an object (got an array)' }]);
    expect(problems(WIDER, { count: 1, address: 'Porto' })).toEqual([{ path: 'address', message: 'address must be an object (got a string)' }]);
    expect(problems(WIDER, { count: 1, ids: [1, 1.5] })).toEqual([{ path: 'ids[1]', message: 'ids[1] must be an integer (a whole number) (got a number with a fraction)' }]);
  });

  it('refuses keys that are not parameters, listing the parameters', () => {
    expect(problems(PARAMETERS, { weightKg: 1, country: 'PT', colour: 'red' })).toEqual([
      {
        path: 'colour',
        message: 'colour is not a parameter of this tool; the parameters are: weightKg (number, required), country (string, required), express (boolean), tags (array), extras (array)',
      },
    ]);
    expect(problems([], { colour: 'red' })).toEqual([
      { path: 'colour', message: 'colour is not a parameter of this tool; this tool takes no parameters, so send {}' },
    ]);
  });

  it('never accepts _svc_context from the caller', () => {
    expect(problems(PARAMETERS, { weightKg: 1, country: 'PT', _svc_context: { orgId: 'org_forged' } })).toEqual([
      { path: '_svc_context', message: '_svc_context is set by the service on every call and cannot be passed as an argument' },
    ]);
    expect(problems([], { _svc_context: null })[0]!.path).toBe('_svc_context');
  });

  it('reports every problem at once', () => {
    const details = problems(PARAMETERS, { country: 7, colour: 'red', tags: [1] });
    expect(details.map((d) => d.path)).toEqual(['weightKg', 'country', 'tags[0]', 'colour']);
    expect(summarizeArgumentProblems(details)).toMatch(/^Invalid arguments: weightKg is required \(a number\); country must be a string \(got an integer\); .+\.$/);
  });

  it('takes no arguments as an empty object, and refuses anything that is not an object', () => {
    expect(checkArguments([], undefined)).toEqual({ ok: true, value: {} });
    expect(checkArguments([], null)).toEqual({ ok: true, value: {} });
    expect(checkArguments([{ name: 'q', type: 'string', description: '', required: false }], {})).toEqual({ ok: true, value: {} });
    expect(problems(PARAMETERS, '{"weightKg":1}')).toEqual([
      { path: '', message: 'the arguments must be a JSON object keyed by parameter name (got a string)' },
    ]);
    expect(problems(PARAMETERS, [1, 'PT'])[0]!.message).toMatch(/got an array/);
  });

  it('treats __proto__ and inherited names as ordinary keys', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "country": "PT", "weightKg": 1}') as unknown;
    expect(problems(PARAMETERS, parsed)).toEqual([expect.objectContaining({ path: '__proto__' })]);
    // An inherited property is not a given argument.
    expect(problems(PARAMETERS, Object.create({ weightKg: 1, country: 'PT' }))).toHaveLength(2);

    const proto: ArgumentParameter[] = [{ name: '__proto__', type: 'object', description: '', required: true }];
    const result = checkArguments(proto, JSON.parse('{"__proto__": {"a": 1}}'));
    expect(result.ok).toBe(true);
    if (result.ok) expect(JSON.stringify(result.value)).toBe('{"__proto__":{"a":1}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parametersToJsonSchema', () => {
  it('gives an object schema with descriptions, required names and no additional properties', () => {
    expect(parametersToJsonSchema(PARAMETERS)).toEqual({
      type: 'object',
      properties: {
        weightKg: { type: 'number', description: 'Parcel weight in kilograms' },
        country: { type: 'string', description: 'ISO 3166 country code' },
        express: { type: 'boolean' },
        tags: { type: 'array', description: 'Labels', items: { type: 'string' } },
        extras: { type: 'array', items: {} },
      },
      required: ['weightKg', 'country'],
      additionalProperties: false,
    });
  });

  it('handles no parameters and the wider types', () => {
    expect(parametersToJsonSchema([])).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: false });
    expect(parametersToJsonSchema(WIDER).properties).toEqual({
      count: { type: 'integer', description: 'How many' },
      address: { type: 'object', description: 'Postal address' },
      ids: { type: 'array', items: { type: 'integer' } },
    });
  });

  it('is plain JSON, and a parameter called __proto__ stays a property', () => {
    const schema = parametersToJsonSchema([{ name: '__proto__', type: 'string', description: 'odd', required: true }]);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","description":"odd"}},"required":["__proto__"],"additionalProperties":false}'));
    expect(Object.getPrototypeOf(schema.properties)).toBe(Object.prototype);
  });

  it('accepts what it describes and refuses what it does not, the same way checkArguments does', () => {
    const validate = new Ajv({ strict: false }).compile(parametersToJsonSchema(PARAMETERS));
    const cases: unknown[] = [
      { weightKg: 1, country: 'PT' },
      { weightKg: 1, country: 'PT', tags: ['x'], extras: [1, {}] },
      { weightKg: '1', country: 'PT' },
      { country: 'PT' },
      { weightKg: 1, country: 'PT', colour: 'red' },
      { weightKg: 1, country: 'PT', tags: [1] },
    ];
    for (const args of cases) expect(validate(args)).toBe(checkArguments(PARAMETERS, args).ok);
  });
});
