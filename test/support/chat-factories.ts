import { expect } from 'vitest';
import type { TestContext } from './context.js';
import { conversationWithTool } from './conversation-factories.js';
import { nextClientIp } from './form-factories.js';
import { orgCaller, type OrgWithKey } from './org-factories.js';
import type { ScriptedModel } from './scripted-model.js';

/** Test helpers for the chat widget's public side (src/chat/): a visitor's browser, as the widget would call. */

/** The site the test chats are embedded on. */
export const SITE = 'https://shop.example.com';

/**
 * An agent with a model on the scripted server and the tool installed (conversation-factories.ts), its chat on
 * for SITE (and whatever `chat` adds).
 */
export async function widgetAgent(t: TestContext, model: ScriptedModel, who: OrgWithKey, toolId: string, chat: Record<string, unknown> = {}) {
  const { agentId, toolName } = await conversationWithTool(t, model, who, toolId);
  const set = await orgCaller(t.app)('PATCH', `/api/org/agents/${agentId}`, who, { chat: { enabled: true, allowedOrigins: [SITE], welcomeMessage: 'Hi! Ask me about shipping.', ...chat } });
  expect(set.statusCode, set.body).toBe(200);
  return { agentId, toolName, chatId: set.json().data.chat.chatId as string };
}

export interface VisitorRequest {
  /** Default SITE; null sends no Origin. */
  origin?: string | null;
  token?: string;
  payload?: unknown;
  /** Default: a fresh address, so the per-address limits never couple two requests. */
  ip?: string;
  headers?: Record<string, string>;
}

/** A request to `/api/public/chats{path}` as a visitor's browser on `origin` sends it. */
export function visitor(t: TestContext, method: 'GET' | 'POST' | 'OPTIONS', path: string, request: VisitorRequest = {}) {
  const origin = request.origin === undefined ? SITE : request.origin;
  return t.app.inject({
    method,
    url: `/api/public/chats${path}`,
    remoteAddress: request.ip ?? nextClientIp(),
    headers: {
      ...(origin === null ? {} : { origin }),
      ...(request.token === undefined ? {} : { authorization: `Bearer ${request.token}` }),
      ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...request.headers,
    },
    ...(request.payload === undefined ? {} : { payload: typeof request.payload === 'string' ? request.payload : JSON.stringify(request.payload) }),
  });
}

/** A new visitor session's token. */
export async function startSession(t: TestContext, chatId: string, body: unknown = {}): Promise<string> {
  const res = await visitor(t, 'POST', `/${chatId}/sessions`, { payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.token as string;
}

export type VisitorEvent = { type: string; data: Record<string, any> };

/** The widget's Server-Sent Events: `event: <type>` and `data: <JSON>` each. */
export function visitorEvents(body: string): VisitorEvent[] {
  return body.split('\n\n').filter((block) => block.trim() !== '').map((block) => ({
    type: /^event: (.+)$/m.exec(block)![1]!,
    data: JSON.parse(/^data: (.+)$/m.exec(block)![1]!) as Record<string, any>,
  }));
}

/** POST a visitor's message. */
export function sendVisitorMessage(t: TestContext, chatId: string, token: string, content: unknown, request: VisitorRequest = {}) {
  return visitor(t, 'POST', `/${chatId}/session/messages`, { token, payload: { content }, ...request });
}
