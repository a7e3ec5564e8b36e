import type { AgentTool } from './agent-tools.js';
import { parametersToJsonSchema, type ParametersJsonSchema } from './arguments.js';
import type { ToolFormat } from './schema.js';

type OpenAiTool = { type: 'function'; function: { name: string; description: string; parameters: ParametersJsonSchema } };
type AnthropicTool = { name: string; description: string; input_schema: ParametersJsonSchema };
type McpTool = { name: string; description: string; inputSchema: ParametersJsonSchema };

/** Function-calling definitions in the shape each API takes verbatim; the name is the alias or the tool's name. */
export function formatTools(tools: readonly AgentTool[], format: ToolFormat): Array<OpenAiTool | AnthropicTool | McpTool> {
  return tools.map((tool) => {
    const name = tool.name;
    const description = tool.live.definition.description;
    const schema = parametersToJsonSchema(tool.live.definition.parameters);
    switch (format) {
      case 'openai': return { type: 'function', function: { name, description, parameters: schema } };
      case 'anthropic': return { name, description, input_schema: schema };
      case 'mcp': return { name, description, inputSchema: schema };
    }
  });
}
