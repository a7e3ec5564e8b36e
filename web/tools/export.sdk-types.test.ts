/**
 * Each export against the official SDK's own type for that API's `tools`, so a shape that drifts from what
 * the API takes fails `npm run typecheck` (tsc -p web/tsconfig.test.json compiles this file), not a customer's
 * request. The expectTypeOf lines are checked by the compiler only; the MCP one is checked at run time too,
 * against the MCP SDK's schema of a Tool.
 */
import type { Tool as AnthropicSdkTool, MessageCreateParams } from '@anthropic-ai/sdk/resources/messages';
import { isSpecType, type ListToolsResult, type Tool as McpSdkTool } from '@modelcontextprotocol/server';
import type { ChatCompletionCreateParams, ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { FunctionTool as ResponsesFunctionTool, ResponseCreateParams } from 'openai/resources/responses/responses';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { exportTool, TOOL_FORMATS, type AnthropicTool, type ExportedParameter, type McpTool, type OpenAiResponsesTool, type OpenAiTool } from './export.js';

const PARAMETERS: ExportedParameter[] = [
  { name: 'city', type: 'string', description: 'City name.', required: true },
  { name: 'days', type: 'integer', description: '', required: false },
  { name: 'fields', type: 'array', description: 'Which values', required: false, items: 'string' },
];
const TOOL = { name: 'weather_lookup', description: 'Looks up the weather.', parameters: PARAMETERS };

describe('the exports, held against the official SDKs\' types', () => {
  it('openai fits OpenAI Chat Completions `tools`, and not the Responses API\'s', () => {
    expectTypeOf<OpenAiTool>().toExtend<ChatCompletionFunctionTool>();
    const tools: ChatCompletionCreateParams['tools'] = [exportTool(TOOL, 'openai')];
    // The nested Chat Completions shape is not a Responses function tool (the docs once said it was).
    expectTypeOf<OpenAiTool>().not.toExtend<ResponsesFunctionTool>();
    expectTypeOf<OpenAiTool>().not.toExtend<NonNullable<ResponseCreateParams['tools']>[number]>();
    expect(tools).toHaveLength(1);
  });

  it('openai-responses fits OpenAI Responses `tools`', () => {
    expectTypeOf<OpenAiResponsesTool>().toExtend<ResponsesFunctionTool>();
    const tools: ResponseCreateParams['tools'] = [exportTool(TOOL, 'openai-responses')];
    expect(tools).toHaveLength(1);
  });

  it('anthropic fits Anthropic Messages `tools`', () => {
    expectTypeOf<AnthropicTool>().toExtend<AnthropicSdkTool>();
    const tools: MessageCreateParams['tools'] = [exportTool(TOOL, 'anthropic')];
    expect(tools).toHaveLength(1);
  });

  it('mcp fits MCP `tools/list`, by type and by the SDK\'s own schema', () => {
    expectTypeOf<McpTool>().toExtend<McpSdkTool>();
    const tools: ListToolsResult['tools'] = [exportTool(TOOL, 'mcp'), exportTool({ ...TOOL, parameters: [] }, 'mcp')];
    for (const tool of tools) expect(isSpecType.Tool(tool)).toBe(true);
  });

  it('covers every format', () => {
    // A new format must get its own SDK check above before this list is updated.
    expect(TOOL_FORMATS).toEqual(['openai', 'openai-responses', 'anthropic', 'mcp']);
  });
});
