/**
 * A tool as each model API receives it: its parameters as a JSON Schema, wrapped in the shape
 * OpenAI, Anthropic and MCP each take verbatim. Pure (no Node, no DOM): the service's agent-tools
 * export (src/invocation/formats.ts) and the developer portal's live preview both call it, so what a
 * developer sees while editing is byte for byte what an agent is sent.
 *
 * Types beyond what a tool can declare today (integer, object) are understood here, so a wider
 * parameter vocabulary needs no change to the exports.
 */
export type ExportedType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
export type ExportedItemType = Exclude<ExportedType, 'array'>;

/** What the export reads of a parameter. */
export interface ExportedParameter {
  name: string;
  type: ExportedType;
  description: string;
  required: boolean;
  items?: ExportedItemType | undefined;
}

export interface JsonSchemaProperty {
  type: ExportedType;
  description?: string;
  items?: { type: ExportedItemType } | Record<string, never>;
}

export interface ParametersJsonSchema {
  type: 'object';
  properties: Record<string, JsonSchemaProperty>;
  required: string[];
  additionalProperties: false;
}

export const TOOL_FORMATS = ['openai', 'anthropic', 'mcp'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export type OpenAiTool = { type: 'function'; function: { name: string; description: string; parameters: ParametersJsonSchema } };
export type AnthropicTool = { name: string; description: string; input_schema: ParametersJsonSchema };
export type McpTool = { name: string; description: string; inputSchema: ParametersJsonSchema };
export type ExportedTool = OpenAiTool | AnthropicTool | McpTool;

/**
 * The parameters as a JSON Schema (draft 2020-12 subset every function-calling API
 * accepts): `{type: 'object', properties, required, additionalProperties: false}`. An array
 * without declared items gets `items: {}` (any value), since some APIs refuse an array
 * schema without `items`. Pure: callers cache it per revision.
 */
export function parametersToJsonSchema(parameters: ReadonlyArray<ExportedParameter>): ParametersJsonSchema {
  const properties: Record<string, JsonSchemaProperty> = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    const property: JsonSchemaProperty = { type: parameter.type };
    if (parameter.description.trim() !== '') property.description = parameter.description;
    if (parameter.type === 'array') property.items = parameter.items !== undefined ? { type: parameter.items } : {};
    // defineProperty: a parameter called __proto__ must become a property, not a prototype.
    Object.defineProperty(properties, parameter.name, { value: property, enumerable: true, writable: true, configurable: true });
    if (parameter.required) required.push(parameter.name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** One tool's function-calling definition in `format`'s shape; `name` is the alias or the tool's name. */
export function exportTool(
  tool: { name: string; description: string; parameters: ReadonlyArray<ExportedParameter> },
  format: ToolFormat,
  // Callers that cache the schema per revision pass it in; otherwise it is built here.
  schema: ParametersJsonSchema = parametersToJsonSchema(tool.parameters),
): ExportedTool {
  const { name, description } = tool;
  switch (format) {
    case 'openai': return { type: 'function', function: { name, description, parameters: schema } };
    case 'anthropic': return { name, description, input_schema: schema };
    case 'mcp': return { name, description, inputSchema: schema };
  }
}
