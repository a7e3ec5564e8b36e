import { describe, expect, it } from 'vitest';
import { checkArguments } from './arguments.js';
import { requestBody } from './invoker.js';

const context = { agentId: 'agt_1', orgId: 'org_1', timestamp: '2026-11-27T04:00:00.000Z', callId: 'call_1', toolId: 'tool_1' };

describe('the request body an endpoint receives', () => {
  it('is the checked arguments in parameter order, then _svc_context', () => {
    const checked = checkArguments([
      { name: 'weightKg', type: 'number', description: '', required: true },
      { name: 'country', type: 'string', description: '', required: true },
    ], { country: 'PT', weightKg: 2.5 });
    if (!checked.ok) throw new Error('arguments refused');
    const text = requestBody(checked.value, context).toString('utf8');
    expect(text).toBe('{"weightKg":2.5,"country":"PT","_svc_context":{"agentId":"agt_1","orgId":"org_1","timestamp":"2026-11-27T04:00:00.000Z","callId":"call_1","toolId":"tool_1"}}');
  });

  it('is only _svc_context for a tool without arguments', () => {
    expect(JSON.parse(requestBody(Object.create(null) as Record<string, unknown>, context).toString('utf8'))).toEqual({ _svc_context: context });
  });

  it('keeps a parameter called __proto__ an ordinary key, and text as UTF-8', () => {
    const checked = checkArguments([
      { name: '__proto__', type: 'string', description: '', required: true },
      { name: 'note', type: 'string', description: '', required: false },
    ], JSON.parse('{"__proto__": "x", "note": "café \\u2028 \\"quoted\\""}'));
    if (!checked.ok) throw new Error('arguments refused');
    const body = requestBody(checked.value, context);
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['__proto__', 'note', '_svc_context']);
    expect(parsed.note).toBe('café \u2028 "quoted"');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });
});
