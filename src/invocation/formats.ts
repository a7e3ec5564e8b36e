import { exportTool, type ExportedToolOf } from '../../web/tools/export.js';
import type { AgentTool } from './agent-tools.js';
import type { ToolFormat } from './schema.js';

/**
 * Function-calling definitions in the shape each API takes verbatim; the name is the alias or the tool's name.
 * The shapes live in web/tools/export.ts, shared with the developer portal's preview.
 */
export function formatTools<F extends ToolFormat>(tools: readonly AgentTool[], format: F): ExportedToolOf<F>[] {
  return tools.map((tool) => exportTool({ name: tool.name, description: tool.live.definition.description, parameters: tool.live.definition.parameters }, format));
}
