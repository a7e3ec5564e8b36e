import { exportTool, type ExportedTool } from '../../web/tools/export.js';
import type { AgentTool } from './agent-tools.js';
import type { ToolFormat } from './schema.js';

/**
 * Function-calling definitions in the shape each API takes verbatim; the name is the alias or the tool's name.
 * The shapes live in web/tools/export.ts, shared with the developer portal's preview.
 */
export function formatTools(tools: readonly AgentTool[], format: ToolFormat): ExportedTool[] {
  return tools.map((tool) => exportTool({ name: tool.name, description: tool.live.definition.description, parameters: tool.live.definition.parameters }, format));
}
