import { expect } from 'vitest';
import type { TestContext } from './context.js';
import { developerSession } from './factories.js';
import type { HttpsEndpoint } from './https-endpoint.js';
import { createAgent, install } from './invocation-factories.js';
import { orgCaller, type OrgWithKey } from './org-factories.js';
import type { ScriptedModel } from './scripted-model.js';
import { createTool, publishTool } from './tools-factories.js';

/** A provider key the tests look for in answers and logs. */
export const MODEL_KEY = 'sk-proj-conversation-limits-key-7d41';

type Event = { type: string; [field: string]: any };

/** The Server-Sent Events of a streamed answer, parsed, checking each event's name is its data's type. */
export function sseEvents(body: string): Event[] {
  return body.split('\n\n').filter((block) => block.trim() !== '').map((block) => {
    const name = /^event: (.+)$/m.exec(block)?.[1];
    const data = JSON.parse(/^data: (.+)$/m.exec(block)![1]!) as Event;
    expect(data.type).toBe(name);
    return data;
  });
}

/** A published tool whose endpoint is `endpoint` (path /quote), by a developer of its own. */
export async function publishedTool(t: TestContext, endpoint: HttpsEndpoint): Promise<{ id: string }> {
  const dev = await developerSession(t.database, t.clock, t.app);
  return publishTool(t.app, dev.auth, (await createTool(t.app, dev.auth, { endpoint: `https://tool.test:${endpoint.port}/quote` })).id);
}

/**
 * The org's installation of the tool (its name is what the model calls) and an agent with a model on the
 * scripted server, then a conversation with it.
 */
export async function conversationWithTool(t: TestContext, model: ScriptedModel, who: OrgWithKey, toolId: string, options: { kind?: string } = {}) {
  const call = orgCaller(t.app);
  const installed = await call('GET', '/api/org/installations?limit=100', who);
  const existing = (installed.json().data.items as Array<{ name: string; toolId: string }>).find((i) => i.toolId === toolId);
  const toolName = existing?.name ?? (await install(t.app, who, { toolId })).name;
  const agent = await createAgent(t.app, who);
  const provider = await call('POST', '/api/org/model-providers', who, { name: 'Scripted', kind: options.kind ?? 'openai', baseUrl: model.baseUrl, apiKey: MODEL_KEY });
  expect(provider.statusCode, provider.body).toBe(201);
  const set = await call('PATCH', `/api/org/agents/${agent.id}`, who, { model: { providerId: provider.json().data.id, model: 'scripted-model', instructions: 'You quote shipping prices.' } });
  expect(set.statusCode, set.body).toBe(200);
  const created = await call('POST', `/api/org/agents/${agent.id}/conversations`, who);
  expect(created.statusCode, created.body).toBe(201);
  return { id: created.json().data.id as string, agentId: agent.id, toolName };
}

/** POST a message; `stream` asks for Server-Sent Events. */
export function sendMessage(t: TestContext, id: string, content: string, who: OrgWithKey, stream = false) {
  return t.app.inject({ method: 'POST', url: `/api/org/conversations/${id}/messages`, headers: { ...who.auth, ...(stream ? { accept: 'text/event-stream' } : {}) }, payload: { content } });
}
