import { describe, expect, it } from 'vitest';
import { exportTool, parametersToJsonSchema, strictModeAccepts, TOOL_FORMATS, type ExportedParameter } from './export.js';
import { parameterNameProblems, RESERVED_PARAMETER } from './parameters.js';

const PARAMETERS: ExportedParameter[] = [
  { name: 'city', type: 'string', description: 'City name, e.g. Lisbon', required: true },
  { name: 'days', type: 'number', description: '', required: false },
  { name: 'fields', type: 'array', description: 'Which values', required: false, items: 'string' },
  { name: 'extras', type: 'array', description: '  ', required: true },
];
const TOOL = { name: 'weather_lookup', description: 'Looks up the weather.', parameters: PARAMETERS };
const SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name, e.g. Lisbon' },
    days: { type: 'number' },
    fields: { type: 'array', description: 'Which values', items: { type: 'string' } },
    extras: { type: 'array', items: {} },
  },
  required: ['city', 'extras'],
  additionalProperties: false,
};

/** The one export the service sends agents and the portal previews (web/tools/export.ts). */
describe('exportTool', () => {
  it('gives each API its own shape around the same JSON Schema, in parameter order', () => {
    expect(exportTool(TOOL, 'openai')).toEqual({ type: 'function', function: { name: 'weather_lookup', description: 'Looks up the weather.', parameters: SCHEMA } });
    expect(exportTool(TOOL, 'openai-responses')).toEqual({ type: 'function', name: 'weather_lookup', description: 'Looks up the weather.', parameters: SCHEMA, strict: false });
    expect(exportTool(TOOL, 'anthropic')).toEqual({ name: 'weather_lookup', description: 'Looks up the weather.', input_schema: SCHEMA });
    expect(exportTool(TOOL, 'mcp')).toEqual({ name: 'weather_lookup', description: 'Looks up the weather.', inputSchema: SCHEMA });
    // Byte for byte, key order included: what the preview shows is what JSON.stringify sends.
    expect(JSON.stringify(exportTool(TOOL, 'anthropic'))).toBe(
      '{"name":"weather_lookup","description":"Looks up the weather.","input_schema":{"type":"object","properties":{"city":{"type":"string","description":"City name, e.g. Lisbon"},' +
        '"days":{"type":"number"},"fields":{"type":"array","description":"Which values","items":{"type":"string"}},"extras":{"type":"array","items":{}}},' +
        '"required":["city","extras"],"additionalProperties":false}}',
    );
    expect(Object.keys(parametersToJsonSchema([...PARAMETERS].reverse()).properties)).toEqual(['extras', 'fields', 'days', 'city']);
  });

  it('covers every format the agent-tools route takes', () => {
    expect(TOOL_FORMATS).toEqual(['openai', 'openai-responses', 'anthropic', 'mcp']);
    for (const format of TOOL_FORMATS) expect(JSON.stringify(exportTool({ ...TOOL, parameters: [] }, format))).toContain('"properties":{},"required":[],"additionalProperties":false');
  });

  it('gives the Responses API its flat shape, strict when every parameter is required', () => {
    const required: ExportedParameter[] = [
      { name: 'city', type: 'string', description: 'City name, e.g. Lisbon', required: true },
      { name: 'days', type: 'integer', description: '', required: true },
      { name: 'fields', type: 'array', description: '', required: true, items: 'string' },
    ];
    // Byte for byte: the key order of the Responses API reference, strict last.
    expect(JSON.stringify(exportTool({ ...TOOL, parameters: required }, 'openai-responses'))).toBe(
      '{"type":"function","name":"weather_lookup","description":"Looks up the weather.","parameters":{"type":"object","properties":' +
        '{"city":{"type":"string","description":"City name, e.g. Lisbon"},"days":{"type":"integer"},"fields":{"type":"array","items":{"type":"string"}}},' +
        '"required":["city","days","fields"],"additionalProperties":false},"strict":true}',
    );
    // One optional parameter: strict mode would refuse it (or, listed as required, make the model invent a value).
    const optional = required.map((p) => (p.name === 'days' ? { ...p, required: false } : p));
    expect(JSON.stringify(exportTool({ ...TOOL, parameters: optional }, 'openai-responses'))).toBe(
      '{"type":"function","name":"weather_lookup","description":"Looks up the weather.","parameters":{"type":"object","properties":' +
        '{"city":{"type":"string","description":"City name, e.g. Lisbon"},"days":{"type":"integer"},"fields":{"type":"array","items":{"type":"string"}}},' +
        '"required":["city","fields"],"additionalProperties":false},"strict":false}',
    );
    expect((exportTool({ ...TOOL, parameters: [] }, 'openai-responses') as { strict: boolean }).strict).toBe(true);
  });

  it('says strict only for a schema OpenAI\'s strict mode takes unchanged', () => {
    const all = (parameters: ExportedParameter[]) => strictModeAccepts(parametersToJsonSchema(parameters));
    const p = (type: ExportedParameter['type'], items?: ExportedParameter['items']): ExportedParameter => ({ name: 'x', type, description: '', required: true, items });
    expect(all([p('string'), { ...p('number'), name: 'y' }, { ...p('boolean'), name: 'z' }])).toBe(true);
    expect(all([p('array', 'integer')])).toBe(true);
    expect(all([{ ...p('string'), required: false }])).toBe(false); // not in required
    expect(all([p('array')])).toBe(false); // items: {} has no type
    expect(all([p('array', 'object')])).toBe(false); // an object without properties nor additionalProperties: false
    expect(all([p('object')])).toBe(false);
    // A schema passed in (the service's cached one) is judged as it is: a property missing from required.
    expect(strictModeAccepts({ type: 'object', properties: { a: { type: 'string' } }, required: ['b'], additionalProperties: false })).toBe(false);
  });

  it('uses a schema passed in as is (the service caches one per revision)', () => {
    const cached = parametersToJsonSchema(PARAMETERS);
    expect((exportTool(TOOL, 'mcp', cached) as { inputSchema: unknown }).inputSchema).toBe(cached);
  });
});

describe('parameterNameProblems', () => {
  it('refuses the reserved name and a repeated one, with the API\'s paths and words', () => {
    expect(parameterNameProblems(['city', RESERVED_PARAMETER, 'days', 'city'])).toEqual([
      { path: 'parameters.1.name', message: 'cannot be _svc_context: the service uses that key for call context' },
      { path: 'parameters.3.name', message: 'repeats the parameter name "city"' },
    ]);
  });

  it('checks the pattern only when asked (the API\'s schema says that one itself)', () => {
    expect(parameterNameProblems(['1st', ''])).toEqual([]);
    expect(parameterNameProblems(['1st', '', 'ok_1', 'a'.repeat(65)], { checkPattern: true }).map((p) => p.path)).toEqual(['parameters.0.name', 'parameters.1.name', 'parameters.3.name']);
    expect(parameterNameProblems([''], { checkPattern: true })[0]?.message).toBe('must not be empty');
  });
});
