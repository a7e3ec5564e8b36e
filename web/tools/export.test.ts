import { describe, expect, it } from 'vitest';
import { exportTool, parametersToJsonSchema, TOOL_FORMATS, type ExportedParameter } from './export.js';
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
    expect(TOOL_FORMATS).toEqual(['openai', 'anthropic', 'mcp']);
    for (const format of TOOL_FORMATS) expect(JSON.stringify(exportTool({ ...TOOL, parameters: [] }, format))).toContain('"properties":{},"required":[],"additionalProperties":false');
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
