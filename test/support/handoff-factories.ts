import http from 'node:http';
import { expect } from 'vitest';
import type { App } from '../../src/http/app-type.js';
import { SITE } from './chat-factories.js';
import { MODEL_KEY } from './conversation-factories.js';
import { createAgent } from './invocation-factories.js';
import type { OrgWithKey } from './org-factories.js';

/** Test helpers for hand-off and the Inbox (issue 35): a widget agent without tools, a member's session, event streams read live. */

/** An agent with a model on `baseUrl` (the scripted server), its chat on for SITE, hand-off as `handoff` says. */
export async function handoffAgent(app: App, who: OrgWithKey, baseUrl: string, settings: { handoff?: Record<string, unknown>; chat?: Record<string, unknown> } = {}) {
  const agent = await createAgent(app, who);
  const provider = await app.inject({ method: 'POST', url: '/api/org/model-providers', headers: who.auth, payload: { name: 'Scripted', kind: 'openai', baseUrl, apiKey: MODEL_KEY } });
  expect(provider.statusCode, provider.body).toBe(201);
  const set = await app.inject({
    method: 'PATCH', url: `/api/org/agents/${agent.id}`, headers: who.auth,
    payload: {
      model: { providerId: provider.json().data.id, model: 'scripted-model', instructions: 'You answer questions about parcels.' },
      chat: { enabled: true, allowedOrigins: [SITE], ...settings.chat },
      handoff: { enabled: true, ...settings.handoff },
    },
  });
  expect(set.statusCode, set.body).toBe(200);
  return { agentId: agent.id, chatId: set.json().data.chat.chatId as string };
}

/** A member signed in to the console: the cookie, and with its CSRF token (`auth`, for changes). */
export async function signedIn(app: App, email: string, password = 'correct horse battery'): Promise<{ cookie: Record<string, string>; auth: Record<string, string> }> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/signin', payload: { email, password } });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  return { cookie: { cookie }, auth: { cookie, 'x-csrf-token': (res.json() as { data: { csrfToken: string } }).data.csrfToken } };
}

export interface StreamEvent {
  id: string | undefined;
  type: string;
  data: any;
}

/** A Server-Sent Event stream read as it arrives (fetch): its events so far, waiting for one, its comments, its end. */
export interface OpenStream {
  status: number;
  headers: Headers;
  events: StreamEvent[];
  comments: string[];
  /** Resolves with the first event `match` accepts, among those so far or to come (fails after `ms`). */
  next(match: (event: StreamEvent) => boolean, ms?: number): Promise<StreamEvent>;
  /** Resolves once the server ended the stream. */
  ended: Promise<void>;
  close(): void;
  /** The body of a refusal (a non-200 answer). */
  body: string;
}

/** Opens a stream with node:http on a connection of its own (`close` destroys it, as a closed tab does). */
export async function openStream(url: string, headers: Record<string, string>): Promise<OpenStream> {
  const request = http.get(url, { headers, agent: false });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => request.once('response', resolve).once('error', reject));
  const stream: OpenStream = {
    status: res.statusCode ?? 0, headers: new Headers(Object.entries(res.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)] as [string, string]]))),
    events: [], comments: [], body: '',
    next: () => Promise.reject(new Error('not a stream')),
    ended: Promise.resolve(),
    close: () => request.destroy(),
  };
  res.setEncoding('utf8');
  if (stream.status !== 200) {
    for await (const chunk of res) stream.body += chunk as string;
    return stream;
  }
  const waiters: Array<{ match: (event: StreamEvent) => boolean; resolve: (event: StreamEvent) => void }> = [];
  stream.next = (match, ms = 5000) => {
    const seen = stream.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no such event within ${ms} ms; got ${JSON.stringify(stream.events)}`)), ms);
      waiters.push({ match, resolve: (event) => { clearTimeout(timer); resolve(event); } });
    });
  };
  let buffer = '';
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (block.startsWith(':')) {
        stream.comments.push(block.slice(1).trim());
        continue;
      }
      const type = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (!type || data === undefined) continue;
      const event = { id: /^id: (.+)$/m.exec(block)?.[1], type, data: JSON.parse(data) };
      stream.events.push(event);
      for (const waiter of [...waiters]) {
        if (waiter.match(event)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    }
  });
  stream.ended = new Promise((resolve) => res.once('close', () => resolve()));
  res.on('error', () => {});
  return stream;
}
