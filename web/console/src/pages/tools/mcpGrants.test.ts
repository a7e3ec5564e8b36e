import { describe, expect, it } from 'vitest';
import { mcpUrl } from './mcpGrants';

describe('the MCP URL for hosts', () => {
  it('is the public address and /mcp', () => {
    expect(mcpUrl('https://switchboard.example.com')).toBe('https://switchboard.example.com/mcp');
    expect(mcpUrl('https://switchboard.example.com/')).toBe('https://switchboard.example.com/mcp');
    expect(mcpUrl('http://localhost:3000')).toBe('http://localhost:3000/mcp');
  });
});
