/**
 * A tool as each model API receives it: its parameters as a JSON Schema, wrapped in the shape
 * OpenAI (Chat Completions and Responses), Anthropic and MCP each take verbatim. Each shape is held
 * against the official SDK's type by export.sdk-types.test.ts (npm run typecheck fails if one drifts). Pure (no Node, no DOM): the service's agent-tools
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

// Type aliases, not interfaces: only an alias is assignable to the SDKs' index-signature types (`{[key: string]: unknown}`, MCP's JSON object).
export type JsonSchemaProperty = {
  type: ExportedType;
  description?: string;
  items?: { type: ExportedItemType } | Record<string, never>;
};

export type ParametersJsonSchema = {
  type: 'object';
  properties: Record<string, JsonSchemaProperty>;
  required: string[];
  additionalProperties: false;
};

/** `openai` is Chat Completions' nested shape; `openai-responses` is the Responses API's flat one (it does not take the other). */
export const TOOL_FORMATS = ['openai', 'openai-responses', 'anthropic', 'mcp'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/** OpenAI Chat Completions `tools[]` item. */
export type OpenAiTool = { type: 'function'; function: { name: string; description: string; parameters: ParametersJsonSchema } };
/** OpenAI Responses API `tools[]` item (a function tool). */
export type OpenAiResponsesTool = { type: 'function'; name: string; description: string; parameters: ParametersJsonSchema; strict: boolean };
/** Anthropic Messages API `tools[]` item. */
export type AnthropicTool = { name: string; description: string; input_schema: ParametersJsonSchema };
/** MCP `tools/list` result item. */
export type McpTool = { name: string; description: string; inputSchema: ParametersJsonSchema };
export type ExportedTools = { openai: OpenAiTool; 'openai-responses': OpenAiResponsesTool; anthropic: AnthropicTool; mcp: McpTool };
export type ExportedToolOf<F extends ToolFormat> = ExportedTools[F];
export type ExportedTool = ExportedTools[ToolFormat];

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

/**
 * Whether OpenAI's strict mode takes this schema as it is. Strict mode (Structured Outputs) holds the model's
 * arguments to the schema, but only for a subset of JSON Schema: every property listed in `required`,
 * `additionalProperties: false` on every object, and a `type` on every subschema. An optional parameter is left
 * out of `required` (listing it would make the model invent a value for it every time), an array without
 * declared items gets `items: {}`, and an `object` parameter declares no properties of its own: with any of
 * those, OpenAI refuses `strict: true` with a 400 for the whole request. The Responses API treats an omitted
 * `strict` as true, so the export always says which.
 */
export function strictModeAccepts(schema: ParametersJsonSchema): boolean {
  const names = Object.keys(schema.properties);
  if (names.length !== schema.required.length || !names.every((name) => schema.required.includes(name))) return false;
  return Object.values(schema.properties).every((property) => {
    if (property.type === 'object') return false;
    if (property.type !== 'array') return true;
    const itemType = property.items !== undefined && 'type' in property.items ? property.items.type : undefined;
    return itemType !== undefined && itemType !== 'object';
  });
}

const SHAPES: { [F in ToolFormat]: (name: string, description: string, schema: ParametersJsonSchema) => ExportedTools[F] } = {
  openai: (name, description, schema) => ({ type: 'function', function: { name, description, parameters: schema } }),
  'openai-responses': (name, description, schema) => ({ type: 'function', name, description, parameters: schema, strict: strictModeAccepts(schema) }),
  anthropic: (name, description, schema) => ({ name, description, input_schema: schema }),
  mcp: (name, description, schema) => ({ name, description, inputSchema: schema }),
};

/** One tool's function-calling definition in `format`'s shape; `name` is the alias or the tool's name. */
export function exportTool<F extends ToolFormat>(
  tool: { name: string; description: string; parameters: ReadonlyArray<ExportedParameter> },
  format: F,
  // Callers that cache the schema per revision pass it in; otherwise it is built here.
  schema: ParametersJsonSchema = parametersToJsonSchema(tool.parameters),
): ExportedToolOf<F> {
  return SHAPES[format](tool.name, tool.description, schema);
}
